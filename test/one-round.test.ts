// Problems of every kind come in one round: a record whose id another holds, a record that breaks
// its schema and references that name nothing are all listed by one `build --check`, as a user runs
// it. The record set apart for its id still has its references read, and the records that name it
// are not blamed for it.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { fixtureWorld } from './helpers.ts';

/** Replaces one line of a record file, which must hold it. */
function edit(data: string, rel: string, from: string, to: string): void {
  const file = path.join(data, rel);
  const text = fs.readFileSync(file, 'utf8');
  expect(text, rel).toContain(from);
  fs.writeFileSync(file, text.replace(from, to));
}

async function check(data: string): Promise<{ code: number; stderr: string }> {
  try {
    await promisify(execFile)(process.execPath, [path.join(projectRoot, 'build/launch.mjs'), 'build', '--check', '--data', data], {
      cwd: path.dirname(data),
      env: { ...process.env, BASE_URL: '' },
    });
    return { code: 0, stderr: '' };
  } catch (err) {
    const { code, stderr } = err as { code: number; stderr: string };
    return { code, stderr };
  }
}

/** The problems of a text report, each as `file:line:column message`. */
const listed = (report: string) => [...report.matchAll(/^ {2}(data\/\S+:\d+:\d+) \S+ \S+ at \S+: (.*)$/gm)].map((m) => `${m[1]} ${m[2]}`);

describe('one round of problems', () => {
  it('lists a taken id, a schema error and misspelt references together, and nothing else', async () => {
    const { data } = await fixtureWorld();
    edit(data, 'type/water.yaml', 'id: 3\n', 'id: 2\n'); // fire's id
    edit(data, 'type/water.yaml', 'language: fr\n', 'language: frr\n'); // in the record set apart
    edit(data, 'stat/attack.yaml', 'game_index: 2\n', 'game_index: two\n');
    edit(data, 'stat/accuracy.yaml', 'move_damage_class: status\n', 'move_damage_class: statsu\n');

    const { code, stderr } = await check(data);
    expect(code, stderr).toBe(1);
    // Records that name water (fire, grass, a move, a creature) are not reported: its own file has the problem.
    expect(listed(stderr).sort()).toEqual([
      'data/stat/accuracy.yaml:5:20 there is no move-damage-class named "statsu"',
      'data/stat/attack.yaml:3:13 expected integer, got "two"',
      'data/type/fire.yaml:1:5 id 2 is also used by data/type/water.yaml',
      'data/type/water.yaml:14:15 there is no language named "frr"',
      'data/type/water.yaml:1:5 id 2 is already used by data/type/fire.yaml',
    ]);
    expect(stderr).toContain('5 problems in 4 files');
  });
});

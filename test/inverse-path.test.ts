// An inverse list through a path (docs/KINDS.md, x-inverse): a list whose `field` is a dotted path
// through another kind's lists, such as an item's held_by_creature from a creature's
// held_items[].item. In a copy of the project with the starter world, built by the real command:
// the list is derived from the records that point at one there, and a path that reaches no
// reference to the kind holding the list is refused in one line, as a top-level field is.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { fixturesDir, tempDir } from './helpers.ts';

const run = promisify(execFile);
const BASE = 'http://localhost:3000';

/** A copy of what the project builds from, beside its libraries, with the starter world as its data. */
async function copyProject(): Promise<string> {
  const root = await tempDir('crs-inverse-path-');
  for (const entry of ['build', 'schemas', 'explorer', 'hosts/cloudflare', 'hosts/serve.json', '.vscode'])
    fs.cpSync(path.join(projectRoot, entry), path.join(root, entry), { recursive: true });
  for (const file of ['package.json', 'package-lock.json', 'tsconfig.json', 'vite.config.ts'])
    fs.copyFileSync(path.join(projectRoot, file), path.join(root, file));
  fs.mkdirSync(path.join(root, 'node_modules'));
  for (const name of fs.readdirSync(path.join(projectRoot, 'node_modules')))
    if (name !== '.cache') fs.symlinkSync(path.join(projectRoot, 'node_modules', name), path.join(root, 'node_modules', name));
  fs.cpSync(path.join(fixturesDir, 'starter'), path.join(root, 'data'), { recursive: true });
  return root;
}

async function build(root: string, args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['build/launch.mjs', 'build', ...args], {
      cwd: root,
      env: { ...process.env, BASE_URL: BASE },
    });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const { code, stdout, stderr } = err as { code: number; stdout: string; stderr: string };
    return { code, out: stdout + stderr };
  }
}

let root: string;
beforeAll(async () => {
  root = await copyProject();
  // Two creatures hold items; the potion is held by both, in versions of their own.
  const hold = (file: string, items: string[]) =>
    fs.appendFileSync(
      path.join(root, 'data/creature', file),
      `held_items:\n${items.map((item) => `  - item: ${item}\n    version_details:\n      - { rarity: 5, version: dawn }\n`).join('')}`,
    );
  hold('tidefin.yaml', ['potion']);
  hold('emberpup.yaml', ['potion', 'emberite']);
});

describe('an x-inverse through a path', () => {
  it('lists, on each record, the records whose lists point at it there, by id', async () => {
    const { code } = await build(root, ['--out', path.join(root, 'dist'), '--plain']);
    expect(code).toBe(0);
    const item = (name: string) => JSON.parse(fs.readFileSync(path.join(root, 'dist/api/v2/item', name, 'index.json'), 'utf8'));
    const creatures = (name: string) => item(name).held_by_creature.map((ref: { name: string }) => ref.name);
    const emberpupId = JSON.parse(fs.readFileSync(path.join(root, 'dist/api/v2/creature/emberpup/index.json'), 'utf8')).id;
    const tidefinId = JSON.parse(fs.readFileSync(path.join(root, 'dist/api/v2/creature/tidefin/index.json'), 'utf8')).id;
    expect(creatures('potion')).toEqual(emberpupId < tidefinId ? ['emberpup', 'tidefin'] : ['tidefin', 'emberpup']);
    expect(creatures('emberite')).toEqual(['emberpup']);
    expect(creatures('power-band')).toEqual([]);
    expect(item('potion').held_by_creature[0].url).toMatch(new RegExp(`^${BASE}/api/v2/creature/\\d+/$`));
  });

  it('refuses, in one line, a path that reaches no reference to the kind holding the list', async () => {
    const schema = path.join(root, 'schemas/item.json');
    const item = JSON.parse(fs.readFileSync(schema, 'utf8'));
    for (const [field, why] of [
      [
        'held_items.version_details.version',
        'creature.held_items.version_details.version is not a reference to a item, nor a list of them',
      ],
      ['held_items.nothing', 'creature.held_items.nothing is not a reference to a item, nor a list of them'],
    ]) {
      item.properties.held_by_creature['x-inverse'].field = field;
      fs.writeFileSync(schema, JSON.stringify(item));
      const { code, out } = await build(root, ['--check']);
      expect(code).toBe(2);
      expect(out.trim().split('\n').at(-1)).toBe(`schemas/item.json: the x-inverse of held_by_creature: ${why}`);
      expect(out).not.toMatch(/\n\s+at /); // no stack trace
    }
  });
});

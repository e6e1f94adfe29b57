// An inverse list through a path (docs/KINDS.md, x-inverse): a list whose `field` is a dotted path
// through another kind's lists, such as a move's learned_by_creature from a creature's
// moves[].move. In a copy of the project with the starter world, built by the real command:
// the list is derived from the records that point at one there, and a path that reaches no
// reference to the kind holding the list is refused in one line, as a top-level field is. With
// `as`, the list holds the items that point at one (an ability's creatures, each with its slot).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { fixturesDir, tempDir } from './helpers.ts';

const run = promisify(execFile);
const BASE = 'http://localhost:3000';
const MOVES = ['tide-pulse', 'ember-bite', 'iron-wall'] as const;

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
  // Two creatures learn moves; both learn the first, by level, in a version group of the world.
  const learn = (file: string, moves: string[]) =>
    fs.appendFileSync(
      path.join(root, 'data/creature', file),
      `moves:\n${moves.map((move) => `  - move: ${move}\n    version_group_details:\n      - { level_learned_at: 5, move_learn_method: level-up, order: null, version_group: dawn-dusk }\n`).join('')}`,
    );
  learn('tidefin.yaml', [MOVES[0]]);
  learn('emberpup.yaml', [MOVES[0], MOVES[1]]);
  fs.appendFileSync(path.join(root, 'data/creature/tidefin.yaml'), 'abilities:\n  - { ability: blaze-heart, is_hidden: true, slot: 3 }\n');
  fs.appendFileSync(
    path.join(root, 'data/creature/emberpup.yaml'),
    'held_items:\n  - item: potion\n    version_details:\n      - { rarity: 5, version: dawn }\n',
  );
});

describe('an x-inverse through a path', () => {
  it('lists, on each record, the records whose lists point at it there, by id', async () => {
    const { code } = await build(root, ['--out', path.join(root, 'dist'), '--plain']);
    expect(code).toBe(0);
    const read = (rel: string) => JSON.parse(fs.readFileSync(path.join(root, 'dist/api/v2', rel, 'index.json'), 'utf8'));
    const learners = (move: string) => read(`move/${move}`).learned_by_creature.map((ref: { name: string }) => ref.name);
    const [emberpup, tidefin] = [read('creature/emberpup').id, read('creature/tidefin').id];
    expect(learners(MOVES[0])).toEqual(emberpup < tidefin ? ['emberpup', 'tidefin'] : ['tidefin', 'emberpup']);
    expect(learners(MOVES[1])).toEqual(['emberpup']);
    expect(learners(MOVES[2])).toEqual([]);
    expect(read(`move/${MOVES[0]}`).learned_by_creature[0].url).toMatch(new RegExp(`^${BASE}/api/v2/creature/\\d+/$`));
  });

  it('with "as", lists the items pointing at a record there, each with the record holding it', async () => {
    const read = (rel: string) => JSON.parse(fs.readFileSync(path.join(root, 'dist/api/v2', rel, 'index.json'), 'utf8'));
    const tidefin = read('creature/tidefin');
    expect(read('ability/blaze-heart').creature).toEqual([
      { is_hidden: true, slot: 3, creature: { name: 'tidefin', url: `${BASE}/api/v2/creature/${tidefin.id}/` } },
    ]);
    const emberpup = read('creature/emberpup');
    expect(read('item/potion').held_by_creature).toEqual([
      {
        version_details: [{ rarity: 5, version: { name: 'dawn', url: expect.stringMatching(/\/api\/v2\/version\/\d+\/$/) } }],
        creature: { name: 'emberpup', url: `${BASE}/api/v2/creature/${emberpup.id}/` },
      },
    ]);
    expect(read('item/emberite').held_by_creature).toEqual([]);
  });

  it('refuses, in one line, an "as" whose items do not hold the record holding them', async () => {
    const schema = path.join(root, 'schemas/ability.json');
    const original = fs.readFileSync(schema, 'utf8');
    const ability = JSON.parse(original);
    ability.properties.creature['x-inverse'].as = 'pokemon';
    fs.writeFileSync(schema, JSON.stringify(ability));
    try {
      const { code, out } = await build(root, ['--check']);
      expect(code).toBe(2);
      expect(out.trim().split('\n').at(-1)).toBe(
        'schemas/ability.json: the x-inverse of creature: the list\'s items must hold a reference to a creature in "pokemon" ("x-ref": "creature")',
      );
    } finally {
      fs.writeFileSync(schema, original);
    }
  });

  it('refuses, in one line, a path that reaches no reference to the kind holding the list', async () => {
    const schema = path.join(root, 'schemas/move.json');
    const move = JSON.parse(fs.readFileSync(schema, 'utf8'));
    for (const [field, why] of [
      [
        'moves.version_group_details.version_group',
        'creature.moves.version_group_details.version_group is not a reference to a move, nor a list of them',
      ],
      ['moves.nothing', 'creature.moves.nothing is not a reference to a move, nor a list of them'],
    ]) {
      move.properties.learned_by_creature['x-inverse'].field = field;
      fs.writeFileSync(schema, JSON.stringify(move));
      const { code, out } = await build(root, ['--check']);
      expect(code).toBe(2);
      expect(out.trim().split('\n').at(-1)).toBe(`schemas/move.json: the x-inverse of learned_by_creature: ${why}`);
      expect(out).not.toMatch(/\n\s+at /); // no stack trace
    }
  });
});

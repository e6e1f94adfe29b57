// The scale tools: the world generator (gen-world.ts) and the benchmark's measurements (bench.ts).
// A generated world has PokeAPI's proportions, is the same for the same seed, and builds with no
// problem; each of the bench's measurements runs in a process of its own and reports what it did.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect, freeRoom, measure, roomProblem } from '../build/bench.ts';
import { generateWorld, writeWorld } from '../build/gen-world.ts';
import { buildWorld, listFiles, snapshot, tempDir } from './helpers.ts';

type Rec = Record<string, any>;

const counts = (world: Map<string, Rec[]>) => Object.fromEntries([...world].map(([kind, records]) => [kind, records.length]));

/** The encounter version details of each location area. */
const detailsPerArea = (world: Map<string, Rec[]>) =>
  world.get('location-area')!.map((area) => area.creature_encounters.reduce((n: number, e: Rec) => n + e.version_details.length, 0));

describe('the world generator', () => {
  it("has PokeAPI's proportions at scale 1", () => {
    const world = generateWorld(1);
    expect(counts(world)).toMatchObject({
      type: 21,
      'creature-form': 1580,
      'location-area': 1530,
      'athlon-stat': 5,
      gender: 3,
      creature: 1000,
      'creature-species': 1000,
      move: 900,
      nature: 25,
      item: 2000,
      version: 40,
    });
    const details = detailsPerArea(world);
    const total = details.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(30_000);
    expect(total).toBeLessThan(50_000);
    expect(Math.max(...details)).toBeGreaterThan(700);
    expect(Math.max(...details)).toBeLessThanOrEqual(1000);
  });

  it('multiplies the open-ended kinds by the scale and keeps the vocabularies', () => {
    const one = counts(generateWorld(1));
    const three = counts(generateWorld(3));
    for (const kind of ['creature', 'creature-species', 'creature-form', 'move', 'item', 'location', 'location-area'])
      expect(three[kind], kind).toBe(one[kind]! * 3);
    for (const kind of ['type', 'stat', 'athlon-stat', 'gender', 'nature', 'version', 'language'])
      expect(three[kind], kind).toBe(one[kind]);
  });

  it('writes the same files for the same seed, and other files for another', async () => {
    const root = await tempDir();
    const write = (seed: number, name: string) => {
      writeWorld(generateWorld(0.05, seed), path.join(root, name));
      return snapshot(path.join(root, name));
    };
    const first = await write(7, 'a');
    expect(await write(7, 'b')).toEqual(first);
    expect(await write(8, 'c')).not.toEqual(first);
  });

  it('writes a world that builds with no problem, every reference resolved', async () => {
    const root = await tempDir();
    const data = path.join(root, 'data');
    const world = generateWorld(0.05, 3);
    const sources = writeWorld(world, data);
    expect(sources).toBe([...world.values()].reduce((n, list) => n + list.length, 0));
    const out = path.join(root, 'dist');
    const result = await buildWorld({ dataDir: data, outDir: out });
    expect(result.records).toEqual(counts(world));
    // A reference that did not resolve would fail the build; each published area's encounters
    // point at creatures the build published.
    const area = JSON.parse(fs.readFileSync(path.join(out, 'api/v2/location-area/1/index.json'), 'utf8'));
    expect(area.creature_encounters.length).toBeGreaterThan(0);
    for (const e of area.creature_encounters) {
      const rel = new URL(e.creature.url).pathname.slice(1);
      expect(fs.existsSync(path.join(out, rel, 'index.json')), rel).toBe(true);
    }
  });
});

describe("the benchmark's measurements", () => {
  it('builds, parses, and writes the floor of the same world', async () => {
    const root = await tempDir();
    const data = path.join(root, 'data');
    const sources = writeWorld(generateWorld(0.02, 5), data);

    const build = measure(['build', data, path.join(root, 'out')]);
    expect(build.records).toBe(sources);
    expect((build.written ?? 0) + (build.linked ?? 0)).toBe(build.files);
    expect(build.ms).toBeGreaterThan(0);
    expect(build.rssMb).toBeGreaterThan(0);

    const parse = measure(['parse', data]);
    expect(parse.records).toBe(sources);

    // The floor writes back the built tree's files, from the list the bench makes of them.
    await collect(path.join(root, 'out'), path.join(root, 'files.bin'));
    const listed = await listFiles(path.join(root, 'out'));
    const floor = measure(['floor', path.join(root, 'files.bin'), path.join(root, 'floor')]);
    expect(floor.files).toBe(build.files);
    expect((await listFiles(path.join(root, 'floor'))).sort()).toEqual(listed.sort());
  });

  it('refuses a scale the disk cannot hold before measuring it, saying how much room it needs', () => {
    // Each run's build and floor stay until the scale is done: 7 more trees for 3 runs.
    const tree = { bytes: 2 ** 30, files: 40_000 };
    expect(roomProblem(10, tree, 7, { bytes: 8 * 2 ** 30, files: 1_000_000 })).toBeUndefined();
    expect(roomProblem(10, tree, 7, { bytes: 4 * 2 ** 30, files: 1_000_000 })).toMatch(
      /^scale 10 needs room for 7 more trees .*: about 7\.7 GiB and 308,000 files, where 4\.0 GiB and 1,000,000 files are free/,
    );
    expect(roomProblem(10, tree, 7, { bytes: 8 * 2 ** 30, files: 200_000 })).toMatch(
      /308,000 files, where 8\.0 GiB and 200,000 files are free/,
    );
    const free = freeRoom(os.tmpdir());
    expect(free.bytes).toBeGreaterThan(0);
    expect(free.files).toBeGreaterThan(0);
  });
});

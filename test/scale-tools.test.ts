// The scale tools: the world generator (gen-world.ts) and the benchmark (bench.ts, floor.mjs). A
// generated world has PokeAPI's proportions, is the same for the same seed, and builds with no
// problem. The bench times whole processes: a build started as users start it, and a floor that
// writes back exactly the files, bytes and hard links that build left.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  freeRoom,
  measureProcess,
  median,
  parseOptions,
  percentile,
  roomProblem,
  runBench,
  runDevBench,
  timeBuild,
  timeFloor,
  timeListing,
  writeFloorPlan,
} from '../build/tools/bench.ts';
import { projectSchemas } from '../build/schemas/schemas.ts';
import { addWorktree } from '../build/tools/worktree.ts';
import { generateWorld, writeWorld } from '../build/tools/gen-world.ts';
import { buildWorld, fixtureWorld, listFiles, snapshot, tempDir } from './helpers.ts';

const projectRoot = path.resolve(import.meta.dirname, '..');

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
    // The kinds the generator writes no record of (abilities: no form of its worlds is triggered by
    // one; the catalog kinds PokeAPI's data added) are published empty.
    const unwritten = [...projectSchemas().kinds.keys()].filter((kind) => !world.has(kind));
    expect(unwritten).toContain('ability');
    expect(result.records).toEqual({ ...Object.fromEntries(unwritten.map((kind) => [kind, 0])), ...counts(world) });
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

/** Every file under `dir` with a hash of its bytes. */
async function bytesOf(dir: string): Promise<Map<string, string>> {
  const files = await listFiles(dir);
  return new Map(
    files.map((rel) => [
      rel,
      createHash('sha1')
        .update(fs.readFileSync(path.join(dir, rel)))
        .digest('hex'),
    ]),
  );
}

/** The paths under `dir` that are one file, hard links of each other: each set sorted, the sets too. */
async function linkGroups(dir: string): Promise<string[][]> {
  const byInode = new Map<number, string[]>();
  for (const rel of await listFiles(dir)) {
    const ino = fs.statSync(path.join(dir, rel)).ino;
    byInode.set(ino, [...(byInode.get(ino) ?? []), rel]);
  }
  return [...byInode.values()].filter((group) => group.length > 1).sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}

const worktrees = () => execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: projectRoot, encoding: 'utf8' });
/** The bench's worktrees now that were not there before `before` was taken: other checkouts' benches may be running too. */
const newBenchWorktrees = (before: string[] = []) =>
  worktrees()
    .split('\n')
    .filter((line) => line.startsWith('worktree ') && line.includes('crs-bench-') && !before.includes(line));

describe("the benchmark's measurements", () => {
  it('times a whole process from spawn to exit, with the peak memory of its largest process', async () => {
    // A child that holds 200 MB while its parent stays small: the figure is the child's.
    const child = `require('node:child_process').execFileSync(process.execPath, ['-e', 'Buffer.alloc(200 * 2 ** 20, 1)'])`;
    const big = await measureProcess(['node', '-e', child]);
    expect(big.code).toBe(0);
    expect(big.ms).toBeGreaterThan(0);
    expect(big.rssMb).toBeGreaterThan(200);
    const failed = await measureProcess(['node', '-e', 'process.stdout.write("said"); process.exit(3)']);
    expect(failed).toMatchObject({ code: 3, stdout: 'said' });
    expect(failed.rssMb).toBeGreaterThan(0);
    expect(failed.rssMb).toBeLessThan(200);
  });

  it('takes the middle of the runs, or the mean of the middle two', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it("builds as users do, and the floor writes back the build's paths, bytes and hard links", async () => {
    const root = await tempDir();
    const data = path.join(root, 'data');
    const sources = writeWorld(generateWorld(0.02, 5), data);
    const out = path.join(root, 'out');
    const build = await timeBuild(projectRoot, data, out);
    expect(build.records).toBe(sources);
    expect(build.written! + build.linked!).toBe(build.files);
    expect(build.ms).toBeGreaterThan(build.buildMs!); // the process's start and end are counted too
    expect(build.rssMb).toBeGreaterThan(0);
    expect(Object.keys(build.stages!).length).toBeGreaterThan(0);

    const plan = writeFloorPlan(out, path.join(root, 'plan.json'));
    const floorOut = path.join(root, 'floor');
    const floor = await timeFloor(path.join(root, 'plan.json'), floorOut);
    const written = plan.entries.filter((e) => e.length === 3).length;
    expect(floor).toMatchObject({ files: build.files, written, linked: plan.links.length });
    const built = fs.realpathSync(out); // the tree the output's link points at
    expect(await bytesOf(floorOut)).toEqual(await bytesOf(built));
    const links = await linkGroups(built);
    expect(links.length).toBeGreaterThan(0);
    expect(await linkGroups(floorOut)).toEqual(links);
    // The same folders, the empty ones too.
    const folders = (snap: Map<string, string>) => [...snap.keys()].filter((k) => k.endsWith('/'));
    expect(folders(await snapshot(floorOut))).toEqual(folders(await snapshot(built)));

    // Shared among other numbers of threads, the work makes the same tree.
    for (const threads of [1, 3]) {
      const other = path.join(root, `floor-${threads}`);
      await timeFloor(path.join(root, 'plan.json'), other, threads);
      expect(await bytesOf(other)).toEqual(await bytesOf(built));
      expect(await linkGroups(other)).toEqual(links);
    }

    // A fresh output is the floor's premise: an existing one is refused, not mixed in.
    await expect(timeFloor(path.join(root, 'plan.json'), floorOut)).rejects.toThrow(/EEXIST/);

    // The listing floor lists and stats the data folder itself: a folder that is not there fails it.
    expect((await timeListing(data)).ms).toBeGreaterThan(0);
    await expect(timeListing(path.join(root, 'no-such-data'))).rejects.toThrow(/ENOENT/);
  });

  it("sets up another revision's checkout to build with this one's packages, and removes it", async () => {
    const root = await tempDir();
    const tree = addWorktree('HEAD', root, projectRoot);
    try {
      expect(fs.existsSync(path.join(tree.dir, 'package.json'))).toBe(true);
      expect(fs.realpathSync(path.join(tree.dir, 'node_modules'))).toBe(fs.realpathSync(path.join(projectRoot, 'node_modules')));
      expect(worktrees()).toContain(tree.dir);
      const lockAtHead = execFileSync('git', ['show', 'HEAD:package-lock.json'], {
        cwd: projectRoot,
        encoding: 'utf8',
        maxBuffer: 1 << 28,
      });
      const same = lockAtHead === fs.readFileSync(path.join(projectRoot, 'package-lock.json'), 'utf8');
      expect(tree.warning === undefined).toBe(same);
    } finally {
      tree.remove();
    }
    expect(fs.existsSync(tree.dir)).toBe(false);
    expect(worktrees()).not.toContain(tree.dir);
    expect(() => addWorktree('no-such-revision', root, projectRoot)).toThrow(/no such revision/);
  });

  it('races this checkout against a revision, in turns, and leaves no worktree behind', { timeout: 180_000 }, async () => {
    const root = await tempDir();
    const results = path.join(root, 'bench.json');
    const others = newBenchWorktrees();
    const bench = await runBench({ scales: [0.02], runs: 3, against: 'HEAD', settle: 0, results, log: () => {} });
    expect(bench.rows.map((r) => r.scenario)).toEqual([
      'full',
      'edit',
      'no-op',
      'runtime start',
      'no-op beyond runtime start',
      'first edit after a full build',
      'no-op beyond runtime start',
      'first edit after a full build',
    ]);
    for (const r of bench.rows.slice(0, 3)) {
      expect(r.baseline).toBe('HEAD');
      expect(r.samples).toHaveLength(3);
      expect(r.baseSamples).toHaveLength(3);
      expect(r.ratio).toBeGreaterThan(0);
      expect(r.peakRssMb).toBeGreaterThan(0);
    }
    // Each edit run changes one record: its file and the link beside it, on both sides.
    const edit = bench.rows[1]!;
    for (const s of [...edit.samples, ...edit.baseSamples!]) expect(s.written! + s.linked!).toBeGreaterThan(0);
    for (const s of [...edit.samples, ...edit.baseSamples!]) expect(s.written! + s.linked!).toBeLessThan(10);
    expect(bench.worlds[0]!.records).toBe([...generateWorld(0.02, 1).values()].reduce((n, list) => n + list.length, 0));
    // The first edit after each full build, on that build's output, against later edits.
    const first = bench.rows[5]!;
    expect(first.samples).toHaveLength(3);
    expect(first.baseline).toBe('later edit');
    expect(first.ratio).toBeGreaterThan(0);
    // Beside their floors: listing every source with its time, and linking the whole tree, in turns with the first edits.
    const [listing, linking] = bench.rows.slice(6);
    expect(listing).toMatchObject({ baseline: 'listing floor', ms: bench.rows[4]!.ms });
    expect(Number.isFinite(listing!.baseMs)).toBe(true); // at this size, within the start's noise
    expect(linking).toMatchObject({ baseline: 'link floor (cp -al)', ms: first.ms });
    expect(linking!.baseSamples).toHaveLength(3);
    expect(linking!.ratio).toBeGreaterThan(0);
    expect(JSON.parse(fs.readFileSync(results, 'utf8')).rows).toHaveLength(8);
    expect(newBenchWorktrees(others)).toEqual([]);
  });

  it(
    'benches a data folder as a world, on a copy, with one edit its schema allows, against the targets',
    { timeout: 180_000 },
    async () => {
      const { root, data } = await fixtureWorld();
      const before = await snapshot(data);
      const results = path.join(root, 'bench.json');
      const bench = await runBench({ ...parseOptions(['--data', data, '--settle', '0']), results, log: () => {} });
      expect(bench.rows.slice(0, 4).map((r) => r.scenario)).toEqual(['full', 'edit', 'no-op', 'runtime start']);
      expect(new Set(bench.rows.map((r) => r.scale))).toEqual(new Set([data]));
      const [full, edit, noop] = bench.rows;
      expect(full).toMatchObject({ baseline: 'floor' });
      expect(full!.ratio).toBeGreaterThan(0);
      // Each edit run changes one record, a whole number in its file: its file and the link beside it.
      for (const s of edit!.samples) expect(s.written! + s.linked!).toBeGreaterThan(0);
      for (const s of edit!.samples) expect(s.written! + s.linked!).toBeLessThan(10);
      for (const s of noop!.samples) expect(s.written).toBe(0);
      const world = bench.worlds[0]!;
      expect(world.records).toBe((await listFiles(data)).filter((f) => f.includes('/')).length);
      expect(world.edit).toMatch(/^[a-z-]+\/[a-z0-9-]+\.yaml: [a-z_]+$/);
      const edited = world.edit!.split(':')[0]!;
      expect(fs.existsSync(path.join(data, edited))).toBe(true);
      expect(world.targets!.map((t) => t.target)).toEqual([
        expect.stringMatching(/write floor/),
        expect.stringMatching(/peak memory/),
        expect.stringMatching(/one-edit rebuild/),
        expect.stringMatching(/no-op/),
      ]);
      expect(world.targets![3]!.met).toBe(noop!.ms <= 1000);
      // The author's folder is as it was: the edits were made to the bench's copy.
      expect(await snapshot(data)).toEqual(before);
      expect(parseOptions(['--data', data])).toMatchObject({ data, scales: [] });
      expect(() => parseOptions(['--data', data, '--scales', '1'])).toThrow(/one of them/);
      expect(() => parseOptions(['--data', path.join(root, 'none')])).toThrow(/no such folder/);
      expect(() => parseOptions(['--dev', '--data', data])).toThrow(/--runs and --against only/);
      // A folder the build finds a problem in is told by that problem, named as in the folder.
      fs.appendFileSync(path.join(data, edited), 'id: 1\n');
      await expect(runBench({ ...parseOptions(['--data', data]), results, log: () => {} })).rejects.toThrow(
        new RegExp(`^the world does not build: ${edited}:\\d+:\\d+: .*\\(1 problem; `),
      );
    },
  );

  it('reads its command line: scales, at least three runs, a revision, a settle time', () => {
    expect(parseOptions([])).toMatchObject({ scales: [1, 10], runs: 3, against: undefined, settle: undefined });
    expect(parseOptions(['--scales', '0.5,2', '--runs', '5', '--against', 'abc123', '--settle', '0'])).toMatchObject({
      scales: [0.5, 2],
      runs: 5,
      against: 'abc123',
      settle: 0,
    });
    expect(() => parseOptions(['--runs', '2'])).toThrow(/3 or more/);
    expect(() => parseOptions(['--scales', '1,x'])).toThrow(/positive numbers/);
    expect(() => parseOptions(['--settle=-1'])).toThrow(/seconds/);
    expect(parseOptions(['--dev'])).toMatchObject({ dev: true, runs: 20 });
    expect(parseOptions(['--dev', '--runs', '5'])).toMatchObject({ dev: true, runs: 5 });
    expect(parseOptions(['--dev', '--against', 'abc123'])).toMatchObject({ dev: true, against: 'abc123' });
    expect(() => parseOptions(['--dev', '--scales', '1'])).toThrow(/--runs and --against only/);
  });

  // runDevBench fails when a loop, stopped by Ctrl-C, leaves its temp build in the bench's folder.
  it(
    'races saves to two dev loops, this checkout and a revision, as a client polling the record sees them',
    { timeout: 180_000 },
    async () => {
      const results = path.join(await tempDir(), 'bench.json');
      const others = newBenchWorktrees();
      const bench = await runDevBench({ runs: 3, against: 'HEAD', results, log: () => {} });
      expect(bench.rows.map((r) => [r.scenario, r.samples.length, r.baseSamples?.length])).toEqual([
        ['dev: save to answer', 3, 3],
        ['dev: first save after start', 1, 1],
      ]);
      const saves = bench.rows[0]!;
      expect(saves.baseline).toBe('HEAD');
      expect(saves.ratio).toBeGreaterThan(0);
      // Each save is a build, and a build of the shipped world takes milliseconds at the least.
      expect(saves.minMs).toBeGreaterThan(5);
      expect(saves.minMs).toBeLessThanOrEqual(saves.ms);
      expect(saves.p90Ms).toBe(saves.maxMs);
      expect(bench.worlds[0]!.records).toBeGreaterThan(1000);
      expect(JSON.parse(fs.readFileSync(results, 'utf8')).rows[0].samples).toHaveLength(3);
      expect(newBenchWorktrees(others)).toEqual([]);
      expect(percentile([5, 1, 4, 2, 3, 10, 9, 8, 7, 6], 0.9)).toBe(9);
    },
  );

  it('refuses a scale the disk cannot hold before measuring it, saying how much room it needs', () => {
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

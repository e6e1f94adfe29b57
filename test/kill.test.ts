// A build killed at any moment (kill -9) leaves dist/ exactly the old tree or exactly the new
// one: never a mix, never missing. Runs the real command line and kills it at many points.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDataDir, projectRoot } from '../build/paths.ts';
import { PLAIN_MARK } from '../build/output/guard.ts';
import { layout } from '../build/output/trees.ts';
import { buildWorld, fixturesDir, fixtureWorld, snapshot, tempDir, treesMatchManifests } from './helpers.ts';

const RUNS = 24;

const BASES = { a: 'https://a.example.org', b: 'https://b.example.org' };

/** The build's command line, as its own process, printing nothing. */
function startBuild(data: string, out: string, base: string, extra: string[]): ChildProcess {
  const cli = path.join(projectRoot, 'build/cli/build.ts');
  return spawn(process.execPath, ['--import', 'tsx', cli, '--data', data, '--out', out, ...extra], {
    cwd: projectRoot,
    env: { ...process.env, BASE_URL: base },
    stdio: 'ignore',
  });
}

/** Starts the CLI; kills it with SIGKILL after `killAfter` ms unless it ends first. */
function buildKilledAfter(
  data: string,
  out: string,
  base: string,
  killAfter: number,
  extra: string[] = [],
): Promise<{ killed: boolean; ms: number }> {
  const started = performance.now();
  const child = startBuild(data, out, base, extra);
  const timer = setTimeout(() => child.kill('SIGKILL'), killAfter);
  return new Promise((resolve) => {
    child.on('exit', (_code, signal) => {
      clearTimeout(timer);
      resolve({ killed: signal === 'SIGKILL', ms: performance.now() - started });
    });
  });
}

describe('a killed build', () => {
  it(`leaves dist exactly old or exactly new, at ${RUNS} kill points`, async () => {
    // The shipped world, built for two addresses: every file differs between the two trees, so
    // a build spends much of its time writing, which is where a kill could do harm.
    const root = await tempDir();
    const out = path.join(root, 'dist');
    const trees = { a: path.join(await tempDir(), 'dist'), b: path.join(await tempDir(), 'dist') };
    await buildWorld({ dataDir: defaultDataDir, outDir: trees.a, baseUrl: BASES.a });
    await buildWorld({ dataDir: defaultDataDir, outDir: trees.b, baseUrl: BASES.b });
    const expected = { a: await snapshot(trees.a), b: await snapshot(trees.b) };
    const which = (tree: Map<string, string>) => (equal(tree, expected.a) ? 'a' : equal(tree, expected.b) ? 'b' : 'mixed');

    // Both trees exist beside dist; then a whole run, timed, to spread the kills over. The first run
    // of the command line on a fresh machine is not timed: it fills the TypeScript loader's cache
    // and took four times as long as the runs after it (2.4 s against under 0.6 s), which put every
    // kill point after the build had ended.
    await buildWorld({ dataDir: defaultDataDir, outDir: out, baseUrl: BASES.a });
    await buildKilledAfter(defaultDataDir, out, BASES.b, 120_000);
    const whole = await buildKilledAfter(defaultDataDir, out, BASES.a, 120_000);
    expect(which(await snapshot(out))).toBe('a');

    let state: 'a' | 'b' = 'a';
    const outcomes: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const target = state === 'a' ? 'b' : 'a';
      const killAfter = whole.ms * (0.25 + (0.85 * i) / RUNS);
      const run = await buildKilledAfter(defaultDataDir, out, BASES[target], killAfter);
      const now = which(await snapshot(out));
      outcomes.push(`${Math.round(killAfter)}ms ${run.killed ? 'killed' : 'finished'} → ${now}`);
      expect(now, outcomes.join('\n')).not.toBe('mixed');
      expect([state, target]).toContain(now);
      state = now as 'a' | 'b';
    }
    console.info(`kill runs (whole run ${Math.round(whole.ms)}ms):\n${outcomes.join('\n')}`);
    // Builds were stopped part way, and the tree moved on whenever one finished.
    expect(outcomes.filter((o) => o.includes('killed')).length, outcomes.join('\n')).toBeGreaterThanOrEqual(RUNS / 3);
    // Nothing but the output and the trees beside it was written.
    expect(fs.readdirSync(root).sort()).toEqual(['.dist-builds', 'dist']);
    // After all that, an ordinary build still gives exactly the clean result.
    await buildWorld({ dataDir: defaultDataDir, outDir: out, baseUrl: BASES.a });
    expect(which(await snapshot(out))).toBe('a');
  }, 300_000);
});

describe('a killed rebuild given its changes alone', () => {
  // A rebuild whose records keep their facts gives the tree built beside the live one only the
  // files that may change (trees.ts, publishChanges). It is killed once it has started on that tree
  // (its manifest is gone) and at moments after; each time with a power not published before, so
  // the record's files and its kind's NDJSON file are written.
  it('leaves the old output or the new one, and the next build whole', async () => {
    const { w, setPower } = await worldWithPower();
    const expected = async (power: number) => {
      setPower(power);
      const clean = path.join(await tempDir(), 'dist');
      await buildWorld({ dataDir: w.data, outDir: clean, baseUrl: BASES.a });
      return snapshot(clean);
    };
    const where = layout(w.out);
    const other = () => where.manifest(path.basename(fs.readlinkSync(w.out)) === 'a' ? 'b' : 'a');
    // Two whole builds: the second tree is then the one the live tree was built beside.
    await buildKilledAfter(w.data, w.out, BASES.a, 120_000);
    setPower(94);
    await buildKilledAfter(w.data, w.out, BASES.a, 120_000);
    let old = await expected(94);
    expect(equal(await snapshot(w.out), old)).toBe(true);
    const outcomes: string[] = [];
    for (const [i, delay] of [0, 0, 1, 2, 3, 5, 8, 13, 21].entries()) {
      const next = await expected(60 + i);
      const manifest = other();
      expect(fs.existsSync(manifest)).toBe(true);
      const run = await buildKilledWhen(w.data, w.out, BASES.a, () => !fs.existsSync(manifest), delay);
      const now = await snapshot(w.out);
      const seen = equal(now, old) ? 'old' : equal(now, next) ? 'new' : 'mixed';
      outcomes.push(`${delay} ms ${run.killed ? 'killed' : 'finished'} → ${seen}`);
      expect(['old', 'new'], outcomes.join('\n')).toContain(seen);
      // The next build, whole, gives exactly the clean output (a tree killed part way has no manifest,
      // and is built again from the live one), and leaves both trees whole for the next kill.
      await buildKilledAfter(w.data, w.out, BASES.a, 120_000);
      expect(equal(await snapshot(w.out), next), outcomes.join('\n')).toBe(true);
      old = next;
    }
    console.info(`kill runs:\n${outcomes.join('\n')}`);
    expect(outcomes.filter((o) => o.includes('killed')).length, outcomes.join('\n')).toBeGreaterThanOrEqual(3);
  }, 120_000);
});

describe('a killed fill of the tree beside the live one', () => {
  // The dev loop fills the second tree while idle (trees.ts, `Tree.fill`): killed at any moment,
  // the live tree is as it was, the other tree holds what its manifest says (if it has one), and
  // the next build is whole. Each fill starts from a tree without a manifest, as after a full build.
  it('leaves the live tree as it was, and trees the next build can trust', async () => {
    const { w, setPower } = await worldWithPower();
    const where = layout(w.out);
    const other = () => (path.basename(fs.readlinkSync(w.out)) === 'a' ? 'b' : 'a');
    const fill = [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      "const { openTree } = await import('./build/output/trees.ts'); await (await openTree(process.argv[1])).fill(() => false, 8);",
    ];
    await buildWorld({ dataDir: w.data, outDir: w.out, baseUrl: BASES.a });
    const outcomes: string[] = [];
    for (const [i, delay] of [0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144].entries()) {
      const live = await snapshot(w.out);
      fs.rmSync(where.manifest(other()), { force: true });
      const child = spawn(process.execPath, [...fill, w.out], { cwd: projectRoot, stdio: 'ignore' });
      // Killed a moment after it takes the build lock.
      const run = await killedWhen(child, () => fs.existsSync(where.lock), delay);
      const filled = fs.existsSync(where.manifest(other()));
      outcomes.push(`${delay} ms ${run.killed ? 'killed' : 'finished'}${filled ? ', other tree recorded' : ''}`);
      expect(equal(await snapshot(w.out), live), outcomes.join('\n')).toBe(true);
      expect(await treesMatchManifests(w.out), outcomes.join('\n')).toBe(filled ? 2 : 1);
      setPower(70 + i);
      await buildWorld({ dataDir: w.data, outDir: w.out, baseUrl: BASES.a });
      expect(await asClean(w.data, w.out), outcomes.join('\n')).toBe(true);
      expect(await treesMatchManifests(w.out)).toBe(2);
    }
    console.info(`fill kill runs:\n${outcomes.join('\n')}`);
    expect(outcomes.filter((o) => o.includes('killed')).length, outcomes.join('\n')).toBeGreaterThanOrEqual(3);
  }, 120_000);
});

describe('a build killed after making folders for new records', () => {
  // A build makes the folders of records the tree lacks while it computes (`Tree.prepare`). Killed
  // then, before it has touched the tree, none may stay in a tree whose manifest is still trusted:
  // should the records be gone by the next build, their folders would be published empty.
  it('leaves none in a tree the next build trusts', async () => {
    const { w, setPower } = await worldWithPower();
    await buildWorld({ dataDir: w.data, outDir: w.out, baseUrl: BASES.a });
    setPower(81);
    await buildWorld({ dataDir: w.data, outDir: w.out, baseUrl: BASES.a });
    const where = layout(w.out);
    const other = where.tree(path.basename(fs.readlinkSync(w.out)) === 'a' ? 'b' : 'a');
    // More than a batch of folders, so that the writer is sent them before any file.
    const dirs = Array.from({ length: 1100 }, (_, i) => `api/v2/item/${9000 + i}`);
    const script = `const { openTree } = await import('./build/output/trees.ts');
      const t = await openTree(process.argv[1]);
      t.prepare(${JSON.stringify(dirs)});
      await new Promise((resolve) => setTimeout(resolve, 1000));
      process.kill(process.pid, 'SIGKILL');`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, w.out], {
      cwd: projectRoot,
      stdio: 'ignore',
    });
    await new Promise((resolve) => child.on('exit', resolve));
    expect(fs.existsSync(path.join(other, dirs[0]!)), 'a folder was made before the kill').toBe(false);
    setPower(82);
    await buildWorld({ dataDir: w.data, outDir: w.out, baseUrl: BASES.a });
    expect(await asClean(w.data, w.out)).toBe(true);
  }, 60_000);
});

describe('a killed build replacing a plain output', () => {
  // A plain output is a folder, which no rename can replace in one step: it is moved aside to
  // `.dist-builds/previous`, the new one renamed in, and the next build puts it back should a kill
  // land between the two. Kills are placed by what the build has done, seen on disk, rather than by
  // time: the moments that matter last microseconds at the end of a build. The starter world.
  const starter = path.join(fixturesDir, 'starter');
  const points: Array<[string, (root: string) => boolean, number]> = [
    ['writing the new tree', (root) => fs.existsSync(path.join(root, '.dist-builds', 'a', 'api')), 0],
    ['the new tree marked', (root) => fs.existsSync(path.join(root, '.dist-builds', 'a', PLAIN_MARK)), 0],
    ['the new tree marked, 1 ms on', (root) => fs.existsSync(path.join(root, '.dist-builds', 'a', PLAIN_MARK)), 1],
    ['the old output moved aside', (root) => fs.existsSync(path.join(root, '.dist-builds', 'previous')), 0],
    ['the link made', (root) => fs.readdirSync(path.join(root, '.dist-builds')).some((n) => n.startsWith('link-')), 0],
  ];
  for (const mode of ['--plain over --plain', 'a linked build over --plain'] as const) {
    it(`leaves the old output or the new one (${mode})`, async () => {
      const trees = { a: path.join(await tempDir(), 'dist'), b: path.join(await tempDir(), 'dist') };
      await buildWorld({ dataDir: starter, outDir: trees.a, baseUrl: BASES.a });
      await buildWorld({ dataDir: starter, outDir: trees.b, baseUrl: BASES.b });
      const expected = { a: await snapshot(trees.a), b: await snapshot(trees.b) };
      const which = async (dir: string) => {
        if (!fs.existsSync(dir)) return 'none';
        const tree = await snapshot(dir);
        tree.delete(PLAIN_MARK);
        return equal(tree, expected.a) ? 'a' : equal(tree, expected.b) ? 'b' : 'mixed';
      };
      const root = await tempDir();
      const out = path.join(root, 'dist');
      const newOne = mode === '--plain over --plain' ? ['--plain'] : [];
      const outcomes: string[] = [];
      for (const [point, reached, delay] of points) {
        // Only a plain build marks its tree; only a linked one makes a link.
        if (mode === '--plain over --plain' ? point === 'the link made' : point.startsWith('the new tree marked')) continue;
        // A plain output of a, then a build to b killed at the point.
        await buildKilledAfter(starter, out, BASES.a, 120_000, ['--plain']);
        expect(await which(out)).toBe('a');
        const run = await buildKilledWhen(starter, out, BASES.b, () => reached(root), delay, newOne);
        let now = await which(out);
        // Killed between the two renames: the old output waits beside, whole, for the next build.
        if (now === 'none') now = `none, previous ${await which(path.join(root, '.dist-builds', 'previous'))}`;
        outcomes.push(`${point} ${run.killed ? 'killed' : 'finished'} → ${now}`);
        expect(['a', 'b', 'none, previous a'], outcomes.join('\n')).toContain(now);
      }
      console.info(`${mode} kill runs:\n${outcomes.join('\n')}`);
      expect(outcomes.filter((o) => o.includes('killed')).length, outcomes.join('\n')).toBeGreaterThanOrEqual(2);
      await buildKilledAfter(starter, out, BASES.a, 120_000, ['--plain']);
      expect(await which(out)).toBe('a');
      expect(fs.readdirSync(root)).toEqual(['dist']);
    }, 180_000);
  }

  it('the next build puts back an output left beside by a kill between the two renames', async () => {
    const w = await tempDir();
    const out = path.join(w, 'dist');
    await buildKilledAfter(starter, out, BASES.a, 120_000, ['--plain']);
    const before = await snapshot(out);
    // The state such a kill leaves: the output moved aside, the new one not yet in its place.
    fs.mkdirSync(path.join(w, '.dist-builds'));
    fs.renameSync(out, path.join(w, '.dist-builds', 'previous'));
    await buildKilledAfter(path.join(w, 'no-such-data'), out, BASES.a, 120_000);
    expect(fs.existsSync(out), 'a failed build touches nothing').toBe(false);
    await buildKilledAfter(starter, out, BASES.a, 120_000);
    expect(await snapshot(out)).toEqual(new Map([...before].filter(([rel]) => rel !== PLAIN_MARK)));
    expect(fs.readdirSync(path.join(w, '.dist-builds')).sort()).toEqual(['a', 'a.manifest']);
  }, 120_000);
});

/** Starts the CLI; kills it with SIGKILL `delay` ms after `reached` first holds, looked for every millisecond. */
function buildKilledWhen(
  data: string,
  out: string,
  base: string,
  reached: () => boolean,
  delay: number,
  extra: string[] = [],
): Promise<{ killed: boolean }> {
  return killedWhen(startBuild(data, out, base, extra), reached, delay);
}

/** Kills `child` with SIGKILL `delay` ms after `reached` first holds, unless it ends first. */
function killedWhen(child: ChildProcess, reached: () => boolean, delay: number): Promise<{ killed: boolean }> {
  const watch = setInterval(() => {
    let now = false;
    try {
      now = reached();
    } catch {}
    if (!now) return;
    clearInterval(watch);
    setTimeout(() => child.kill('SIGKILL'), delay);
  }, 1);
  return new Promise((resolve) => {
    child.on('exit', (_code, signal) => {
      clearInterval(watch);
      resolve({ killed: signal === 'SIGKILL' });
    });
  });
}

/** The starter world, and a way to set one move's power: each value changes its files and its kind's NDJSON file. */
async function worldWithPower() {
  const w = await fixtureWorld();
  const move = path.join(w.data, 'move/quick-strike.yaml');
  const setPower = (power: number) => fs.writeFileSync(move, fs.readFileSync(move, 'utf8').replace(/^power: \d+$/m, `power: ${power}`));
  return { w, setPower };
}

/** Whether `out` holds what a clean build of `data` writes, for the first address. */
async function asClean(data: string, out: string): Promise<boolean> {
  const clean = path.join(await tempDir(), 'dist');
  await buildWorld({ dataDir: data, outDir: clean, baseUrl: BASES.a });
  return equal(await snapshot(out), await snapshot(clean));
}

function equal(x: Map<string, string>, y: Map<string, string>): boolean {
  if (x.size !== y.size) return false;
  for (const [k, v] of x) if (y.get(k) !== v) return false;
  return true;
}

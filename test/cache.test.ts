// The build's one cache (build/cache.mjs) and the records it keeps checked (pipeline/checked.ts): an
// entry appears whole or not at all and is read only as it was kept, an area keeps a bounded number
// of its own entries, and a build with no live tree takes the records it checked before from the
// cache, giving the same output and the same problems as a build that checks every file, wherever
// CRS_CACHE_DIR puts the cache.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { Cache, MARK } from '../build/cache.mjs';
import { CheckedRecords } from '../build/pipeline/checked.ts';
import type { ValidatorSet } from '../build/schemas/validators.ts';
import type { SourceFile } from '../build/store.ts';
import { projectRoot } from '../build/paths.ts';
import { buildWorld, fixtureWorld, overlayBad, snapshot, tempDir, withCacheDir } from './helpers.ts';

const run = promisify(execFile);

describe('the cache', () => {
  it('makes an entry whole or not at all, and keeps an entry made meanwhile unless told to replace it', async () => {
    const cache = new Cache(path.join(await tempDir(), 'area'));
    expect(() =>
      cache.make('aaaaaaaa', (dir) => {
        fs.writeFileSync(path.join(dir, 'half'), 'x');
        throw new Error('killed while filling');
      }),
    ).toThrow('killed while filling');
    expect(cache.find('aaaaaaaa')).toBeUndefined();
    expect(fs.readdirSync(cache.dir)).toEqual([]);
    cache.write('aaaaaaaa', [['file', 'first']]);
    cache.write('aaaaaaaa', [['file', 'second']]);
    expect(cache.read('aaaaaaaa', 'file')?.toString()).toBe('first');
    cache.write('aaaaaaaa', [['file', 'third']], true);
    expect(cache.read('aaaaaaaa', 'file')?.toString()).toBe('third');
    expect(fs.readdirSync(cache.dir)).toEqual(['aaaaaaaa']);
  });

  it('keeps the entries used last, as many as it is told', async () => {
    const cache = new Cache(path.join(await tempDir(), 'area'), 2);
    const keys = ['key-0001', 'key-0002', 'key-0003'];
    const touch = (key: string, at: number) => fs.utimesSync(path.join(cache.dir, key), at, at);
    cache.write(keys[0]!, [['f', '0']]);
    touch(keys[0]!, 1000);
    cache.write(keys[1]!, [['f', '1']]);
    touch(keys[1]!, 2000);
    expect(cache.find(keys[0]!)).toBeDefined(); // used now: the newest
    cache.write(keys[2]!, [['f', '2']]);
    expect(fs.readdirSync(cache.dir).sort()).toEqual([keys[0], keys[2]]);
  });

  it('lets threads of one process make the same entry at once: each gets it whole, none fails', async () => {
    // The checking threads of a first build each compile the validators and keep them under one key.
    const dir = path.join(await tempDir(), 'area');
    const cacheUrl = new URL('../build/cache.mjs', import.meta.url).href;
    const code = `
      import { workerData, parentPort } from 'node:worker_threads';
      const { Cache } = await import(workerData.cacheUrl);
      const cache = new Cache(workerData.dir, 100);
      const bytes = Buffer.alloc(1 << 20, 7);
      const files = Array.from({ length: 16 }, (_, i) => ['f' + i, bytes]);
      parentPort.postMessage('ready');
      Atomics.wait(new Int32Array(workerData.start), 0, 0); // every thread starts together
      for (const key of workerData.keys) cache.write(key, files);
      parentPort.postMessage('done');
    `;
    const start = new SharedArrayBuffer(4);
    const keys = Array.from({ length: 24 }, (_, i) => `key${i}`.padEnd(8, '0'));
    const threads = Array.from(
      { length: 3 },
      () => new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`), { workerData: { cacheUrl, dir, keys, start } }),
    );
    const said = (word: string) =>
      threads.map((t) => new Promise((resolve, reject) => t.on('message', (m) => m === word && resolve(m)).once('error', reject)));
    const ended = said('done');
    await Promise.all(said('ready'));
    Atomics.store(new Int32Array(start), 0, 1);
    Atomics.notify(new Int32Array(start), 0);
    await Promise.all(ended);
    const cache = new Cache(dir, 100);
    for (const key of keys) for (let i = 0; i < 16; i++) expect(cache.read(key, `f${i}`)?.length, `${key}/f${i}`).toBe(1 << 20);
    expect(fs.readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('reads a file only as it was kept, and never replaces or prunes a folder it did not make', async () => {
    const cache = new Cache(path.join(await tempDir(), 'area'), 1);
    cache.write('aaaaaaaa', [['file', 'kept']]);
    const file = path.join(cache.dir, 'aaaaaaaa', 'file');
    fs.writeFileSync(file, 'edited');
    expect(cache.read('aaaaaaaa', 'file')).toBeUndefined();
    expect(cache.find('aaaaaaaa')).toBeUndefined();
    fs.writeFileSync(file, 'kept');
    expect(cache.read('aaaaaaaa', 'file')?.toString()).toBe('kept');
    fs.writeFileSync(path.join(cache.dir, 'aaaaaaaa', 'added'), '');
    expect(cache.find('aaaaaaaa')).toBeUndefined(); // a file it does not list
    cache.write('aaaaaaaa', [['file', 'again']]); // a damaged entry of its own is made again
    expect(cache.read('aaaaaaaa', 'file')?.toString()).toBe('again');
    // A folder in an entry's place without the list of an entry is not the cache's.
    fs.mkdirSync(path.join(cache.dir, 'bbbbbbbb'));
    fs.writeFileSync(path.join(cache.dir, 'bbbbbbbb', 'file'), 'mine');
    fs.utimesSync(path.join(cache.dir, 'bbbbbbbb'), 1000, 1000);
    expect(cache.write('bbbbbbbb', [['file', 'theirs']], true)).toBeUndefined();
    cache.write('cccccccc', [['file', 'c']]); // keeps one entry: prunes its own, and only its own
    expect(fs.readdirSync(cache.dir).sort()).toEqual(['bbbbbbbb', 'cccccccc']);
    expect(fs.readFileSync(path.join(cache.dir, 'bbbbbbbb', 'file'), 'utf8')).toBe('mine');
  });

  it('refuses a key that is not a hash, so a key never names a path', async () => {
    const cache = new Cache(path.join(await tempDir(), 'area'));
    expect(() => cache.find('../../etc')).toThrow('not a cache key');
  });
});

/** `npm run build -- --plain --report json` with the cache in `cacheDir`: its JSON report, or the problems'. */
async function buildWith(cacheDir: string, data: string, out: string) {
  const env = { ...process.env, CRS_CACHE_DIR: cacheDir, BASE_URL: 'http://localhost:3000' };
  const args = ['run', 'build', '--silent', '--', '--data', data, '--out', out, '--plain', '--report', 'json'];
  const { stdout } = await run('npm', args, { cwd: projectRoot, env }).catch((err: { stdout: string; code: number }) => {
    if (err.code !== 1) throw err;
    return err;
  });
  return JSON.parse(stdout) as { ok: boolean; parsed?: number; cached?: number; problems: unknown[] };
}

describe('records checked before', () => {
  it('are taken from the cache by a build with no live tree, with the same output, in the folder CRS_CACHE_DIR names', async () => {
    const world = await fixtureWorld('starter');
    const cacheDir = path.join(world.root, 'ci-cache');
    const first = await buildWith(cacheDir, world.data, path.join(world.root, 'one'));
    const files = fs.readdirSync(world.data, { recursive: true }).filter((f) => /\.ya?ml$/.test(String(f))).length;
    expect(first).toMatchObject({ ok: true, parsed: files, cached: 0 });
    // Only the checked records: code and pages stay in the project's own cache.
    expect(fs.readdirSync(cacheDir).sort()).toEqual([MARK, 'records']);

    const second = await buildWith(cacheDir, world.data, path.join(world.root, 'two'));
    expect(second).toMatchObject({ ok: true, parsed: 0, cached: files });
    expect(await snapshot(path.join(world.root, 'two'))).toEqual(await snapshot(path.join(world.root, 'one')));

    // One file changed: it alone is checked, and the output is a full check's.
    const fire = path.join(world.data, 'type', 'fire.yaml');
    fs.writeFileSync(fire, fs.readFileSync(fire, 'utf8').replace(/^id: (\d+)$/m, 'id: 777'));
    const third = await buildWith(cacheDir, world.data, path.join(world.root, 'three'));
    expect(third).toMatchObject({ ok: true, parsed: 1, cached: files - 1 });
    const cold = await buildWith(path.join(world.root, 'cold-cache'), world.data, path.join(world.root, 'cold'));
    expect(cold).toMatchObject({ ok: true, parsed: files, cached: 0 });
    expect(await snapshot(path.join(world.root, 'three'))).toEqual(await snapshot(path.join(world.root, 'cold')));
  });

  it('give the same problems, placed at the same lines, as records checked anew', async () => {
    const world = await fixtureWorld('starter');
    const cacheDir = path.join(world.root, 'cache');
    await buildWith(cacheDir, world.data, path.join(world.root, 'good'));
    // A reference to a record that does not exist, in a file the cache holds no record of; the record
    // it names is then removed, so that files the cache holds refer to it too.
    overlayBad(world, 'missing-reference');
    const warm = await buildWith(cacheDir, world.data, path.join(world.root, 'warm'));
    const cold = await buildWith(path.join(world.root, 'cold-cache'), world.data, path.join(world.root, 'cold'));
    expect(warm.ok).toBe(false);
    expect(warm.problems.length).toBeGreaterThan(0);
    expect(warm.problems).toEqual(cold.problems);
    fs.rmSync(path.join(world.data, 'type', 'water.yaml'));
    const warmer = await buildWith(cacheDir, world.data, path.join(world.root, 'warmer'));
    const colder = await buildWith(path.join(world.root, 'colder-cache'), world.data, path.join(world.root, 'colder'));
    expect(warmer.problems.length).toBeGreaterThan(warm.problems.length);
    expect(warmer.problems).toEqual(colder.problems);
  });

  it('are taken on the checking threads, with the output of a build that checks every file on this thread, and kept as they were', async () => {
    const world = await fixtureWorld('starter');
    await withCacheDir(path.join(world.root, 'cache'), async () => {
      const out = (name: string) => path.join(world.root, name);
      const cold = await buildWorld({ dataDir: world.data, outDir: out('cold'), plain: true }, { checkOnThreads: true });
      // Each kind's entry, by the inode it was written to: an entry rewritten is a new folder.
      const records = path.join(world.root, 'cache', 'records');
      const entries = () => new Map(fs.readdirSync(records).map((name) => [name, fs.statSync(path.join(records, name)).ino]));
      const written = entries();
      const warm = await buildWorld({ dataDir: world.data, outDir: out('warm'), plain: true }, { checkOnThreads: true });
      expect(cold.cached).toBe(0);
      expect(warm).toMatchObject({ parsed: 0, cached: cold.parsed });
      // Every record was taken on a thread, so the build's thread had nothing new to keep.
      expect(entries()).toEqual(written);
      const again = await buildWorld({ dataDir: world.data, outDir: out('again'), plain: true }, { checkOnThreads: true });
      expect(again).toMatchObject({ parsed: 0, cached: cold.parsed });
      process.env.CRS_CACHE_DIR = path.join(world.root, 'empty-cache');
      const inline = await buildWorld({ dataDir: world.data, outDir: out('inline'), plain: true }, { checkOnThreads: false });
      expect(inline.cached).toBe(0);
      expect(await snapshot(out('warm'))).toEqual(await snapshot(out('inline')));
    });
  });

  it('are kept a piece at a time and read back whole, however large a kind', async () => {
    const dir = path.join(await tempDir(), 'records');
    const file = (i: number) =>
      ({ rel: `data/location-area/area-${i}.yaml`, stem: `area-${i}`, hash: `h${i}`, kind: 'location-area' }) as SourceFile;
    // Three records of 600,000 characters, some of them beyond one byte in UTF-8: more than one piece.
    const json = (i: number) => JSON.stringify({ id: i + 1, name: `area-${i}`, note: `${'é'.repeat(1000)}${'x'.repeat(600_000)}` });
    // A schema that lets every record of the kind pass.
    const anything: ValidatorSet = { get: () => (() => true) as unknown as ValidateFunction, keys: () => ['location-area'] };
    const kept = new CheckedRecords('tool', 1, dir);
    for (let i = 0; i < 3; i++) kept.keep(file(i), json(i));
    kept.save();
    const found = new CheckedRecords('tool', 1, dir);
    for (let i = 0; i < 3; i++) expect(found.take(file(i), anything)?.json === json(i), `record ${i}`).toBe(true);
    expect(found.take(file(3), anything)).toBeUndefined();
    expect(new CheckedRecords('other tool', 1, dir).take(file(0), anything)).toBeUndefined();
    // A kind that cannot be kept is a miss for the next build, not a failure of this one.
    const blocked = path.join(await tempDir(), 'a-file');
    fs.writeFileSync(blocked, '');
    const unkept = new CheckedRecords('tool', 1, path.join(blocked, 'records'));
    unkept.keep(file(0), json(0));
    expect(() => unkept.save()).not.toThrow();
  });

  it('keep every kind a build saves, and as many tools of each as they are told, pruned once after the kinds', async () => {
    const dir = path.join(await tempDir(), 'records');
    const kinds = ['type', 'stat', 'gender'];
    const anything: ValidatorSet = { get: () => (() => true) as unknown as ValidateFunction, keys: () => kinds };
    const file = (kind: string) => ({ rel: `data/${kind}/one.yaml`, stem: 'one', hash: 'h1', kind }) as SourceFile;
    const json = JSON.stringify({ id: 1, name: 'one' });
    // Each tool's build keeps a record of every kind; the area keeps four tools' worth of them.
    const tools = ['t1', 't2', 't3', 't4', 't5', 't6'];
    const seen = new Set<string>();
    tools.forEach((tool, i) => {
      const kept = new CheckedRecords(tool, kinds.length, dir);
      for (const kind of kinds) kept.keep(file(kind), json);
      kept.save();
      // Each tool's entries are used after the tool's before it (times a second apart).
      for (const name of fs.readdirSync(dir).filter((name) => !seen.has(name))) {
        fs.utimesSync(path.join(dir, name), 1000 + i, 1000 + i);
        seen.add(name);
      }
    });
    expect(fs.readdirSync(dir)).toHaveLength(4 * kinds.length);
    const has = (tool: string) =>
      kinds.every((kind) => new CheckedRecords(tool, kinds.length, dir).take(file(kind), anything)?.json === json);
    expect(tools.map(has)).toEqual([false, false, true, true, true, true]);
  });

  it('cost only time when the cache cannot be written', async () => {
    const world = await fixtureWorld('starter');
    const cacheDir = path.join(world.root, 'cache');
    await buildWith(cacheDir, world.data, path.join(world.root, 'first'));
    // Every area of a cache of its own is a file: nothing can be kept, or found.
    for (const area of fs.readdirSync(cacheDir).filter((name) => name !== MARK)) {
      fs.rmSync(path.join(cacheDir, area), { recursive: true });
      fs.writeFileSync(path.join(cacheDir, area), 'not a folder');
    }
    const out = path.join(world.root, 'out');
    const result = await buildWith(cacheDir, world.data, out);
    expect(result).toMatchObject({ ok: true, cached: 0 });
    expect(await snapshot(out)).toEqual(await snapshot(path.join(world.root, 'first')));
  });

  it('are kept nowhere when CRS_CACHE_DIR names a folder that cannot be made: refused in one line, exit code 2', async () => {
    const world = await fixtureWorld('starter');
    const blocked = path.join(world.root, 'a-file');
    fs.writeFileSync(blocked, 'not a folder');
    const env = { ...process.env, CRS_CACHE_DIR: path.join(blocked, 'cache'), BASE_URL: 'http://localhost:3000' };
    const args = [path.join(projectRoot, 'build/launch.mjs'), 'build', '--data', world.data, '--out', path.join(world.root, 'out')];
    const failed = await run(process.execPath, args, { cwd: projectRoot, env }).then(
      () => undefined,
      (err: { code: number; stderr: string }) => err,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr.trimEnd()).toBe(
      `CRS_CACHE_DIR ${path.join(blocked, 'cache')}: ${blocked} is a file, so nothing can be made under it`,
    );
    expect(fs.existsSync(path.join(world.root, 'out'))).toBe(false);
  });
});

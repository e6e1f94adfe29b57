// Shared test helpers: fixture worlds copied into temp folders, builds into them, a real server.
import { execFile } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, type Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect } from 'vitest';
import { readManifest } from '../build/incremental/manifest.ts';
import { joinedHash } from '../build/output/plan.ts';
import { hashBody, layout } from '../build/output/trees.ts';
import { build, type BuildOptions, type Tuning } from '../build/pipeline/build.ts';
import { BuildFailed, type Problem } from '../build/report/problems.ts';
import { listen, requestHandler } from '../build/site/serve.ts';

export const fixturesDir = path.join(import.meta.dirname, 'fixtures');

const made: string[] = [];
/** A fresh temp folder, removed once the test file's tests are done. */
export async function tempDir(prefix = 'crs-'): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(made.splice(0).map((dir) => fs.rm(dir, { recursive: true, force: true, maxRetries: 3 }).catch(() => {})));
});

/** Copies fixtures/<name> to <tmp>/data and returns the temp root. */
export async function fixtureWorld(name = 'starter'): Promise<{ root: string; data: string; out: string }> {
  const root = await tempDir();
  const data = path.join(root, 'data');
  // Copied synchronously: fs.promises.cp takes several times the processor time for the same files.
  cpSync(path.join(fixturesDir, name), data, { recursive: true });
  return { root, data, out: path.join(root, 'dist') };
}

/** Lays a mistake from fixtures/bad/<name> over a fixture world's data. */
export function overlayBad(world: { data: string }, name: string): void {
  cpSync(path.join(fixturesDir, 'bad', name, 'data'), world.data, { recursive: true });
}

export const BASE = 'http://localhost:3000';

/**
 * `npm run <name> -- args` as its own process, through the launcher from the project's folder, with
 * BASE as its address and CI set (no progress bar): its exit code and output, never throwing.
 */
export async function launched(name: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['build/launch.mjs', name, ...args], {
      cwd: path.resolve(import.meta.dirname, '..'),
      env: { ...process.env, BASE_URL: BASE, CI: '1' },
      maxBuffer: 64 << 20,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Builds with the test base url unless the options give one. */
export function buildWorld(options: BuildOptions, tuning?: Tuning) {
  return build({ baseUrl: BASE, ...options }, tuning);
}

/**
 * Runs `run` with CRS_CACHE_DIR set to `dir` for the builds it makes in this process (it may set it
 * again), and puts back what it was afterwards.
 */
export async function withCacheDir<T>(dir: string, run: () => Promise<T>): Promise<T> {
  const before = process.env.CRS_CACHE_DIR;
  process.env.CRS_CACHE_DIR = dir;
  try {
    return await run();
  } finally {
    if (before === undefined) delete process.env.CRS_CACHE_DIR;
    else process.env.CRS_CACHE_DIR = before;
  }
}

/** Builds and returns the problems it reported (empty when it succeeded). */
export async function buildProblems(options: BuildOptions, tuning?: Tuning): Promise<Problem[]> {
  try {
    await buildWorld(options, tuning);
    return [];
  } catch (err) {
    if (err instanceof BuildFailed) return err.problems;
    throw err;
  }
}

// The trees are listed and read with the synchronous API: fs.promises takes many times the
// processor time for the same hundreds of small files, and the suite is bound by the processor.

/** Every file under `dir`, relative, with '/', sorted. */
export async function listFiles(dir: string): Promise<string[]> {
  return filesOf(dir, readdirSync(dir, { recursive: true, withFileTypes: true }));
}

const filesOf = (dir: string, entries: Dirent[]) =>
  entries
    .filter((e) => e.isFile())
    .map((e) => relOf(dir, e))
    .sort();
const relOf = (dir: string, e: Dirent) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/');

/**
 * Every file under `dir` with its bytes, for comparing two trees; a folder that holds nothing is
 * an entry too (`<folder>/`), as a stray one is served and listed like any other.
 */
export async function snapshot(dir: string): Promise<Map<string, string>> {
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  const out = new Map<string, string>();
  for (const rel of filesOf(dir, entries)) out.set(rel, readFileSync(path.join(dir, rel), 'utf8'));
  // A folder that holds nothing is no entry's parent.
  const parents = new Set(entries.map((e) => path.resolve(e.parentPath)));
  for (const e of entries) if (e.isDirectory() && !parents.has(path.resolve(e.parentPath, e.name))) out.set(`${relOf(dir, e)}/`, '');
  return out;
}

/**
 * For a test file: the starter world built into a temp folder and served by the real server on a
 * free loopback port, before its tests, stopped after them. Read the fields inside tests.
 */
export function servedStarterWorld() {
  const world = { out: '', url: '' };
  let close = async () => {};
  beforeAll(async () => {
    const w = await fixtureWorld();
    await buildWorld({ dataDir: w.data, outDir: w.out });
    const server = await serve(w.out);
    Object.assign(world, { out: w.out, url: server.url });
    close = server.close;
  });
  afterAll(() => close());
  return world;
}

/** The real server over `dir` on a free loopback port. */
export async function serve(dir: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(requestHandler(dir));
  const url = await listen(server, 0, '127.0.0.1');
  return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export async function writeFile(file: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text);
}

/**
 * Polls `check` every 20 ms until it returns true; resolves with the ms it took. `said` adds to the
 * error what the process under test printed.
 */
export async function until(check: () => Promise<boolean>, timeoutMs = 10_000, said?: () => string): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    if (await check()) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`not within ${timeoutMs} ms${said ? `; the process said:\n${said()}` : ''}`);
}

/** What the server answered, its body read whole. */
export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A request to `base` with the path sent exactly as written (fetch would normalise `..` away). */
export function rawRequest(base: string, pathname: string, method = 'GET', headers: Record<string, string> = {}): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, path: pathname, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Every tree beside `out` that has a manifest holds exactly the files it lists, with those bytes: a
 * kind's NDJSON file, which the manifest knows by its parts (plan.ts, `joinedHash`), holds them joined.
 */
export async function treesMatchManifests(out: string) {
  const where = layout(out);
  let checked = 0;
  for (const slot of ['a', 'b'] as const) {
    const manifest = await readManifest(where.manifest(slot));
    if (!manifest) continue;
    const files = manifest.files()!;
    const tree = where.tree(slot);
    expect((await listFiles(tree)).sort(), slot).toEqual([...files.keys()].sort());
    for (const [rel, hash] of files) {
      const bytes = readFileSync(path.join(tree, rel));
      if (rel.endsWith('.ndjson')) {
        const parts = ndjsonParts(tree, rel);
        expect(
          joinedHash(
            parts.map((part) => files.get(part)!),
            false,
          ),
          `${slot}/${rel}`,
        ).toBe(hash);
        expect(bytes.toString(), `${slot}/${rel}`).toBe(parts.map((part) => `${readFileSync(path.join(tree, part), 'utf8')}\n`).join(''));
      } else expect(hashBody(bytes), `${slot}/${rel}`).toBe(hash);
    }
    checked++;
  }
  return checked;
}

/** The record files a kind's NDJSON file is made of, in the order of the kind's list. */
function ndjsonParts(tree: string, rel: string): string[] {
  const kind = rel.split('/')[2]!;
  const list = JSON.parse(readFileSync(path.join(tree, `api/v2/${kind}/index.json`), 'utf8'));
  return list.results.map((ref: { url: string }) => `api/v2/${kind}/${ref.url.split('/').at(-2)}/index.json`);
}

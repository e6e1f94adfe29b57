// `npm run bench [-- --scales 1,10 | --data DIR] [--runs 3 --against REV --settle S]`: times what users feel. Each
// measurement is a whole process started as a user starts it (`npm run build --silent -- ...` in a
// checkout, `node build/tools/floor.mjs ...`, npm starting node to do nothing), timed by this process from spawn to
// exit, with its peak memory taken by `/usr/bin/time -f %M`. The build's own stage times, from its
// `--report json`, come beside as a second reading.
//
// On worlds from gen-world.ts, per scale, or on a copy of a data folder (--data, PokeAPI's data as
// imported, say): a full build into an empty output, a rebuild after one edit, a rebuild with
// nothing changed, and the runtime's own start. Without --against, the full
// build is timed against the write floor (floor.mjs: the same folders, bytes and hard links, and
// nothing else), and a pull request's `--check` with the cache a CI run restores against one with
// an empty cache; with --against REV, every scenario is timed against that revision's build, run
// from a git worktree of it, on the world that revision's own generator writes from the same seed
// (or on the same copy of the data folder).
// The two sides of a comparison take turns, each going first in every
// other run, and the medians are compared.
// `--dev [--runs 20] [--against REV]` times only the dev loop: `npm run dev` on a copy of data/, each
// save timed to the first answer of the record's url that holds it (runDevBench); with --against,
// beside that revision's dev loop, in turns.
// Prints a markdown table, and for a data folder how it stands against the targets (TARGETS), and
// writes every figure as JSON to bench-results/bench.json.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseYaml, parseDocument } from 'yaml';
import { folderToRead, UsageError } from '../guard.mjs';
import { commandOptions, onStop, readOptions, stopping, stopWith, untilStopped } from './command.ts';
import { generateWorld, MAX_SCALE, writeWorld } from './gen-world.ts';
import { addWorktree, NoSuchRevision, type Worktree } from './worktree.ts';

// Found from this file rather than from the build's modules, which the bench times and must not lean on.
const projectRoot = path.resolve(import.meta.dirname, '..', '..');
const floorScript = path.join(projectRoot, 'build', 'tools', 'floor.mjs');

/** A wrong command line or a machine that cannot run the bench: told plainly, exit code 2. */
export class BenchError extends Error {}

/** A world the build finds problems in (a data folder given with --data, say): told by its first problem, exit code 1. */
export class WorldProblems extends Error {}

export const median = (xs: readonly number[]): number => {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Room on a file system: bytes, and files (inodes). */
export interface Room {
  bytes: number;
  files: number;
}

export function freeRoom(dir: string): Room {
  const { bavail, bsize, ffree } = fs.statfsSync(dir);
  return { bytes: bavail * bsize, files: ffree };
}

/** A generated world's scale, or the path of a data folder. */
export type World = number | string;

/** A world as the bench's lines name it. */
const worldName = (world: World) => (typeof world === 'number' ? `scale ${world}` : world);

/** Why `trees` more trees, each taking what one took (`tree`), will not fit in `free`; undefined if they will. */
export function roomProblem(world: World, tree: Room, trees: number, free: Room): string | undefined {
  // A tenth to spare: the floor's plan and the builds' own bookkeeping come on top.
  const bytes = Math.max(0, tree.bytes) * trees * 1.1;
  const files = Math.max(0, tree.files) * trees * 1.1;
  if (free.bytes >= bytes && free.files >= files) return undefined;
  const gib = (n: number) => `${(n / 2 ** 30).toFixed(1)} GiB`;
  const count = (n: number) => Math.round(n).toLocaleString('en-US');
  const smaller = typeof world === 'number' ? ', or pass smaller --scales' : '';
  return (
    `${worldName(world)} needs room for ${trees} more trees like its first build's: about ${gib(bytes)} and ${count(files)} files, ` +
    `where ${gib(free.bytes)} and ${count(free.files)} files are free; free some room${smaller}`
  );
}

/** One whole process: wall time from spawn to exit, peak resident memory of its largest process. */
export interface Measured {
  ms: number;
  rssMb: number;
  code: number;
  stdout: string;
  stderr: string;
}

let measurements = 0;

/**
 * Runs `command` under `/usr/bin/time -f %M` and times it from spawn to exit. GNU time reports the
 * largest resident set among the processes it waited for, so a command that starts others (npm
 * starts a shell, which starts tsx, which starts node) is measured at its largest. The disk is
 * synced first, so that what earlier runs left to write out does not weigh on this one.
 */
export async function measureProcess(command: string[], cwd = projectRoot, env = process.env): Promise<Measured> {
  execFileSync('sync');
  const rssFile = path.join(os.tmpdir(), `crs-bench-rss-${process.pid}-${++measurements}`);
  const removeRss = () => fs.rmSync(rssFile, { force: true });
  const forget = onStop(removeRss);
  try {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const started = performance.now();
    // A process group of its own, which a stop of the bench ends whole (time, npm, the shell, node).
    const child = spawn('/usr/bin/time', ['-f', '%M', '-o', rssFile, ...command], {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stopWith(child);
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    let ms = 0;
    child.once('exit', () => (ms = performance.now() - started));
    const code = await new Promise<number>((resolve, reject) => {
      child.once('error', (e) => reject(new BenchError(`cannot start /usr/bin/time (GNU time is needed for peak memory): ${e.message}`)));
      child.once('close', (status) => resolve(status ?? 128));
    });
    // A command that failed has a line about its exit status before the figure.
    const kb = Number(fs.readFileSync(rssFile, 'utf8').trim().split('\n').at(-1));
    return { ms, rssMb: kb / 1024, code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
  } finally {
    forget();
    removeRss();
  }
}

/** What one measured run did: its times and memory, and for a build, what its report said. */
export interface Sample {
  ms: number;
  /** For a whole process; a dev loop's save has none of its own. */
  rssMb?: number;
  /** The build's in-process time, and per stage (its --report json). */
  buildMs?: number;
  stages?: Record<string, number>;
  files?: number;
  written?: number;
  linked?: number;
  unchanged?: number;
  bytes?: number;
  records?: number;
  /** Records read from their files, and taken from the build's cache as checked before. */
  parsed?: number;
  cached?: number;
}

/** The build's JSON report: the line that opens the object, to the end of its output. */
function parseReport(m: Measured, where: string): Sample {
  const at = m.stdout.startsWith('{') ? 0 : m.stdout.indexOf('\n{') + 1;
  let report: Record<string, any> | undefined;
  try {
    report = JSON.parse(m.stdout.slice(at));
  } catch {} // told below, with what the build printed
  if (m.code === 1 && Array.isArray(report?.problems) && report.problems.length) {
    const [first] = report.problems;
    // Named as in the author's folder: the build read the bench's copy of it, a folder named world.
    const file = String(first.file ?? '').replace(/^world\//, '');
    const place = [file, first.line, first.column].filter((part) => part !== undefined && part !== '').join(':');
    const count = report.problems.length === 1 ? '1 problem' : `${report.problems.length} problems`;
    throw new WorldProblems(
      `the world does not build: ${place}: ${first.message} (${count}; \`npm run build -- --data DIR --check\` lists them)`,
    );
  }
  if (m.code !== 0 || !report?.ok) {
    const problems = report?.problems ? JSON.stringify(report.problems).slice(0, 2000) : m.stdout.slice(-2000);
    throw new Error(`the build in ${where} exited with ${m.code}: ${problems}\n${m.stderr.slice(-2000)}`);
  }
  const records = Object.values(report.records as Record<string, number>).reduce((a, b) => a + b, 0);
  const { ms: buildMs, stages, files, written, linked, unchanged, bytes, parsed, cached } = report;
  return { ms: m.ms, rssMb: m.rssMb, buildMs, stages, files, written, linked, unchanged, bytes, records, parsed, cached };
}

/** A build as users run it, in `checkout`, of `data` into `out`. */
export async function timeBuild(checkout: string, data: string, out: string): Promise<Sample> {
  const command = ['npm', 'run', 'build', '--silent', '--', '--data', data, '--out', out, '--report', 'json'];
  // The address the API is served from is the build's default whatever the caller's BASE_URL is
  // (test runners set one of their own): both sides of a comparison write the same bytes.
  const env = { ...process.env, BASE_URL: 'http://localhost:3000' };
  return parseReport(await measureProcess(command, checkout, env), checkout);
}

/** `--check` of `data`, as a pull request's CI runs it, with the build's cache in `cache` (CRS_CACHE_DIR). */
async function timeCheck(data: string, cache: string): Promise<Sample> {
  const command = ['npm', 'run', 'build', '--silent', '--', '--data', data, '--check', '--report', 'json'];
  const env = { ...process.env, BASE_URL: 'http://localhost:3000', CRS_CACHE_DIR: cache };
  return parseReport(await measureProcess(command, projectRoot, env), projectRoot);
}

/**
 * A pull request's check, in turns: on a fresh runner with an empty cache, and with the cache the
 * last run left restored (a copy, made uncounted) and one source edited since.
 */
async function ciRuns(stage: Stage, runs: number): Promise<[Sample[], Sample[]]> {
  const filled = path.join(stage.dir, 'ci-cache');
  await timeCheck(stage.data, filled);
  const edit = new Edit(stage.data, pickEdit(stage.data));
  edit.apply();
  const samples: [Sample[], Sample[]] = [[], []];
  try {
    for (let i = 0; i < runs; i++) {
      const cold = path.join(stage.dir, `ci-cold-${i}`);
      const warm = path.join(stage.dir, `ci-warm-${i}`);
      fs.cpSync(filled, warm, { recursive: true });
      for (const side of turnOrder(i, 2) as Array<0 | 1>) samples[side].push(await timeCheck(stage.data, side === 0 ? cold : warm));
    }
  } finally {
    edit.restore();
  }
  return samples;
}

/** The write floor, from a plan writeFloorPlan made, into `out`; on one thread per core unless `threads` says. */
export async function timeFloor(plan: string, out: string, threads?: number): Promise<Sample> {
  const m = await measureProcess(['node', floorScript, plan, out, ...(threads ? [String(threads)] : [])]);
  if (m.code !== 0) throw new Error(`the floor exited with ${m.code}: ${m.stderr.slice(-2000)}`);
  const { files, links } = JSON.parse(m.stdout) as { files: number; links: number };
  return { ms: m.ms, rssMb: m.rssMb, files: files + links, written: files, linked: links };
}

/**
 * The runtime's own start, as the build is started: npm running a script that starts node and does
 * nothing (a package of its own, in a temporary folder). Every command pays it before doing anything.
 */
export async function timeRuntimeStart(): Promise<Sample> {
  return runtimeScript('noop');
}

/**
 * The listing floor: npm starting node to list every entry of a data folder and its kind folders
 * and `stat` each, as a rebuild must to know whether any source changed, and nothing else (no
 * glob library, no manifest, no hashing).
 */
export async function timeListing(data: string): Promise<Sample> {
  return runtimeScript('list', [data]);
}

/** One line: npm hands it to node through a shell. */
const LIST_SCRIPT =
  "const fs = require('fs'), p = require('path'), d = process.argv[1]; " +
  'for (const k of fs.readdirSync(d, { withFileTypes: true })) ' +
  'if (k.isDirectory()) for (const f of fs.readdirSync(p.join(d, k.name))) fs.statSync(p.join(d, k.name, f));';

/** A script of a project of its own, made for the run, run by npm as a build is: the runtime's start, or the listing floor. */
async function runtimeScript(name: 'noop' | 'list', args: string[] = []): Promise<Sample> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crs-bench-runtime-'));
  const forget = onStop(() => fs.rmSync(dir, { recursive: true, force: true }));
  try {
    const scripts = { noop: 'node -e ""', list: `node -e ${JSON.stringify(LIST_SCRIPT)}` };
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ private: true, scripts }));
    const m = await measureProcess(['npm', 'run', '--silent', name, '--', ...args], dir);
    if (m.code !== 0) throw new Error(`npm run ${name} exited with ${m.code}: ${m.stderr}`);
    return { ms: m.ms, rssMb: m.rssMb };
  } finally {
    forget();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The link floor: `cp -al` of the tree `out` leads to, into `dest`, as a first edit links every file of the live tree into a second. */
async function timeLinking(out: string, dest: string): Promise<Sample> {
  const m = await measureProcess(['cp', '-al', fs.realpathSync(out), dest]);
  if (m.code !== 0) throw new Error(`cp -al exited with ${m.code}: ${m.stderr}`);
  return { ms: m.ms, rssMb: m.rssMb };
}

/** What a floor plan holds (floor.mjs describes it). */
export interface FloorPlan {
  /** Folders ([path]) and files ([path, offset, length]), each folder before what it holds. */
  entries: ([string] | [string, number, number])[];
  /** Paths made as hard links of a written file: [path, written path]. */
  links: [string, string][];
  bytes: string;
}

/** Every folder and file under `root`, relative, depth first in name order: each folder before what it holds. */
function walk(root: string, rel = '', found: { path: string; dir: boolean }[] = []) {
  const entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      found.push({ path: child, dir: true });
      walk(root, child, found);
    } else if (entry.isFile()) found.push({ path: child, dir: false });
    else throw new BenchError(`${path.join(root, child)} is neither a file nor a folder; the floor makes only those`);
  }
  return found;
}

/**
 * The floor's plan for a built output: `out` may be the link to the tree the build made live, or a
 * plain folder. Files that share an inode in the tree were hard-linked by the build: the first in
 * the walk is written, the others linked to it. Writes `planFile` and its bytes beside it.
 */
export function writeFloorPlan(out: string, planFile: string): FloorPlan {
  const tree = fs.realpathSync(out);
  const bytesFile = `${planFile}.bytes`;
  const fd = fs.openSync(bytesFile, 'w');
  const plan: FloorPlan = { entries: [], links: [], bytes: path.basename(bytesFile) };
  const written = new Map<number, string>();
  let offset = 0;
  try {
    for (const entry of walk(tree)) {
      if (entry.dir) {
        plan.entries.push([entry.path]);
        continue;
      }
      const stat = fs.statSync(path.join(tree, entry.path));
      const first = stat.nlink > 1 ? written.get(stat.ino) : undefined;
      if (first !== undefined) {
        plan.links.push([entry.path, first]);
        continue;
      }
      const body = fs.readFileSync(path.join(tree, entry.path));
      fs.writeSync(fd, body);
      plan.entries.push([entry.path, offset, body.length]);
      offset += body.length;
      if (stat.nlink > 1) written.set(stat.ino, entry.path);
    }
  } finally {
    fs.closeSync(fd);
  }
  fs.writeFileSync(planFile, JSON.stringify(plan));
  return plan;
}

/**
 * Waiting out the disk after large removals: on ext4, files made soon after many were removed cost
 * several times what they cost otherwise, and more the more were removed, for longer than a run
 * takes. So nothing is removed while a scale is measured; a scale's outputs go when it is done, and
 * the next scale waits. The wait counts from the bench's start too, for removals made before it.
 */
class Settler {
  private removedAt = Date.now();
  removed(): void {
    this.removedAt = Date.now();
  }
  /** Until `seconds` have passed since the last removal. */
  async settled(seconds: number): Promise<void> {
    const wait = this.removedAt + seconds * 1000 - Date.now();
    if (seconds > 0 && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** A build to time: the checkout it runs in, and its name in the results. */
interface Contender {
  label: string;
  checkout: string;
  /** The world it builds: made by its own checkout's generator, in the source format its build reads. */
  data: string;
  /** The edit the edit runs make to that world. */
  edit?: Edit;
}

/** One world and its folders. */
interface Stage {
  world: World;
  dir: string;
  data: string;
  log: (line: string) => void;
  /** Each contender's kept output, rebuilt by the no-op and edit runs. */
  kept: Map<Contender, string>;
}

/**
 * The order the sides take in run `i`: as given in even runs, reversed in odd ones. The disk's speed
 * drifts within a scale (it settles for minutes after a large removal), and a side that always ran
 * second would always meet the slower disk.
 */
const turnOrder = (i: number, count: number) => {
  const order = Array.from({ length: count }, (_, k) => k);
  return i % 2 === 0 ? order : order.reverse();
};

/**
 * `runs` turns of the baseline and the measured side (base, new, new, base…), each into an output
 * of its own, kept until the scale is done: a removal would slow the runs after it.
 */
async function alternate(stage: Stage, runs: number, sides: [(out: string) => Promise<Sample>, (out: string) => Promise<Sample>]) {
  const samples: [Sample[], Sample[]] = [[], []];
  for (let i = 0; i < runs; i++) {
    for (const side of turnOrder(i, 2) as Array<0 | 1>) samples[side].push(await sides[side](path.join(stage.dir, `out-${side}-${i}`)));
    stage.log(
      `${worldName(stage.world)} full ${i + 1}/${runs}: ${(samples[0].at(-1)!.ms / 1000).toFixed(2)} s, ${(samples[1].at(-1)!.ms / 1000).toFixed(2)} s`,
    );
  }
  return samples;
}

/**
 * What the edit runs change: one record's whole-number field, as an author edits a value. It is
 * the first field of the first record, kinds and files in name order, that the record gives and
 * its kind's schema lets take a wide range of values, and that is no reference, no id and nothing
 * the build derives other records from: so every world that builds has one, the same world always
 * gets the same, and the new value is valid wherever the old one was (in a generated world, a
 * creature form's `order`).
 */
export interface EditTarget {
  /** The record's file, relative to the data folder. */
  file: string;
  field: string;
  /** The least and greatest values its schema allows. */
  min: number;
  max: number;
}

/** How many values a field must allow: each edit run gives it one it has not had. */
const EDIT_ROOM = 100_000;
/** The values the edits give start here, where the schema allows: far from what authors write. */
const EDIT_BASE = 100_000;

/** The edit for the world in `data`, from the kinds' schemas in `checkout`; a BenchError when it has none. */
export function pickEdit(data: string, checkout = projectRoot): EditTarget {
  const kinds = fs
    .readdirSync(data, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
  for (const kind of kinds) {
    const fields = editableFields(checkout, kind);
    if (fields.size === 0) continue;
    for (const name of recordFiles(path.join(data, kind))) {
      const record = readRecord(path.join(data, kind, name));
      const field = [...fields.keys()].find((f) => Number.isInteger(record?.[f]));
      if (field) return { file: `${kind}/${name}`, field, ...fields.get(field)! };
    }
  }
  throw new BenchError(`${data} holds no record with a whole-number field its schema lets an edit change; the edit runs need one`);
}

/** A kind's top-level fields an edit may give any of many whole numbers, with their bounds; none for a kind without a schema. */
function editableFields(checkout: string, kind: string): Map<string, { min: number; max: number }> {
  const file = path.join(checkout, 'schemas', `${kind}.json`);
  const fields = new Map<string, { min: number; max: number }>();
  if (kind === 'common' || !fs.existsSync(file)) return fields;
  const schema = JSON.parse(fs.readFileSync(file, 'utf8'));
  const common = JSON.parse(fs.readFileSync(path.join(checkout, 'schemas', 'common.json'), 'utf8'));
  for (const [field, declared] of Object.entries<Record<string, any>>(schema.properties ?? {})) {
    // A field derived by the build, or written only for its derivations, is no record's own value.
    if (field === 'id' || declared['x-ref'] || declared['x-source'] === 'omit' || declared['x-source'] === 'only') continue;
    const shared = /^common\.json#\/\$defs\/(.+)$/.exec(declared.$ref ?? '');
    const p = shared ? { ...common.$defs?.[shared[1]!], ...declared } : declared;
    const types = [p.type].flat();
    if (!types.includes('integer') || types.some((t) => t !== 'integer' && t !== 'null')) continue;
    if (p.enum || p.const !== undefined || p.multipleOf) continue;
    const min = p.exclusiveMinimum !== undefined ? p.exclusiveMinimum + 1 : (p.minimum ?? -Infinity);
    const max = p.exclusiveMaximum !== undefined ? p.exclusiveMaximum - 1 : (p.maximum ?? Infinity);
    if (max - min >= EDIT_ROOM) fields.set(field, { min, max });
  }
  return fields;
}

/** The record files of a kind's folder, in name order, as the build finds them. */
const recordFiles = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((name) => /^[^.].*\.(ya?ml|json)$/.test(name))
    .sort();

/** A source file's record, or undefined if it holds none the bench can read (the build says why). */
function readRecord(file: string): Record<string, unknown> | undefined {
  try {
    const text = fs.readFileSync(file, 'utf8');
    const value = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
    return value !== null && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** `text`, a record's source, with `field` set to `value`; YAML keeps its layout and comments. */
function withField(text: string, file: string, field: string, value: number): string {
  if (file.endsWith('.json')) return `${JSON.stringify({ ...JSON.parse(text), [field]: value }, null, 2)}\n`;
  const doc = parseDocument(text);
  doc.set(field, value);
  return doc.toString({ lineWidth: 0 });
}

/**
 * The edit, made to a world's copy. Each run gives the field a value it has not had, so the tree
 * being written differs from the new output by this edit alone, as after a user's edit; the source
 * is restored after each run, and the output rebuilt from it, so every run starts from the same
 * live tree.
 */
class Edit {
  private readonly file: string;
  private readonly original: string;
  private readonly was: unknown;
  private count = 0;
  constructor(
    data: string,
    readonly target: EditTarget,
  ) {
    this.file = path.join(data, target.file);
    this.original = fs.readFileSync(this.file, 'utf8');
    this.was = readRecord(this.file)?.[target.field];
  }
  apply(): void {
    const base = Math.max(this.target.min, Math.min(EDIT_BASE, this.target.max - EDIT_ROOM));
    let value = base + ++this.count;
    if (value === this.was) value = base + ++this.count;
    fs.writeFileSync(this.file, withField(this.original, this.file, this.target.field, value));
  }
  restore(): void {
    fs.writeFileSync(this.file, this.original);
  }
}

/** One timed edit rebuild of a contender's kept output (or `out`), from and back to the original source. */
async function editRun(stage: Stage, side: Contender, out = stage.kept.get(side)!): Promise<Sample> {
  const edit = (side.edit ??= new Edit(side.data, pickEdit(side.data)));
  edit.restore();
  await timeBuild(side.checkout, side.data, out); // back to the original, not counted
  edit.apply();
  try {
    return await timeBuild(side.checkout, side.data, out);
  } finally {
    edit.restore();
  }
}

/** A scenario's figures on one world: the medians compared, and every sample. */
export interface Row {
  /** A generated world's scale, a data folder's path, or `data`, the shipped world (the dev loop's saves). */
  scale: World;
  scenario: string;
  /** What the measured side is compared with: the floor, the full build, a revision, or nothing. */
  baseline: string;
  ms: number;
  baseMs?: number;
  ratio?: number;
  /** The spread of the samples (the dev loop's saves). */
  minMs?: number;
  p90Ms?: number;
  maxMs?: number;
  peakRssMb?: number;
  basePeakRssMb?: number;
  stages?: Record<string, number>;
  samples: Sample[];
  baseSamples?: Sample[];
}

/**
 * The median of each stage the samples report, a stage a sample skipped counting as nothing: one
 * run that did more than the others (a no-op that found the build's code changed) does not lend
 * the median its stages. A stage most runs skip is left out.
 */
function stageMedians(samples: Sample[]): Record<string, number> | undefined {
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.stages ?? {})))];
  const medians = names.map((name) => [name, median(samples.map((s) => s.stages?.[name] ?? 0))] as const);
  const kept = medians.filter(([, ms]) => ms > 0);
  return kept.length ? Object.fromEntries(kept) : undefined;
}

const peak = (samples: Sample[]) => Math.max(...samples.map((s) => s.rssMb ?? NaN));

/** A row comparing `samples` with `base` (another side's samples, or a single figure). */
function row(scale: World, scenario: string, baseline: string, samples: Sample[], base?: Sample[] | number): Row {
  const ms = median(samples.map((s) => s.ms));
  const baseMs = typeof base === 'number' ? base : base && median(base.map((s) => s.ms));
  const sides = Array.isArray(base) ? { basePeakRssMb: peak(base), baseSamples: base } : {};
  return {
    scale,
    scenario,
    baseline,
    ms,
    baseMs,
    ratio: baseMs ? ms / baseMs : undefined,
    peakRssMb: peak(samples),
    stages: stageMedians(samples),
    samples,
    ...sides,
  };
}

/**
 * The no-op and edit runs of every contender, in turns, and the runtime's start beside the no-ops.
 * Returns each contender's samples, in the order of `sides`.
 */
async function rebuildRuns(stage: Stage, sides: Contender[], runs: number) {
  const noop = sides.map((): Sample[] => []);
  const start: Sample[] = [];
  const listing: Sample[] = [];
  for (let i = 0; i < runs; i++) {
    start.push(await timeRuntimeStart());
    listing.push(await timeListing(stage.data));
    for (const k of turnOrder(i, sides.length))
      noop[k]!.push(await timeBuild(sides[k]!.checkout, sides[k]!.data, stage.kept.get(sides[k]!)!));
  }
  // The first edit after a clean build fills the second tree the output keeps: not counted.
  for (const side of sides) await editRun(stage, side);
  const edits = sides.map((): Sample[] => []);
  for (let i = 0; i < runs; i++) {
    for (const k of turnOrder(i, sides.length)) edits[k]!.push(await editRun(stage, sides[k]!));
    stage.log(`${worldName(stage.world)} edit ${i + 1}/${runs}: ${edits.map((e) => `${(e.at(-1)!.ms / 1000).toFixed(2)} s`).join(', ')}`);
  }
  return { noop, start, listing, edits };
}

/** The no-op beyond the runtime's start: a row of its own, as it is the part a build can cut. */
function beyondStart(scale: World, baseline: string, noop: Sample[], start: Sample[], baseNoop?: Sample[]): Row {
  const startMs = median(start.map((s) => s.ms));
  const ms = median(noop.map((s) => s.ms)) - startMs;
  const baseMs = baseNoop ? median(baseNoop.map((s) => s.ms)) - startMs : undefined;
  return { scale, scenario: 'no-op beyond runtime start', baseline, ms, baseMs, ratio: baseMs ? ms / baseMs : undefined, samples: [] };
}

/** The first edits, each timed in turn with the link floor on the same output before it is edited. */
async function firstEditRuns(stage: Stage, self: Contender, runs: number): Promise<[Sample[], Sample[]]> {
  const samples: [Sample[], Sample[]] = [[], []];
  for (let i = 0; i < runs; i++) {
    const out = path.join(stage.dir, `out-1-${i}`);
    const link = () => timeLinking(out, path.join(stage.dir, `linked-${i}`));
    for (const side of turnOrder(i, 2) as Array<0 | 1>) samples[side].push(await (side === 0 ? link() : editRun(stage, self, out)));
  }
  return samples;
}

/** The first build of each contender, not counted: it fills the caches and the output the rebuilds keep. */
async function warmUp(stage: Stage, sides: Contender[], runs: number, floor: boolean): Promise<Sample> {
  const before = freeRoom(stage.dir);
  let first: Sample | undefined;
  for (const side of sides) first = await timeBuild(side.checkout, side.data, stage.kept.get(side)!);
  const after = freeRoom(stage.dir);
  const tree = { bytes: (before.bytes - after.bytes) / sides.length, files: (before.files - after.files) / sides.length };
  // Every full run's output stays until the scale is done, each kept output grows a second tree,
  // the link floor copies a tree once per run (folders new, files linked), and the floor's plan
  // holds a tree's bytes.
  const short = roomProblem(stage.world, tree, 3 * runs + sides.length + (floor ? 1 : 0), after);
  if (short) throw new BenchError(`${short} (the bench works in ${path.dirname(stage.dir)}; TMPDIR names another folder)`);
  return first!;
}

/** Every scenario on one world. `against` is the other revision's contender, if any. */
async function benchWorld(stage: Stage, runs: number, against?: Contender): Promise<{ rows: Row[]; world: Sample; edit: EditTarget }> {
  // Picked before anything is timed, so that a world with nothing to edit is told at once.
  const self: Contender = {
    label: 'this checkout',
    checkout: projectRoot,
    data: stage.data,
    edit: new Edit(stage.data, pickEdit(stage.data)),
  };
  const sides = against ? [against, self] : [self];
  for (const side of sides) stage.kept.set(side, path.join(stage.dir, `kept-${stage.kept.size}`, 'out'));
  const world = await warmUp(stage, sides, runs, !against);
  const build = (side: Contender) => (out: string) => timeBuild(side.checkout, side.data, out);
  let base: Sample[];
  let full: Sample[];
  if (against) [base, full] = await alternate(stage, runs, [build(against), build(self)]);
  else {
    const plan = path.join(stage.dir, 'floor-plan.json');
    writeFloorPlan(stage.kept.get(self)!, plan);
    [base, full] = await alternate(stage, runs, [(out) => timeFloor(plan, out), build(self)]);
  }
  const { noop, start, listing, edits } = await rebuildRuns(stage, sides, runs);
  const ci = against ? undefined : await ciRuns(stage, runs);
  // The first edit after each full build of this checkout, on the output that build left.
  const [linking, firstEdits] = await firstEditRuns(stage, self, runs);
  const s = stage.world;
  const mine = (xs: Sample[][]) => xs.at(-1)!;
  // What no build can go below: listing every source (for the no-op), linking a whole tree (for the first edit).
  const floors = [
    beyondStart(s, 'listing floor', mine(noop), start, listing),
    row(s, 'first edit after a full build', 'link floor (cp -al)', firstEdits, linking),
  ];
  const rows = against
    ? [
        row(s, 'full', against.label, full, base),
        row(s, 'edit', against.label, mine(edits), edits[0]),
        row(s, 'no-op', against.label, mine(noop), noop[0]),
        row(s, 'runtime start', '', start),
        beyondStart(s, against.label, mine(noop), start, noop[0]),
        row(s, 'first edit after a full build', 'later edit', firstEdits, mine(edits)),
        ...floors,
      ]
    : [
        row(s, 'full', 'floor', full, base),
        row(s, 'edit', 'full build', mine(edits), median(full.map((x) => x.ms))),
        row(s, 'no-op', 'full build', mine(noop), median(full.map((x) => x.ms))),
        row(s, 'runtime start', '', start),
        beyondStart(s, '', mine(noop), start),
        row(s, 'first edit after a full build', 'later edit', firstEdits, mine(edits)),
        row(s, 'CI check, cache restored', 'empty cache', ci![1], ci![0]),
        ...floors,
      ];
  return { rows, world, edit: self.edit!.target };
}

export interface BenchOptions {
  scales: number[];
  /** A data folder to bench as a world too, on a copy of it. */
  data?: string;
  runs: number;
  /** A git revision to time against, instead of the floor. */
  against?: string;
  /** Seconds to wait after large removals; by default 35 for a world the size of scale 5's and above, none below. */
  settle?: number;
  /** Time only the dev loop's answer to a save (runDevBench). */
  dev?: boolean;
  /** Where the JSON results go. */
  results: string;
  log?: (line: string) => void;
}

export interface BenchResults {
  date: string;
  node: string;
  cpus: number;
  runs: number;
  against?: string;
  worlds: {
    scale: World;
    records?: number;
    files?: number;
    bytes?: number;
    /** The edit the edit runs made: `<kind>/<file>: <field>`. */
    edit?: string;
    /** How a data folder's figures stand against TARGETS. */
    targets?: TargetCheck[];
  }[];
  rows: Row[];
}

const logLine = (line: string) => process.stderr.write(`${line}\n`);

/** A bench run's results: the machine and options it ran with, its worlds and rows. */
function newResults(
  options: Pick<BenchOptions, 'runs' | 'against'>,
  worlds: BenchResults['worlds'],
  rows: BenchResults['rows'],
): BenchResults {
  return {
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    runs: options.runs,
    against: options.against,
    worlds,
    rows,
  };
}

/** Writes the results as JSON to `file`, and gives them back. */
function keepResults(file: string, results: BenchResults): BenchResults {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
  return results;
}

/** Runs the bench; the worktree and every output are removed at the end, however it ends. */
export async function runBench(options: BenchOptions): Promise<BenchResults> {
  const log = options.log ?? logLine;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'crs-bench-'));
  let worktree: Worktree | undefined;
  const cleanUp = () => {
    worktree?.remove();
    fs.rmSync(work, { recursive: true, force: true, maxRetries: 5 });
  };
  // Stopped by a signal, the processes it timed end first (stopWith), then this.
  const forget = onStop(cleanUp);
  try {
    if (options.against) worktree = addWorktree(options.against, work, projectRoot);
    if (worktree?.warning) log(`warning: ${worktree.warning}`);
    const against = worktree && { label: options.against!, checkout: worktree.dir, data: '' };
    const results = newResults(options, [], []);
    const settler = new Settler();
    for (const scale of [...options.scales, ...(options.data ? [options.data] : [])]) {
      const { rows, world, edit } = await oneWorld(work, scale, options, settler, against);
      const targets = typeof scale === 'string' ? targetChecks(rows) : undefined;
      const { records, files, bytes } = world;
      results.worlds.push({ scale, records, files, bytes, edit: `${edit.file}: ${edit.field}`, targets });
      results.rows.push(...rows);
    }
    return keepResults(options.results, results);
  } finally {
    forget();
    if (!stopping()) cleanUp();
  }
}

/** From how many records a world's removals are waited out by default: about a generated world's at scale 5. */
const LARGE_WORLD_RECORDS = 40_000;

/**
 * One world, in a folder of its own under `work`, removed when done; `settler` waits out removals
 * before it. A generated world is written there; a data folder is copied there, so that the edit
 * runs never touch the author's files.
 */
async function oneWorld(work: string, world: World, options: BenchOptions, settler: Settler, against?: Contender) {
  const dir = fs.mkdtempSync(path.join(work, typeof world === 'number' ? `scale-${world}-` : 'data-'));
  const data = path.join(dir, 'world');
  let records: number;
  if (typeof world === 'number') records = writeWorld(generateWorld(world, 1), data);
  else {
    fs.cpSync(world, data, { recursive: true });
    records = countRecords(data);
  }
  await settler.settled(options.settle ?? (records >= LARGE_WORLD_RECORDS ? 35 : 0));
  // The other revision builds the same world as its own generator writes it (the source format may
  // have changed between them), from the same seed; or the same copy of the data folder.
  const theirs = against && { ...against, data: typeof world === 'number' ? path.join(dir, 'world-against') : data };
  if (theirs && typeof world === 'number') await genWorldIn(theirs.checkout, world, theirs.data);
  const stage: Stage = { world, dir, data, log: options.log ?? logLine, kept: new Map() };
  try {
    return await benchWorld(stage, options.runs, theirs);
  } finally {
    execFileSync('rm', ['-rf', dir]);
    settler.removed();
  }
}

/** The record files in the kinds' folders of the data folder `data`. */
function countRecords(data: string): number {
  const kinds = fs.readdirSync(data, { withFileTypes: true }).filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'));
  return kinds.reduce((n, kind) => n + recordFiles(path.join(data, kind.name)).length, 0);
}

/** `npm run gen:world` of the checkout at `checkout`, into `out`; a stop of the bench ends it. */
async function genWorldIn(checkout: string, scale: number, out: string): Promise<void> {
  const args = ['run', '--silent', 'gen:world', '--', '--scale', String(scale), '--seed', '1', '--out', out];
  const child = spawn('npm', args, { cwd: checkout, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  stopWith(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const code = await new Promise((resolve) => child.once('close', resolve));
  if (code !== 0) throw new BenchError(`npm run gen:world in ${checkout} exited with ${code}: ${stderr.slice(-2000)}`);
}

/** The record the dev loop's saves change: a move's power, which its own JSON shows and no other record derives from. */
const DEV_EDIT = { file: 'move/acid-kick.yaml', path: '/api/v2/move/acid-kick/', line: /^power: \d+$/m };
/** How long after the dev loop's start its first save is made. */
const FIRST_SAVE_AFTER_MS = 2_000;

/** `npm run dev` running: its url, what it printed, and a Ctrl-C that resolves once every process it started is gone. */
interface DevProcess {
  url: string;
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * `npm run dev` as a user starts it in `checkout`, on a free loopback port, resolved once its first build is done
 * (it prints its url then), with its temp build in `tmp`. It runs in a process group of its own, so
 * that a stop reaches npm and the dev loop at once, as Ctrl-C in a terminal does.
 */
async function startDevProcess(checkout: string, data: string, tmp: string): Promise<DevProcess> {
  const args = ['run', 'dev', '--', '--data', data, '--port', '0', '--host', '127.0.0.1'];
  const env = { ...process.env, TMPDIR: tmp };
  const child = spawn('npm', args, { cwd: checkout, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  stopWith(child); // a bench stopped by a signal stops the loop too
  let output = '';
  const url = new Promise<string>((resolve, reject) => {
    const said = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const found = /explorer at (\S+)\//.exec(output);
      if (found) resolve(found[1]!);
    };
    child.stdout.on('data', said);
    child.stderr.on('data', said);
    child.once('exit', (code) => reject(new BenchError(`npm run dev exited with ${code} before its first build:\n${output.slice(-2000)}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGINT');
    await exited;
  };
  const timeout = setTimeout(() => void stop(), 120_000);
  try {
    return { url: await url, output: () => output, stop };
  } catch (err) {
    await stop();
    throw err;
  } finally {
    clearTimeout(timeout);
  }
}

/** The body of a GET of `url`, on `agent`'s kept-alive connection. */
function getBody(url: string, agent: http.Agent): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** Writes `text` to `file`, then asks `url` back to back until the body holds `expected`: the ms from the write to that answer. */
async function saveToAnswer(file: string, text: string, url: string, expected: string, agent: http.Agent): Promise<number> {
  const started = performance.now();
  fs.writeFileSync(file, text);
  while (!(await getBody(url, agent)).includes(expected))
    if (performance.now() - started > 30_000) throw new BenchError(`${url} did not answer ${expected} within 30 s of the save`);
  return performance.now() - started;
}

/** The value at or below which `share` of the figures fall (nearest rank). */
export const percentile = (xs: readonly number[], share: number): number =>
  [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(share * xs.length) - 1)] ?? NaN;

/** A row of the dev loop's saves: the median and its spread, against another checkout's saves if given. */
function devRow(scenario: string, ms: number[], base?: { label: string; ms: number[] }): Row {
  const spread = { minMs: Math.min(...ms), p90Ms: percentile(ms, 0.9), maxMs: Math.max(...ms) };
  const samples = (xs: number[]) => xs.map((x) => ({ ms: x }));
  const row: Row = { scale: 'data', scenario, baseline: base?.label ?? '', ms: median(ms), ...spread, samples: samples(ms) };
  if (!base) return row;
  const baseMs = median(base.ms);
  return { ...row, baseMs, ratio: row.ms / baseMs, baseSamples: samples(base.ms) };
}

/** One checkout's dev loop, on a copy of its own data/ in a folder of its own (which holds its temp build too). */
interface DevSide {
  label: string;
  dir: string;
  dev: DevProcess;
  /** Saves the record with this power: ms to the answer that holds it. */
  save: (power: number) => Promise<number>;
}

async function devSide(label: string, checkout: string, work: string, agent: http.Agent): Promise<DevSide> {
  const dir = fs.mkdtempSync(path.join(work, 'side-'));
  const data = path.join(dir, 'data');
  fs.cpSync(path.join(checkout, 'data'), data, { recursive: true });
  const file = path.join(data, DEV_EDIT.file);
  const original = fs.readFileSync(file, 'utf8');
  if (!DEV_EDIT.line.test(original)) throw new Error(`${file} has no power line to edit`);
  const dev = await startDevProcess(checkout, data, dir);
  const url = dev.url + DEV_EDIT.path;
  const save = (power: number) => saveToAnswer(file, original.replace(DEV_EDIT.line, `power: ${power}`), url, `"power":${power}`, agent);
  return { label, dir, dev, save };
}

/** Stops a side's dev loop as Ctrl-C does; its temp build must be gone then. */
async function stopSide(side: DevSide): Promise<void> {
  await side.dev.stop();
  // npm itself, under Node 22 and later, keeps the code it compiled in the temp folder: that is not the loop's.
  const left = fs.readdirSync(side.dir).filter((name) => name !== 'data' && name !== 'node-compile-cache');
  if (left.length) throw new BenchError(`npm run dev left ${left.join(', ')} behind after Ctrl-C:\n${side.dev.output().slice(-2000)}`);
}

/**
 * The dev loop's answer to a save, on a copy of the shipped world: `runs` saves, each timed from the
 * write to the first answer of the record's url that holds the new value, after one save not
 * counted (the first, two seconds after the start, a row of its own). The saves alternate
 * between two values, so each changes the record; a pause between them lets the loop go idle. With
 * `against`, that revision's dev loop runs beside this checkout's, and the two take turns.
 */
export async function runDevBench(options: Pick<BenchOptions, 'runs' | 'against' | 'results' | 'log'>): Promise<BenchResults> {
  const log = options.log ?? logLine;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'crs-bench-dev-'));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const sides: DevSide[] = [];
  let worktree: Worktree | undefined;
  const cleanUp = () => {
    worktree?.remove();
    fs.rmSync(work, { recursive: true, force: true, maxRetries: 5 });
  };
  // Stopped by a signal, the dev loops end first (stopWith), then this.
  const forget = onStop(cleanUp);
  try {
    if (options.against) worktree = addWorktree(options.against, work, projectRoot);
    if (worktree?.warning) log(`warning: ${worktree.warning}`);
    if (worktree) sides.push(await devSide(options.against!, worktree.dir, work, agent));
    sides.push(await devSide('this checkout', projectRoot, work, agent));
    // A user's first save comes a few seconds after the start, once the page is open.
    await new Promise((resolve) => setTimeout(resolve, FIRST_SAVE_AFTER_MS));
    const first = await Promise.all(sides.map((side) => side.save(1001)));
    const ms = sides.map((): number[] => []);
    for (let i = 0; i < options.runs; i++) {
      for (const k of turnOrder(i, sides.length)) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        ms[k]!.push(await sides[k]!.save(1000 + (i % 2)));
      }
      log(`dev save ${i + 1}/${options.runs}: ${ms.map((m) => `${m.at(-1)!.toFixed(1)} ms`).join(', ')}`);
    }
    const status = JSON.parse(await getBody(`${sides.at(-1)!.dev.url}/__build-status`, agent)) as { records: number };
    for (const side of sides) await stopSide(side);
    const base = (xs: number[][]) => (worktree ? { label: options.against!, ms: xs[0]! } : undefined);
    const rows = [
      devRow('dev: save to answer', ms.at(-1)!, base(ms)),
      devRow('dev: first save after start', [first.at(-1)!], base([[first[0]!]])),
    ];
    return keepResults(options.results, newResults(options, [{ scale: 'data', records: status.records }], rows));
  } finally {
    forget();
    agent.destroy();
    if (!stopping()) {
      for (const side of sides) await side.dev.stop();
      cleanUp();
    }
  }
}

const fmt = (n: number | undefined, digits = 0) => (n === undefined || Number.isNaN(n) ? '' : n.toFixed(digits));

/** The results as a markdown table, one row per scenario and world. */
export function formatTable(results: BenchResults): string {
  const head = ['world', 'scenario', 'median ms', 'baseline', 'baseline ms', 'ratio', 'peak RSS MB', 'build stages, median ms'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((h, i) => (i >= 2 && i !== 3 && i !== 7 ? ' ---: ' : ' --- ')).join('|')}|`];
  for (const r of results.rows) {
    const rss = r.peakRssMb === undefined ? '' : fmt(r.peakRssMb) + (r.basePeakRssMb === undefined ? '' : ` (${fmt(r.basePeakRssMb)})`);
    const stages = Object.entries(r.stages ?? {})
      .map(([name, ms]) => `${name} ${fmt(ms)}`)
      .join(', ');
    lines.push(`| ${[r.scale, r.scenario, fmt(r.ms), r.baseline, fmt(r.baseMs), fmt(r.ratio, 2), rss, stages].join(' | ')} |`);
  }
  return lines.join('\n');
}

/**
 * What a data folder's world is held to, PokeAPI's complete data among them: a full build within
 * a small multiple of its write floor and a memory a small machine has, a one-edit rebuild a small
 * share of a full one, and a no-op quick enough not to be waited for.
 */
export const TARGETS = { fullToFloor: 2, fullPeakMb: 2048, editOfFull: 0.1, noopMs: 1000 };

/** One target: what it holds, the figure measured, and whether the figure meets it. */
export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean;
}

/** How a world's rows stand against TARGETS; the floor's target only when the full build was timed against it. */
export function targetChecks(rows: Row[]): TargetCheck[] {
  const find = (scenario: string) => rows.find((r) => r.scenario === scenario);
  const full = find('full');
  const edit = find('edit');
  const noop = find('no-op');
  const checks: TargetCheck[] = [];
  if (full?.baseline === 'floor' && full.ratio !== undefined)
    checks.push({
      target: `full build at most ${TARGETS.fullToFloor}× the write floor`,
      measured: `${fmt(full.ratio, 2)}×`,
      met: full.ratio <= TARGETS.fullToFloor,
    });
  if (full?.peakRssMb !== undefined)
    checks.push({
      target: `full build's peak memory under ${TARGETS.fullPeakMb} MB`,
      measured: `${fmt(full.peakRssMb)} MB`,
      met: full.peakRssMb < TARGETS.fullPeakMb,
    });
  if (full && edit)
    checks.push({
      target: `one-edit rebuild at most ${TARGETS.editOfFull * 100}% of the full build`,
      measured: `${fmt((edit.ms / full.ms) * 100, 1)}%`,
      met: edit.ms <= full.ms * TARGETS.editOfFull,
    });
  if (noop)
    checks.push({
      target: `no-op rebuild at most ${TARGETS.noopMs / 1000} s`,
      measured: `${fmt(noop.ms / 1000, 2)} s`,
      met: noop.ms <= TARGETS.noopMs,
    });
  return checks;
}

/** A world's target checks, one line each. */
export const formatTargets = (checks: TargetCheck[]): string =>
  checks.map((c) => `- ${c.target}: ${c.measured}, ${c.met ? 'met' : 'MISSED'}`).join('\n');

/** The dev loop's rows as a markdown table: the median save and its spread, and the other revision's median. */
export function formatDevTable(results: BenchResults): string {
  const head = ['world', 'scenario', 'saves', 'median ms', 'p90 ms', 'min ms', 'max ms', 'baseline', 'baseline ms', 'ratio'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((h, i) => (i >= 2 && i !== 7 ? ' ---: ' : ' --- ')).join('|')}|`];
  for (const r of results.rows) {
    const spread = [r.ms, r.p90Ms, r.minMs, r.maxMs].map((n) => fmt(n, 1));
    lines.push(`| ${[r.scale, r.scenario, r.samples.length, ...spread, r.baseline, fmt(r.baseMs, 1), fmt(r.ratio, 2)].join(' | ')} |`);
  }
  return lines.join('\n');
}

const OPTIONS = {
  scales: { type: 'string' },
  data: { type: 'string' },
  runs: { type: 'string' },
  against: { type: 'string' },
  settle: { type: 'string' },
  dev: { type: 'boolean', default: false },
} as const;

const HELP = `Usage: npm run bench -- [--scales 1,10 | --data DIR] [--runs 3] [--against REV] [--settle S] | --dev [--runs 20] [--against REV]

Times whole builds of generated worlds, or of a data folder (full, one edit, nothing changed),
against the write floor or another revision's build; with --dev, the dev loop's answer to a save.
Prints a markdown table, for a data folder how it stands against its targets, and writes every
figure to bench-results/bench.json.

Options:
  --scales LIST   the worlds' scales, comma-separated, each above 0 and at most ${MAX_SCALE} (default 1,10)
  --data DIR      bench this data folder instead, on a copy (the edit runs change one record's number)
  --runs N        runs of each measurement, 3 or more (default 3; 20 with --dev)
  --against REV   a git revision to time against, run from a worktree of it
  --settle S      seconds to wait after large removals (default 35 for a world of ${LARGE_WORLD_RECORDS.toLocaleString('en-US')} records and more)
  --dev           time the dev loop on the shipped world instead
  -h, --help      show this help

Exit codes: 0 timed, 1 the data folder does not build (its first problem said), 2 wrong usage (a
bad number, an unknown revision, no such folder) or a machine that cannot run it, 3 a folder could
not be written; 130/143 stopped by Ctrl-C/SIGTERM (its processes, worktree
and temp folders removed).`;

/** The command line, checked; a UsageError (or a BenchError) says what is wrong with it. */
export function parseOptions(argv: string[]): BenchOptions {
  return benchOptions(readOptions(argv, OPTIONS));
}

function benchOptions(values: ReturnType<typeof readOptions<typeof OPTIONS>>): BenchOptions {
  if (values.data !== undefined && values.scales !== undefined)
    throw new BenchError('--data and --scales name the worlds; give one of them');
  const data = values.data === undefined ? undefined : folderToRead('--data', values.data);
  const scales = data ? [] : (values.scales ?? '1,10').split(',').map(Number);
  if (scales.some((s) => !(s > 0 && s <= MAX_SCALE)))
    throw new BenchError(`--scales takes positive numbers, at most ${MAX_SCALE}, as 1,10; got ${values.scales}`);
  const runs = Number(values.runs ?? (values.dev ? 20 : 3));
  // Three at least, so that each median stands between two other runs.
  if (!Number.isInteger(runs) || runs < 3) throw new BenchError(`--runs takes a whole number of 3 or more; got ${values.runs}`);
  if (values.dev && (values.scales !== undefined || values.data !== undefined || values.settle !== undefined))
    throw new BenchError('--dev times the dev loop on the shipped world alone; it takes --runs and --against only');
  const settle = values.settle === undefined ? undefined : Number(values.settle);
  if (settle !== undefined && !(settle >= 0)) throw new BenchError(`--settle takes seconds, 0 or more; got ${values.settle}`);
  const results = path.join(projectRoot, 'bench-results', 'bench.json');
  return { scales, data, runs, against: values.against, settle, dev: values.dev, results };
}

async function main(argv: string[]): Promise<number> {
  const values = commandOptions(argv, OPTIONS, HELP);
  if (typeof values === 'number') return values;
  const options = benchOptions(values);
  if (options.dev) {
    const results = await runDevBench(options);
    console.log(formatDevTable(results));
    console.log(
      `\n\`npm run dev\` on Node ${results.node}, on a copy of data/ (${results.worlds[0]!.records} records): ms from a save to the first answer of the record's url that holds it. Figures in ${path.relative(process.cwd(), options.results)}`,
    );
    return 0;
  }
  const results = await runBench(options);
  console.log(formatTable(results));
  for (const w of results.worlds) {
    const size = `${w.records} records, ${w.files} files, ${fmt((w.bytes ?? 0) / 2 ** 20, 1)} MiB`;
    console.log(`\n${worldName(w.scale)}: ${size}; the edit runs change ${w.edit}`);
    if (w.targets?.length) console.log(`targets:\n${formatTargets(w.targets)}`);
  }
  const vs = options.against
    ? `${options.against}'s build, run in turns with this checkout's`
    : 'the write floor (full) and the full build (edit, no-op)';
  console.log(
    `\nmedians of ${options.runs} runs, whole processes on Node ${results.node}; ratio = median / baseline median, against ${vs}. Figures in ${path.relative(process.cwd(), options.results)}`,
  );
  return 0;
}

/** The exit code of a bench that failed, after its one line; what is no fault of the command line or the machine is thrown on. */
async function failed(err: unknown): Promise<number> {
  // What fails as a signal stops the bench is the stop's doing: it ends the process once it has cleaned up.
  if (stopping()) return untilStopped();
  if (err instanceof BenchError || err instanceof NoSuchRevision || err instanceof UsageError) {
    console.error(`bench: ${err.message}`);
    return 2;
  }
  if (err instanceof WorldProblems) {
    console.error(`bench: ${err.message}`);
    return 1;
  }
  if ((err as NodeJS.ErrnoException).code && (err as NodeJS.ErrnoException).syscall) {
    console.error(`bench: ${(err as Error).message}`);
    return 3;
  }
  throw err;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = await main(process.argv.slice(2)).catch(failed);

// `npm run bench [-- --scales 1,10 --runs 3]`: times the build against the write floor — a minimal
// script that makes the same folders and writes the same bytes to the same paths (in the build's
// order, linking where the build links, one call at a time as the build's writer thread does) and
// does nothing else — in one run, on worlds from gen-world.ts. Each measurement runs in a fresh
// process that reports its own time and peak memory; builds and floors take turns. Beside them, the
// time to read and parse every source on one thread and do nothing else: what a build that read
// everything before writing anything would spend first (the build reads the late kinds' records,
// order.ts, while the others' files are written). Prints a table and writes the same figures as
// JSON to bench-results/bench.json.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { pathToFileURL } from 'node:url';
import { UsageError } from './config.ts';
import { readLive } from './output.ts';
import { projectRoot } from './paths.ts';

const BASE = 'http://localhost:3000';
const here = path.join(projectRoot, 'build', 'bench.ts');

interface Sample {
  ms: number;
  rssMb: number;
  files?: number;
  written?: number;
  linked?: number;
  bytes?: number;
  records?: number;
}

/** Runs one measurement (`build`, `parse` or `floor`, with its folders) in a fresh process. */
export function measure(args: string[]): Sample {
  const out = execFileSync(process.execPath, ['--import', 'tsx', here, 'child', ...args], {
    cwd: projectRoot,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

/** Room on a file system: bytes, and files (inodes). */
export interface Room {
  bytes: number;
  files: number;
}

export function freeRoom(dir: string): Room {
  const { bavail, bsize, ffree } = fs.statfsSync(dir);
  return { bytes: bavail * bsize, files: ffree };
}

/** Why `trees` more trees, each taking what one took (`tree`), will not fit in `free`; undefined if they will. */
export function roomProblem(scale: number, tree: Room, trees: number, free: Room): string | undefined {
  // A tenth to spare: the manifests and the floor's list of files come on top.
  const bytes = Math.max(0, tree.bytes) * trees * 1.1;
  const files = Math.max(0, tree.files) * trees * 1.1;
  if (free.bytes >= bytes && free.files >= files) return undefined;
  const gib = (n: number) => `${(n / 2 ** 30).toFixed(1)} GiB`;
  const count = (n: number) => Math.round(n).toLocaleString('en-US');
  return (
    `scale ${scale} needs room for ${trees} more trees like its first build's: about ${gib(bytes)} and ${count(files)} files, ` +
    `where ${gib(free.bytes)} and ${count(free.files)} files are free; free some room, or pass fewer --runs or smaller --scales`
  );
}

/** A measurement, after the disk has written out what earlier runs left. */
function child(args: string[]): Sample {
  execFileSync('sync');
  return measure(args);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rm = (dir: string) => execFileSync('rm', ['-rf', dir]);

/**
 * Every file of a built tree with its bytes, in the order the build wrote them (its manifest's), saved
 * for the floor script to write back.
 */
export async function collect(out: string, file: string): Promise<void> {
  const listed = (await readLive(out)).manifest?.files();
  if (!listed) throw new Error(`${out} has no manifest`);
  // A path the build made as a hard link to an earlier one (a record's name path) is linked here too.
  const seen = new Map<number, string>();
  const files = [...listed.keys()].map((rel): FloorFile => {
    const ino = fs.statSync(path.join(out, rel)).ino;
    const first = seen.get(ino);
    if (first) return [rel, first];
    seen.set(ino, rel);
    return [rel, fs.readFileSync(path.join(out, rel))];
  });
  fs.writeFileSync(file, v8.serialize(files));
}

/** A path and its bytes, or the earlier path it is a hard link to. */
type FloorFile = [string, Buffer | string];

async function childMain(mode: string, a: string, b: string): Promise<void> {
  const started = performance.now();
  let sample: Partial<Sample> = {};
  if (mode === 'build') {
    const { build } = await import('./build.ts');
    const r = await build({ dataDir: a, outDir: b, baseUrl: BASE });
    sample = {
      files: r.files,
      written: r.written,
      linked: r.linked,
      bytes: r.bytes,
      records: Object.values(r.records).reduce((x, y) => x + y, 0),
    };
  } else if (mode === 'parse') {
    // Every source read and parsed, as the build reads and parses them, and nothing else.
    const [{ readSources, parseSources }, { Problems }] = await Promise.all([import('./load.ts'), import('./problems.ts')]);
    const files = await readSources(a, new Problems());
    parseSources(files, new Problems());
    sample = { records: files.length };
  } else if (mode === 'floor') {
    // The floor: each folder made and each file written (or linked where the build links) in the
    // build's order, one synchronous call at a time, as the build's writer thread places them.
    const files = v8.deserialize(fs.readFileSync(a)) as FloorFile[];
    const t = performance.now();
    const made = new Set<string>();
    for (const [rel, body] of files) {
      const dir = path.dirname(rel);
      if (!made.has(dir)) fs.mkdirSync(path.join(b, dir), { recursive: true });
      made.add(dir);
      if (typeof body === 'string') fs.linkSync(path.join(b, body), path.join(b, rel));
      else fs.writeFileSync(path.join(b, rel), body);
    }
    sample = { files: files.length };
    console.log(JSON.stringify({ ...sample, ms: performance.now() - t, rssMb: process.resourceUsage().maxRSS / 1024 }));
    return;
  }
  console.log(JSON.stringify({ ...sample, ms: performance.now() - started, rssMb: process.resourceUsage().maxRSS / 1024 }));
}

/**
 * Edits one move, differently each round: a new English name, and a type that alternates, so the
 * move's own files change and so do the derived `moves` lists of the types it leaves and joins.
 */
function editOneRecord(dataDir: string, round: number): void {
  const file = path.join(dataDir, 'move', 'move-00007.yaml');
  const text = fs.readFileSync(file, 'utf8');
  fs.writeFileSync(
    file,
    text
      .replace(/^type: .*$/m, `type: ${round % 2 ? 'fire' : 'water'}`)
      .replace(/Move 7 \(en\)( round \d+)?/, `Move 7 (en) round ${round}`),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { scales: { type: 'string', default: '1,10' }, runs: { type: 'string', default: '3' } },
  });
  const runs = Number(values.runs);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'crs-bench-'));
  const rows: Record<string, unknown>[] = [];
  // ext4 does not reuse an inode within 30 seconds of its file's removal, and walks past each such
  // inode whenever it allocates one: files made just after many were removed cost several times
  // more, and by how many were removed. So nothing is removed while a scale is measured (each
  // measurement writes into a folder of its own), and measuring waits until removals are old
  // (those made before the bench began, too).
  let removed = Date.now();
  const settle = () => {
    const wait = removed + 35_000 - Date.now();
    if (wait > 0) execFileSync('sleep', [String(wait / 1000)]);
  };
  try {
    for (const scale of values.scales!.split(',').map(Number)) {
      const data = path.join(work, `world-${scale}`);
      execFileSync(
        process.execPath,
        ['--import', 'tsx', path.join(projectRoot, 'build', 'gen-world.ts'), '--scale', String(scale), '--out', data],
        { stdio: 'ignore' },
      );
      settle();
      const full: Sample[] = [];
      const floor: Sample[] = [];
      const parse: Sample[] = [];
      const files = path.join(work, `files-${scale}.bin`);
      const out = (i: number) => path.join(work, `out-${scale}-${i}`);
      // One build first, not counted: its output is what the floor writes back. Just after a world
      // is written, the disk makes the next build the slowest of all (in this machine's runs, 5.7–6.3 s
      // at scale 1 against 2.2–2.9 s for the two after it, and 32–42 s at scale 10 against 23–29 s).
      const warm = path.join(work, `out-${scale}-warm`);
      const before = freeRoom(work);
      child(['build', data, warm]);
      // Each run leaves a build's tree and a floor's until the scale is done, and the rebuilds fill a
      // second tree beside the first build's: a disk that cannot hold them is told of now.
      const after = freeRoom(work);
      const short = roomProblem(scale, { bytes: before.bytes - after.bytes, files: before.files - after.files }, 2 * runs + 1, after);
      if (short) throw new UsageError(`${short} (the bench works in ${path.dirname(work)}; TMPDIR names another folder)`);
      await collect(warm, files);
      for (let i = 0; i < runs; i++) {
        // Build and floor run in turns, and each run changes which goes first: a disk that slows
        // down (or speeds up) as the run goes on weighs on both alike.
        if (i % 2 === 1) floor.push(child(['floor', files, path.join(work, `floor-${scale}-${i}`)]));
        full.push(child(['build', data, out(i)]));
        if (i % 2 === 0) floor.push(child(['floor', files, path.join(work, `floor-${scale}-${i}`)]));
        parse.push(child(['parse', data]));
        process.stderr.write(
          `scale ${scale} run ${i + 1}: build ${(full.at(-1)!.ms / 1000).toFixed(1)}s, floor ${(floor.at(-1)!.ms / 1000).toFixed(1)}s, parse ${(parse.at(-1)!.ms / 1000).toFixed(1)}s\n`,
        );
      }
      // Rebuilds of the first build's output.
      const noop: Sample[] = [];
      for (let i = 0; i < runs; i++) noop.push(child(['build', data, out(0)]));
      const edit: Sample[] = [];
      for (let i = 0; i < runs + 1; i++) {
        editOneRecord(data, i);
        edit.push(child(['build', data, out(0)]));
      }
      const first = full[0]!;
      const fullMs = median(full.map((s) => s.ms));
      const floorMs = median(floor.map((s) => s.ms));
      const steady = edit.slice(1); // the first edit after a clean build fills the second tree
      rows.push({
        scale,
        records: first.records,
        files: first.files,
        bytes: first.bytes,
        fullMs,
        floorMs,
        // The median of each run's own ratio: a build and the floor beside it saw the same disk.
        fullToFloor: median(full.map((s, i) => s.ms / floor[i]!.ms)),
        peakRssMb: Math.max(...full.map((s) => s.rssMb)),
        parseMs: median(parse.map((s) => s.ms)),
        parseToFloor: median(parse.map((s, i) => s.ms / floor[i]!.ms)),
        noopMs: median(noop.map((s) => s.ms)),
        noopToFull: median(noop.map((s) => s.ms)) / fullMs,
        noopWritten: Math.max(...noop.map((s) => s.written ?? 0)),
        firstEditMs: edit[0]!.ms,
        editMs: median(steady.map((s) => s.ms)),
        editToFull: median(steady.map((s) => s.ms)) / fullMs,
        editWritten: median(steady.map((s) => s.written ?? 0)),
        editLinked: median(steady.map((s) => s.linked ?? 0)),
        runs,
      });
      for (const entry of fs.readdirSync(work)) rm(path.join(work, entry));
      removed = Date.now();
    }
  } finally {
    rm(work);
  }
  const table = [
    [
      'scale',
      'records',
      'files',
      'MiB',
      'full s',
      'floor s',
      'full/floor',
      'peak MiB',
      'parse s',
      'parse/floor',
      'no-op s',
      'no-op/full',
      'no-op files',
      'edit s',
      'edit/full',
      'edit files',
    ],
    ...rows.map((r: any) => [
      r.scale,
      r.records,
      r.files,
      (r.bytes / 2 ** 20).toFixed(1),
      (r.fullMs / 1000).toFixed(2),
      (r.floorMs / 1000).toFixed(2),
      r.fullToFloor.toFixed(2),
      r.peakRssMb.toFixed(0),
      (r.parseMs / 1000).toFixed(2),
      r.parseToFloor.toFixed(2),
      (r.noopMs / 1000).toFixed(2),
      r.noopToFull.toFixed(3),
      r.noopWritten,
      (r.editMs / 1000).toFixed(2),
      r.editToFull.toFixed(3),
      r.editWritten + r.editLinked,
    ]),
  ].map((row) => row.map(String));
  const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => row[c]!.length)));
  console.log(table.map((row) => row.map((cell, c) => cell.padStart(widths[c]!)).join('  ')).join('\n'));
  const resultsDir = path.join(projectRoot, 'bench-results');
  fs.mkdirSync(resultsDir, { recursive: true });
  fs.writeFileSync(
    path.join(resultsDir, 'bench.json'),
    JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, rows }, null, 2) + '\n',
  );
  console.log(
    `\nmedians of ${values.runs} runs; full/floor, no-op/full and edit/full are ratios measured in this run. Figures in bench-results/bench.json`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv[2] === 'child') await childMain(process.argv[3]!, process.argv[4]!, process.argv[5]!);
  else {
    try {
      await main();
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      console.error(`bench: ${err.message}`);
      process.exitCode = 2;
    }
  }
}

// `npm run bench [-- --scales 1,10 --runs 3]`: times the build against the write floor — a minimal
// script that makes the same folders and writes the same bytes to the same paths, with the same
// concurrency, and nothing else — in one run, on worlds from gen-world.ts. Each measurement runs in
// a fresh process that reports its own time and peak memory. Prints a table and writes the same
// figures as JSON to bench-results/bench.json.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { pathToFileURL } from 'node:url';
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

/** Runs one measurement in a fresh process, after the disk has written out what earlier runs left. */
function child(args: string[]): Sample {
  execFileSync('sync');
  const out = execFileSync(process.execPath, ['--import', 'tsx', here, 'child', ...args], { cwd: projectRoot, encoding: 'utf8', maxBuffer: 1 << 26 });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rm = (dir: string) => execFileSync('rm', ['-rf', dir]);

/** Every file of a tree with its bytes, saved for the floor script to write back. */
function collect(tree: string, file: string): void {
  const files: Array<[string, Buffer]> = [];
  for (const e of fs.readdirSync(tree, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) files.push([path.relative(tree, path.join(e.parentPath, e.name)), fs.readFileSync(path.join(e.parentPath, e.name))]);
  }
  fs.writeFileSync(file, v8.serialize(files));
}

async function childMain(mode: string, a: string, b: string): Promise<void> {
  const started = performance.now();
  let sample: Partial<Sample> = {};
  if (mode === 'build') {
    const { build } = await import('./build.ts');
    const r = await build({ dataDir: a, outDir: b, baseUrl: BASE });
    sample = { files: r.files, written: r.written, linked: r.linked, bytes: r.bytes, records: Object.values(r.records).reduce((x, y) => x + y, 0) };
  } else if (mode === 'floor') {
    // The floor: the same folders and bytes, written with the same concurrency as the build.
    const files = v8.deserialize(fs.readFileSync(a)) as Array<[string, Buffer]>;
    const t = performance.now();
    const dirs = new Map<string, Promise<unknown>>();
    const mkdir = (d: string) => dirs.get(d) ?? (dirs.set(d, fs.promises.mkdir(path.join(b, d), { recursive: true })), dirs.get(d)!);
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < files.length) {
          const [rel, body] = files[next++]!;
          await mkdir(path.dirname(rel));
          await fs.promises.writeFile(path.join(b, rel), body);
        }
      }),
    );
    sample = { files: files.length, bytes: files.reduce((s, [, body]) => s + body.length, 0) };
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
  fs.writeFileSync(file, text.replace(/^type: .*$/m, `type: ${round % 2 ? 'fire' : 'water'}`).replace(/Move 7 \(en\)( round \d+)?/, `Move 7 (en) round ${round}`));
}

async function main(): Promise<void> {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { scales: { type: 'string', default: '1,10' }, runs: { type: 'string', default: '3' } } });
  const runs = Number(values.runs);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'crs-bench-'));
  const rows: Record<string, unknown>[] = [];
  try {
    for (const scale of values.scales!.split(',').map(Number)) {
      const data = path.join(work, `world-${scale}`);
      execFileSync(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'build', 'gen-world.ts'), '--scale', String(scale), '--out', data], { stdio: 'ignore' });
      const full: Sample[] = [];
      const floor: Sample[] = [];
      const out = path.join(work, `out-${scale}`);
      const clean = () => {
        rm(out);
        rm(path.join(work, `.out-${scale}-builds`));
      };
      for (let i = 0; i < runs; i++) {
        clean();
        full.push(child(['build', data, out]));
        if (i === 0) collect(out, path.join(work, 'files.bin'));
        const floorDir = path.join(work, `floor-${scale}`);
        rm(floorDir);
        floor.push(child(['floor', path.join(work, 'files.bin'), floorDir]));
        rm(floorDir);
        process.stderr.write(`scale ${scale} run ${i + 1}: build ${(full.at(-1)!.ms / 1000).toFixed(1)}s, floor ${(floor.at(-1)!.ms / 1000).toFixed(1)}s\n`);
      }
      const noop: Sample[] = [];
      for (let i = 0; i < runs; i++) noop.push(child(['build', data, out]));
      const edit: Sample[] = [];
      for (let i = 0; i < runs + 1; i++) {
        editOneRecord(data, i);
        edit.push(child(['build', data, out]));
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
        fullToFloor: fullMs / floorMs,
        peakRssMb: Math.max(...full.map((s) => s.rssMb)),
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
      clean();
      rm(data);
    }
  } finally {
    rm(work);
  }
  const table = [
    ['scale', 'records', 'files', 'MiB', 'full s', 'floor s', 'full/floor', 'peak MiB', 'no-op s', 'no-op/full', 'no-op files', 'edit s', 'edit/full', 'edit files'],
    ...rows.map((r: any) => [r.scale, r.records, r.files, (r.bytes / 2 ** 20).toFixed(1), (r.fullMs / 1000).toFixed(2), (r.floorMs / 1000).toFixed(2), r.fullToFloor.toFixed(2), r.peakRssMb.toFixed(0), (r.noopMs / 1000).toFixed(2), r.noopToFull.toFixed(3), r.noopWritten, (r.editMs / 1000).toFixed(2), r.editToFull.toFixed(3), r.editWritten + r.editLinked]),
  ].map((row) => row.map(String));
  const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => row[c]!.length)));
  console.log(table.map((row) => row.map((cell, c) => cell.padStart(widths[c]!)).join('  ')).join('\n'));
  const resultsDir = path.join(projectRoot, 'bench-results');
  fs.mkdirSync(resultsDir, { recursive: true });
  fs.writeFileSync(path.join(resultsDir, 'bench.json'), JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, rows }, null, 2) + '\n');
  console.log(`\nmedians of ${values.runs} runs; full/floor, no-op/full and edit/full are ratios measured in this run. Figures in bench-results/bench.json`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv[2] === 'child') await childMain(process.argv[3]!, process.argv[4]!, process.argv[5]!);
  else await main();
}

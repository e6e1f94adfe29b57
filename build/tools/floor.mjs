// `node build/tools/floor.mjs PLAN OUT [THREADS]`: the write floor. Makes the folders, writes the
// bytes and makes the hard links a finished build's output holds, into OUT (which must not exist
// yet), and does nothing else: no reading of sources, no checking, no bookkeeping. What it takes is
// the least a build of that output can take on this machine, so the bench times the build against it.
//
// Making a file costs the kernel's time more than the disk's, so the work is shared among threads,
// one per core unless THREADS says otherwise: a floor on one thread is beaten by a build that writes
// on two. The plan is made beforehand by the bench (writeFloorPlan in bench.ts) from a built tree,
// so that this script depends on nothing of the build. PLAN is JSON:
//   { "bytes": "<file beside PLAN holding every written file's bytes, in the order of entries>",
//     "entries": [["api"], ["api/v2"], ["api/v2/index.json", offset, length], ...],
//     "links": [["api/v2/type/fire/index.json", "api/v2/type/10/index.json"], ...] }
// Entries are folders ([path]) and files ([path, offset, length]) in the order of a depth-first
// walk, each folder before what it holds; a link names the written file it is a hard link of.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker, isMainThread, workerData } from 'node:worker_threads';

/** Makes a share of the entries, in order, reading only its own part of the bytes. */
function place({ out, bytesFile, entries }) {
  const files = entries.filter((e) => e.length === 3);
  const start = files.length ? files[0][1] : 0;
  const end = files.length ? files.at(-1)[1] + files.at(-1)[2] : 0;
  const bytes = Buffer.allocUnsafe(end - start);
  const fd = fs.openSync(bytesFile, 'r');
  for (let at = 0; at < bytes.length;) at += fs.readSync(fd, bytes, at, bytes.length - at, start + at);
  fs.closeSync(fd);
  for (const [rel, offset, length] of entries) {
    if (offset === undefined) fs.mkdirSync(`${out}/${rel}`);
    else fs.writeFileSync(`${out}/${rel}`, bytes.subarray(offset - start, offset - start + length));
  }
}

/**
 * The entries cut into `n` runs of about equal length. A run's entries may sit in folders an
 * earlier run makes: only the folders open where the run begins, the ancestors of its first entry.
 * Those are made first, here, and taken out of the runs, so that no thread waits for another.
 */
function share(entries, n) {
  const size = Math.ceil(entries.length / n);
  const runs = Array.from({ length: n }, (_, i) => entries.slice(i * size, (i + 1) * size)).filter((run) => run.length);
  const first = new Set();
  for (const run of runs.slice(1)) {
    for (let dir = path.posix.dirname(run[0][0]); dir !== '.'; dir = path.posix.dirname(dir)) first.add(dir);
  }
  const early = entries.filter((e) => e.length === 1 && first.has(e[0]));
  return { early, runs: runs.map((run) => run.filter((e) => !(e.length === 1 && first.has(e[0])))) };
}

async function main() {
  const [planFile, out, threads] = process.argv.slice(2);
  if (!planFile || !out) {
    console.error('usage: node build/tools/floor.mjs PLAN OUT [THREADS]');
    process.exit(2);
  }
  const plan = JSON.parse(fs.readFileSync(planFile, 'utf8'));
  const bytesFile = path.resolve(path.dirname(planFile), plan.bytes);
  const { early, runs } = share(plan.entries, Number(threads) || os.availableParallelism());
  // Not recursive: a fresh output is the premise, and an existing one is refused rather than mixed in.
  fs.mkdirSync(out);
  for (const [rel] of early) fs.mkdirSync(`${out}/${rel}`);
  await Promise.all(
    runs.map(
      (entries) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(new URL(import.meta.url), { workerData: { out, bytesFile, entries } });
          worker.once('error', reject);
          worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`a writing thread stopped with ${code}`))));
        }),
    ),
  );
  // Last, once every file they may name is written.
  for (const [rel, target] of plan.links) fs.linkSync(`${out}/${target}`, `${out}/${rel}`);
  const files = plan.entries.filter((e) => e.length === 3).length;
  console.log(JSON.stringify({ dirs: plan.entries.length - files, files, links: plan.links.length, threads: runs.length }));
}

if (isMainThread) await main();
else place(workerData);

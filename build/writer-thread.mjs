// A writer's thread (writer.ts): places what it is sent, in order of arrival, one call at a time.
// The calls are synchronous: on a thread of its own that costs the build nothing. Plain JavaScript,
// so that the thread starts at once rather than after loading a TypeScript compiler.
// Messages: `{ dirs: string[] }` folders to make, or `{ ops: Op[] }` files to place, each answered
// with `{ failed: [path, reason][] }` once its count of batches done (`counts[index]`) is up by
// one; `{ created: true }`, answered with the folders it made.
import fs from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';

const { counts, index } = workerData;
const made = new Set();
/** Folders this thread made (rather than found), for the build to remove if it is abandoned. */
const created = [];

function ensureDir(dir) {
  if (made.has(dir)) return;
  const first = fs.mkdirSync(dir, { recursive: true });
  made.add(dir);
  if (first !== undefined) for (let d = dir; d.length >= first.length; d = path.dirname(d)) created.push(d);
}

function put(op) {
  if (op.from !== undefined) fs.linkSync(op.from, op.path);
  else fs.writeFileSync(op.path, op.body);
}

/**
 * Writes `op.body`, or hard-links `op.from`; a file standing at `op.path` is removed first. Folders
 * are made ahead (`dirs`, on the first thread): only a folder that is not there yet is made here.
 */
function place(op) {
  if (op.replace) fs.rmSync(op.path, { force: true });
  try {
    put(op);
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
    ensureDir(path.dirname(op.path));
    put(op);
  }
}

parentPort.on('message', (m) => {
  if (m.created) {
    parentPort.postMessage({ created });
  } else if (m.dirs) {
    for (const dir of m.dirs) {
      try {
        ensureDir(dir);
      } catch {} // a file that needs the folder reports the failure
    }
    Atomics.add(counts, index, 1);
    parentPort.postMessage({ failed: [] });
  } else {
    const failed = [];
    for (const op of m.ops) {
      try {
        place(op);
      } catch (err) {
        failed.push([op.path, err.message]);
      }
    }
    Atomics.add(counts, index, 1);
    parentPort.postMessage({ failed });
  }
});

// The writer's thread (writer.ts): places what it is sent, in order of arrival, one call at a time.
// The calls are synchronous: on a thread of its own that costs the build nothing, and one call at a
// time is faster than many at once (the file system's locks are contended less). Plain JavaScript,
// so that the thread starts at once rather than after loading a TypeScript compiler.
// Messages: `{ dirs: string[] }` folders to make; `{ ops: Op[], seq }` files to place, their bodies
// in the ring shared with the build's thread, answered with `{ failed: [path, reason][] }` once
// placed — a batch the build's thread claimed first (`claims`, shared, a slot per batch) is passed
// over, and answered all the same; `{ undo: string[] }` removes the folders this thread made and
// those listed (the build's thread made them), then answers.
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { BY_WRITER, makeDir, PLACED, placeOp, removeDirs, UNCLAIMED } from './place.mjs';

/** @type {Int32Array} */
const claims = workerData.claims;
/** @type {Int32Array} how many batches this thread has come to */
const reached = workerData.reached;
const ring = Buffer.from(workerData.ring);
const made = new Set();
/** Folders this thread made (rather than found), for `undo`. */
const created = [];

function ensureDir(dir) {
  if (made.has(dir)) return;
  makeDir(dir, created);
  made.add(dir);
}

parentPort.on('message', (m) => {
  if (m.undo) {
    removeDirs([...created, ...m.undo]);
    parentPort.postMessage({ failed: [] });
  } else if (m.dirs) {
    for (const dir of m.dirs) {
      try {
        ensureDir(dir);
      } catch {} // a file that needs the folder reports the failure
    }
  } else {
    const failed = [];
    const slot = m.seq % claims.length;
    if (Atomics.compareExchange(claims, slot, UNCLAIMED, BY_WRITER) === UNCLAIMED) {
      for (const op of m.ops) {
        try {
          ensureDir(path.dirname(op.path));
          placeOp(op, ring);
        } catch (err) {
          failed.push([op.path, err.message]);
        }
      }
      Atomics.store(claims, slot, PLACED);
    }
    Atomics.store(reached, 0, m.seq + 1);
    parentPort.postMessage({ failed });
  }
});

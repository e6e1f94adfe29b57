// The writer's thread (writer.ts): places what it is sent, in order of arrival, one call at a time.
// The calls are synchronous: on a thread of its own that costs the build nothing, and one call at a
// time is faster than many at once (the file system's locks are contended less). Plain JavaScript,
// so that the thread starts at once rather than after loading a TypeScript compiler.
// Messages: `{ dirs: string[] }` folders to make; `{ ops: Op[] }` files to place, answered with
// `{ failed: [path, reason][] }`; `{ undo: true }` removes the folders it made, then answers.
import fs from 'node:fs';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';

const made = new Set();
/** Folders this thread made (rather than found), for `undo`. */
const created = [];

function ensureDir(dir) {
  if (made.has(dir)) return;
  const first = fs.mkdirSync(dir, { recursive: true });
  made.add(dir);
  if (first !== undefined) for (let d = dir; d.length >= first.length; d = path.dirname(d)) created.push(d);
}

/** Writes `op.body`, or hard-links `op.from`; a file standing at `op.path` is removed first. */
function place(op) {
  ensureDir(path.dirname(op.path));
  if (op.replace) fs.rmSync(op.path, { force: true });
  if (op.from !== undefined) fs.linkSync(op.from, op.path);
  else fs.writeFileSync(op.path, op.body);
}

parentPort.on('message', (m) => {
  if (m.undo) {
    // Deepest first; a folder still holding a file is left (rmdir refuses it).
    for (const dir of created.sort((a, b) => b.length - a.length)) {
      try {
        fs.rmdirSync(dir);
      } catch {}
    }
    parentPort.postMessage({ failed: [] });
  } else if (m.dirs) {
    for (const dir of m.dirs) {
      try {
        ensureDir(dir);
      } catch {} // a file that needs the folder reports the failure
    }
  } else {
    const failed = [];
    for (const op of m.ops) {
      try {
        place(op);
      } catch (err) {
        failed.push([op.path, err.message]);
      }
    }
    parentPort.postMessage({ failed });
  }
});

// Placing one file, as the writer's thread does it and as the build's thread does when it helps
// (writer.ts). Plain JavaScript, so that the writer's thread starts without a TypeScript loader.
import fs from 'node:fs';
import path from 'node:path';

/**
 * Writes the op's body (`len` bytes of `ring` at `at`, or `body`), or hard-links `from`; a file
 * standing at `path` is removed first.
 */
export function placeOp(op, ring) {
  if (op.replace) fs.rmSync(op.path, { force: true });
  if (op.from !== undefined) fs.linkSync(op.from, op.path);
  else fs.writeFileSync(op.path, op.at === undefined ? op.body : ring.subarray(op.at, op.at + op.len));
}

/** Makes a folder and those above it; the ones it made (rather than found) go on `created`. */
export function makeDir(dir, created) {
  const first = fs.mkdirSync(dir, { recursive: true });
  if (first !== undefined) for (let d = dir; d.length >= first.length; d = path.dirname(d)) created.push(d);
}

/** Removes folders, deepest first; a folder still holding a file is left (rmdir refuses it). */
export function removeDirs(dirs) {
  for (const dir of [...dirs].sort((a, b) => b.length - a.length)) {
    try {
      fs.rmdirSync(dir);
    } catch {}
  }
}

/**
 * A batch's slot in the claims array (writer.ts): not begun; taken by the writer, then placed; or
 * taken by the build's thread, which places it at once.
 */
export const UNCLAIMED = 0;
export const BY_WRITER = 1;
export const BY_BUILD = 2;
export const PLACED = 3;

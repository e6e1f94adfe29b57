// Placing one file, as the writer's thread does it and as the build's thread does for a batch it
// keeps (writer.ts).
import fs from 'node:fs';
import path from 'node:path';
import { JOIN_CHUNK_BYTES } from '../tuning.ts';

/**
 * One file to place: write `body`, hard-link `from` (a file placed earlier, or another tree's), or
 * join the files placed already (`join`, plan.ts).
 */
export interface Op {
  path: string;
  body?: string | Uint8Array;
  from?: string;
  join?: { parts: JoinPart[]; compact: boolean };
  /** A file stands at `path` already: it is removed first (files are never written in place). */
  replace?: boolean;
}

/** A part of a joined file: a file, each followed by a newline, or a range of another file's bytes (newlines included). */
export type JoinPart = string | { file: string; start: number; end: number };

function placeOp(op: Op): void {
  if (op.replace) fs.rmSync(op.path, { force: true });
  if (op.from !== undefined) fs.linkSync(op.from, op.path);
  else if (op.join) joinFiles(op.path, op.join.parts, op.join.compact);
  // Created, never written through: a file already there is a mistake in the plan, and could be a
  // hard link shared with the live tree.
  else fs.writeFileSync(op.path, op.body!, { flag: 'wx' });
}

const NEWLINE = Buffer.from('\n');

/** Writes `target` as its parts in order, reading one file at a time and writing in chunks. */
function joinFiles(target: string, parts: readonly JoinPart[], compact: boolean): void {
  const fd = fs.openSync(target, 'wx');
  const sources = new Map<string, number>();
  try {
    let chunk: Buffer[] = [];
    let bytes = 0;
    const flush = () => {
      if (bytes > 0) fs.writeSync(fd, Buffer.concat(chunk, bytes));
      chunk = [];
      bytes = 0;
    };
    for (const part of parts) {
      if (typeof part !== 'string') {
        flush();
        copyRange(part, fd, sources);
        continue;
      }
      const text = fs.readFileSync(part);
      const line = compact ? Buffer.from(JSON.stringify(JSON.parse(text.toString('utf8')))) : text;
      chunk.push(line, NEWLINE);
      bytes += line.length + 1;
      if (bytes >= JOIN_CHUNK_BYTES) flush();
    }
    flush();
  } finally {
    fs.closeSync(fd);
    for (const source of sources.values()) fs.closeSync(source);
  }
}

/** Copies a range of another file into `fd`, in chunks; a file shorter than the range is an error, not a short copy. */
function copyRange({ file, start, end }: { file: string; start: number; end: number }, fd: number, sources: Map<string, number>): void {
  let source = sources.get(file);
  if (source === undefined) sources.set(file, (source = fs.openSync(file, 'r')));
  const buffer = Buffer.allocUnsafe(Math.min(JOIN_CHUNK_BYTES, end - start));
  for (let at = start; at < end;) {
    const read = fs.readSync(source, buffer, 0, Math.min(buffer.length, end - at), at);
    if (read === 0) throw new Error(`${file} ends at byte ${at}, before ${end}`);
    fs.writeSync(fd, buffer, 0, read);
    at += read;
  }
}

/** Makes a folder and those above it; the ones it made (rather than found) go on `created`. */
export function makeDir(dir: string, created: string[]): void {
  const first = fs.mkdirSync(dir, { recursive: true });
  if (first !== undefined) for (let d = dir; d.length >= first.length; d = path.dirname(d)) created.push(d);
}

/**
 * Places a batch; returns the paths that failed, and why. `ensure` makes each file's folder first
 * (the writer's thread, which remembers the folders it made); without it, a folder is made, into
 * `created`, when a file is found to need it.
 */
export function placeBatch(ops: Op[], created: string[], ensure?: (dir: string) => void): Array<[string, string]> {
  const failed: Array<[string, string]> = [];
  for (const op of ops) {
    try {
      ensure?.(path.dirname(op.path));
      try {
        placeOp(op);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || ensure) throw err;
        makeDir(path.dirname(op.path), created);
        placeOp(op);
      }
    } catch (err) {
      failed.push([op.path, (err as Error).message]);
    }
  }
  return failed;
}

/** Removes folders, deepest first; a folder still holding a file is left (rmdir refuses it). */
export function removeDirs(dirs: string[]): void {
  for (const dir of [...dirs].sort((a, b) => b.length - a.length)) {
    try {
      fs.rmdirSync(dir);
    } catch {}
  }
}

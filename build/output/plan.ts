// Publishing, planned: from what the tree being written holds, what the live tree holds and the
// files a build makes, what must be done to each file — written, linked, or nothing — and which
// files go. Plain values and no file-system calls: trees.ts applies them.
import { createHash, hash } from 'node:crypto';
import { isInner } from '../guard.mjs';
import type { FileList } from '../incremental/manifest.ts';

/** A file the build makes, as render.ts gives it. */
export interface OutputFile {
  rel: string;
  /** The bytes; left out for a file the live tree holds already (`carried`, or `hash` says which). */
  body?: string | Buffer;
  /** The live tree's file at the same path, as it is. */
  carried?: true;
  /** hashBody(body), when the caller has it already. */
  hash?: string;
  /**
   * The path emitted just before this one, holding the same bytes (a record's id path): linked to it.
   * Given without `body` or `hash`, the file is that one's copy under another name.
   */
  sameAs?: string;
  /** A file made of other files of the tree, one a line (`Join`); `hash` is then `joinedHash` of theirs. */
  join?: Join;
}

/**
 * Files of the tree joined, each followed by a newline: a kind's NDJSON file, made of its records'
 * files. With `compact`, each is rewritten on one line first (the records were written indented).
 */
export interface Join {
  parts: string[];
  compact: boolean;
  /** The parts' hashes, in order, where the caller has them: lets a rebuild take unchanged parts from the live tree's joined file. */
  hashes?: string[];
}

/** Where a piece of a joined file comes from: a part's own file, or a range of bytes of the live tree's joined file. */
type Piece = { rel: string } | { start: number; end: number };

/**
 * A rebuild's joined file as pieces: each part whose bytes the live tree's joined file holds
 * already is a range of that file (runs of them one range), the others their own files. The live
 * file is used only when it was made of exactly the parts that both trees hold, in the same order
 * (its hash is that of its parts, so this is checked, not assumed): after a part was removed, or
 * with compacted parts, it is undefined and the parts are joined from their files.
 */
export function joinPieces(join: Join, liveHash: string | undefined, live: { get(rel: string): string | undefined }): Piece[] | undefined {
  if (join.compact || !join.hashes || liveHash === undefined) return undefined;
  const before = join.parts.map((rel) => live.get(rel));
  const held = before.filter((h) => h !== undefined);
  if (joinedHash(held, false) !== liveHash) return undefined;
  const pieces: Piece[] = [];
  let offset = 0;
  join.parts.forEach((rel, i) => {
    const was = before[i];
    if (was === undefined) return pieces.push({ rel });
    const [start, end] = [offset, (offset += sizeOf(was) + 1)];
    const last = pieces.at(-1);
    if (was !== join.hashes![i]) pieces.push({ rel });
    else if (last && 'end' in last && last.end === start) last.end = end;
    else pieces.push({ start, end });
  });
  return pieces;
}

/** A file the build takes to be in the live tree, which the live manifest does not list. */
export const lacking = (rel: string) => new Error(`the live tree's manifest lacks ${rel}; remove the output folder and build again`);

/** A file's identity in a manifest: its size and a hash of its bytes. */
export const hashBody = (body: string | Buffer) => `${Buffer.byteLength(body)}.${hash('sha1', body, 'base64url')}`;
export const sizeOf = (hash: string) => parseInt(hash, 10);

/**
 * The identity of a joined file, from its parts' hashes alone, so that it is known without reading
 * them: the same parts give the same bytes. Its size is theirs and a newline each (for compacted
 * parts, an upper bound).
 */
export function joinedHash(partHashes: readonly string[], compact: boolean): string {
  const digest = createHash('sha1').update(compact ? 'join compact\n' : 'join\n');
  let size = 0;
  for (const part of partHashes) {
    digest.update(part + '\n');
    size += sizeOf(part) + 1;
  }
  return `${size}.${digest.digest('base64url')}`;
}

/** What the tree being written holds before the build touches it: path → hash. */
export interface Holding {
  /** `liveHash` is the live tree's hash of the path, where the caller has it already. */
  get(rel: string, liveHash?: string): string | undefined;
  paths(): Iterable<string>;
  /** The paths it holds that the live tree does not, when that is known without going through all. */
  beyondLive?(): Iterable<string>;
}

export const holding = (files?: FileList): Holding => ({ get: (rel) => files?.get(rel), paths: () => files?.keys() ?? [] });

/**
 * The tree the live one was built beside, as the live manifest's `diff` says it differs: the same
 * files but for those listed there.
 */
export function beforeLive(diff: Map<string, string>, files: FileList): Holding {
  return {
    get: (rel, liveHash) => {
      const differs = diff.get(rel);
      return differs === undefined ? (liveHash ?? files.get(rel)) : differs || undefined;
    },
    *paths() {
      for (const rel of files.keys()) if (!diff.has(rel)) yield rel;
      for (const [rel, hash] of diff) if (hash !== '') yield rel;
    },
    *beyondLive() {
      for (const [rel, hash] of diff) if (hash !== '' && !files.has(rel)) yield rel;
    },
  };
}

/** One thing to do to a file of the tree: paths are relative to the tree, or to the live tree (`live`). */
export type FileOp =
  | { op: 'write'; rel: string; body: string | Buffer; replace: boolean }
  | { op: 'link'; rel: string; from: string; live: boolean; replace: boolean }
  | { op: 'join'; rel: string; join: Join; replace: boolean }
  | { op: 'missing'; rel: string };

/** What the plan says of one file. */
export interface Planned {
  rel: string;
  hash: string;
  /** The live tree's hash of the path, and its line in the live manifest (-1 if it lacks it). */
  was: string | undefined;
  line: number;
  /** What to do, unless the tree holds the file as it should be already. */
  op: FileOp | undefined;
}

/** What is known before any file is planned. */
export interface Before {
  live: FileList | undefined;
  existing: Holding;
}

/** The plan for one file, given the one planned before it (for a record's name path that repeats its id path). */
export function planFile(file: OutputFile, before: Before, last: Planned | undefined): Planned {
  const line = before.live ? before.live.indexOf(file.rel) : -1;
  const was = line < 0 ? undefined : before.live!.hash(line);
  const copy = file.body === undefined && !file.carried && file.sameAs !== undefined && file.sameAs === last?.rel;
  const hash = file.hash ?? (copy ? last!.hash : file.carried ? was : hashBody(file.body!));
  if (hash === undefined) throw lacking(file.rel);
  const planned: Planned = { rel: file.rel, hash, was, line, op: undefined };
  if (before.existing.get(file.rel, was) === hash) return planned;
  const replace = before.existing.get(file.rel) !== undefined;
  if (file.sameAs !== undefined && file.sameAs === last?.rel && hash === last.hash)
    planned.op = { op: 'link', rel: file.rel, from: file.sameAs, live: false, replace };
  else if (was === hash) planned.op = { op: 'link', rel: file.rel, from: file.rel, live: true, replace };
  else if (file.join) planned.op = { op: 'join', rel: file.rel, join: file.join, replace };
  else if (file.body !== undefined) planned.op = { op: 'write', rel: file.rel, body: file.body, replace };
  else planned.op = { op: 'missing', rel: file.rel };
  return planned;
}

/** A file the live tree holds as it is, linked from there. */
export const fromLive = (rel: string, existing: Holding): FileOp => ({
  op: 'link',
  rel,
  from: rel,
  live: true,
  replace: existing.get(rel) !== undefined,
});

/**
 * The files the tree holds that the build did not make: they go. When every file of the live tree
 * is among the build's (`allLive`), only files the live tree lacks can be such, and those alone are
 * looked through. A path the manifests give that would leave the tree (one edited by hand to name
 * `../../x`) is no file of the tree, and is never removed.
 */
export function removals(existing: Holding, made: (rel: string) => boolean, allLive: boolean, added: readonly string[]): string[] {
  const beyond = allLive ? existing.beyondLive?.() : undefined;
  if (!beyond) return [...existing.paths()].filter((rel) => !made(rel) && isInner(rel));
  const madeHere = new Set(added);
  return [...beyond].filter((rel) => !madeHere.has(rel) && isInner(rel));
}

// Stage 1: find the source files and parse them. A file is one record: data/<kind>/<name>.yaml
// (or .yml, .json).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type jsyaml from 'js-yaml';
import { hashText, hasAnchor, loadYaml, MAX_DEPTH, readText } from './fast-yaml.mjs';
import { listSources, listSourcesOnThread, SOURCE_EXTENSIONS } from './list-sources.mjs';
import { readAheadOnThread, type ReadAhead } from './read-ahead.mjs';
import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { UsageError } from './config.ts';
import { positionAt } from './locate.ts';
import { yaml } from './yaml.ts';
import { relativeTo } from './paths.ts';
import { fileStart, type Problem, type Problems } from './problems.ts';
import type { Remembered } from './memory.ts';

export interface SourceFile {
  /** Path relative to the project (or the data folder's parent), with '/'. */
  rel: string;
  abs: string;
  /** The folder name: the record kind the file claims to hold. */
  kind: string;
  /** The file name without its extension. */
  stem: string;
  text: string;
  /** Hash of the text: what the build compares to know a file has not changed ('' until it is read). */
  hash: string;
  size: number;
  mtimeMs: number;
  /** The parsed content; undefined when the file could not be read as a record. */
  value: unknown;
  /** The record as JSON, when the thread that read the file ahead parsed it already (`readAhead`). */
  json?: string;
  parsed?: boolean;
  /** What the last build remembered of this unchanged file, when the record is not read in full. */
  known?: Remembered;
}

export { SOURCE_EXTENSIONS } from './list-sources.mjs';
/** Past this a file is refused rather than parsed: no record needs it. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** What a build remembers of a source file to know, without reading it, that it has not changed. */
export type SourceStamp = [size: number, mtimeMs: number, hash: string];

/**
 * Every source file with its hash. A file whose size and modification time match `known` keeps
 * its remembered hash and is not read now; the others are read (and their text kept for parsing).
 * With nothing known, no file is read now: each is read, and hashed, as it is parsed. With
 * `onThread`, the files are listed on a thread of their own while `known` is still to come;
 * otherwise `onNames` is given their absolute paths as soon as they are listed, before each is
 * looked at.
 */
export async function readSources(
  dataDir: string,
  problems: Problems,
  known: ReadonlyMap<string, SourceStamp> | Promise<ReadonlyMap<string, SourceStamp> | undefined> = new Map(),
  onThread = false,
  onNames?: (abs: string[]) => void,
): Promise<SourceFile[]> {
  // A mistyped folder is not an empty world: building it would replace every record with none.
  if (!fs.statSync(dataDir, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`the data folder ${dataDir} does not exist (or is not a folder)`);
  // Paths are given relative to the data folder's parent (`data/type/fire.yaml`).
  const prefix = relativeTo(path.dirname(dataDir), dataDir);
  const root = path.join(dataDir, '/');
  // On a thread, the files are listed while what is known is read; then this thread helps look at them.
  const listing = onThread
    ? listSourcesOnThread(dataDir)
    : listSources(dataDir, onNames && ((names) => onNames(names.map((name) => root + name))));
  known = (await known) ?? new Map();
  const { sources: found, others } = 'done' in listing ? await listing.done() : listing;
  for (const name of others) problems.add(notRead(name, prefix));
  if (found.length === 0 && others.length === 0) {
    problems.add({
      ...fileStart(prefix || '.'),
      message: 'the data folder holds no records',
      hint: `each record is a file of its own: ${prefix || '.'}/<kind>/<name>.yaml`,
    });
  }
  const out: SourceFile[] = [];
  // With nothing remembered every file is parsed, and is read only when it is checked (validate.ts).
  const lazy = known.size === 0;
  // Plain synchronous reads: for many small files they beat the promise API several times over.
  for (const { path: name, size, mtimeMs } of found) {
    // `<kind>/<stem>.<extension>`, as listed.
    const abs = root + name;
    const rel = prefix ? `${prefix}/${name}` : name;
    const slash = name.indexOf('/');
    const kind = name.slice(0, slash);
    const stem = name.slice(slash + 1, name.lastIndexOf('.'));
    if (size > MAX_FILE_BYTES) {
      problems.add({
        ...fileStart(rel),
        message: `the file is ${size} bytes, over the limit of ${MAX_FILE_BYTES}`,
        hint: 'a record is a few kilobytes; split what this file holds',
      });
      out.push({ rel, abs, kind, stem, size, mtimeMs, text: '', hash: `oversized:${size}`, value: undefined });
      continue;
    }
    if (lazy) {
      out.push({ rel, abs, kind, stem, size, mtimeMs, text: '', hash: '', value: undefined });
      continue;
    }
    const stamp = known.get(rel);
    if (stamp && stamp[0] === size && stamp[1] === mtimeMs) {
      out.push({ rel, abs, kind, stem, size, mtimeMs, text: '', hash: stamp[2], value: undefined });
      continue;
    }
    const text = readText(abs);
    out.push({ rel, abs, kind, stem, size, mtimeMs, text, hash: hashText(text), value: undefined });
  }
  return out; // in the order of their paths (listSources)
}

/** A problem for an entry of the data folder that is not read, though it may have been meant to be. */
function notRead(name: string, prefix: string): Problem {
  const start = fileStart(prefix ? `${prefix}/${name}` : name);
  const slash = name.indexOf('/');
  if (slash < 0) {
    const hint = `move it into its kind's folder, e.g. ${prefix ? `${prefix}/` : ''}type/${name}`;
    return { ...start, message: "the file is not read: a record's file goes in the folder of its kind", hint };
  }
  const base = name.slice(slash + 1);
  const stem = base.includes('.') ? base.slice(0, base.indexOf('.')) : base;
  const extensions = SOURCE_EXTENSIONS.map((e) => `.${e}`).join(', ');
  return {
    ...start,
    message: `"${base}" is not read: a kind's folder holds only record files ending in ${extensions}`,
    hint: `if it is a record, name it ${stem}.yaml; if not, move it out of the data folder`,
  };
}

/**
 * From this many files to parse, they are checked on threads (check-threads.ts); fewer are checked
 * on the build's own thread: starting threads (each loads the TypeScript sources and compiles its
 * validators) costs more than they save. Measured against the floor: 9,084 files are quicker
 * inline, 26,704 on threads, 17,894 about even.
 */
export const THREAD_THRESHOLD = 20_000;

/**
 * From how many files to read ahead they are read on a thread of its own: starting one costs about
 * as much as reading a few hundred files here.
 */
export const READ_AHEAD_ON_THREAD = 300;

/**
 * Whether `count` files of late kinds are read ahead on a thread of their own (`wanted`, the build's
 * `readAhead` option, decides when given). Only with a core to spare for it: the build's own thread
 * and the writer's keep two cores busy, and on two cores the reading thread only takes CPU from
 * them. Its own costs (starting, compiling js-yaml a second time, handing each record over as JSON)
 * came to 0.19–0.2 s of CPU at scale 1, and builds without it were quicker on this machine's disk
 * (by 26, 60 and 40 ms, medians of 8 alternating pairs each), though slower on a RAM disk, where
 * writing takes less of the CPU.
 */
export function readsAheadOnThread(count: number, wanted?: boolean): boolean {
  return count > 0 && (wanted ?? (count >= READ_AHEAD_ON_THREAD && os.availableParallelism() > 2));
}

/** Files parsed later, read meanwhile (`readAhead`). */
export interface Ahead {
  /**
   * Gives every file what has been read of it so far, and tells the thread that the build has come
   * to `file` (it passes over the files before; the build reads any of those not yet given itself).
   */
  take(file: SourceFile): void;
  /** Stops reading: what is left is not needed. */
  close(): void;
}

/** A thread reading files ahead (`startReading`), before the build knows which of them it takes. */
export interface Reading {
  /** The files it reads, in order (absolute paths). */
  files: string[];
  port: MessagePort;
  /** How far the build has got: the thread passes over the files before `reached[0]`. */
  reached: Int32Array;
  close(): void;
}

/** Starts a thread that reads `files` (absolute paths) ahead, in order (`readAhead`). */
export function startReading(files: string[]): Reading {
  const reached = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = readAheadOnThread(files, port2, reached, MAX_FILE_BYTES);
  return {
    files,
    port: port1,
    reached,
    close() {
      port1.close();
      void worker.terminate();
    },
  };
}

/**
 * Reads the files that are parsed later, in their order, while the build's own thread parses
 * others: on a thread of its own, which parses the ordinary YAML records among them too (the build
 * then reads each from JSON, several times quicker). The build takes each file's result as it comes
 * to the file, and reads and parses one that has not come yet itself; nothing waits. Without a
 * thread (`readsAheadOnThread`, `wanted`), the texts are read here and now. A file that cannot be
 * read now is read again when it is parsed, and its problem is reported then. `started`: a thread
 * started before these files were known (`startReading`), taken over: of the files it reads, only
 * these are given their results, and one it does not read is read when it is parsed.
 */
export function readAhead(files: Iterable<SourceFile>, started?: Reading, wanted?: boolean): Ahead {
  const queue = [...files].filter((f) => f.text === '' && !f.parsed && !f.hash.startsWith('oversized:'));
  if (!started && !readsAheadOnThread(queue.length, wanted)) {
    for (const file of queue) sourceText(file);
    return { take: () => {}, close: () => {} };
  }
  const reading = started ?? startReading(queue.map((f) => f.abs));
  // Each file's place in the thread's order, and the file at each place.
  const at = new Map(reading.files.map((abs, i) => [abs, i]));
  const fileAt: Array<SourceFile | undefined> = [];
  const position = new Map<SourceFile, number>();
  for (const file of queue) {
    const i = at.get(file.abs);
    if (i === undefined) continue; // not among the thread's: read when it is parsed
    fileAt[i] = file;
    position.set(file, i);
  }
  const give = (i: number, ahead: ReadAhead | undefined) => {
    const file = fileAt[i];
    if (!file || !ahead || file.text !== '' || file.parsed) return;
    file.hash = ahead.hash;
    if (ahead.json !== undefined) file.json = ahead.json;
    else file.text = ahead.text;
  };
  return {
    take(file) {
      const i = position.get(file);
      if (i === undefined) return;
      Atomics.store(reading.reached, 0, i + 1);
      for (let m = receiveMessageOnPort(reading.port); m; m = receiveMessageOnPort(reading.port)) {
        for (const [at, ahead] of m.message as Array<[number, ReadAhead | undefined]>) give(at, ahead);
      }
    },
    close: () => reading.close(),
  };
}

export const stampOf = (file: SourceFile): SourceStamp => [file.size, file.mtimeMs, file.hash];

/**
 * Whether an object or array parsed nests no deeper than `limit` levels (itself the first): the
 * recursion goes no deeper than `limit` + 1, whatever the document. Arrays are walked by index and
 * scalars passed over without a call, as every parsed record goes through it: over the areas of a
 * scale-1 world, 5–9 ms against 14–15 ms for a plain walk of every key.
 */
function nestsWithin(value: object, limit: number, at = 1): boolean {
  if (at > limit) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item !== null && typeof item === 'object' && !nestsWithin(item, limit, at + 1)) return false;
    }
  } else {
    for (const key in value) {
      const item: unknown = (value as Record<string, unknown>)[key];
      if (item !== null && typeof item === 'object' && !nestsWithin(item, limit, at + 1)) return false;
    }
  }
  return true;
}

/**
 * Parses every file read; a file that cannot be parsed keeps `value` undefined. The text is let go
 * once parsed (`sourceText` reads it again for the rare problem that needs a line number).
 */
export function parseSources(files: SourceFile[], problems: Problems): void {
  for (const file of files) if (!file.parsed) parseOne(file, problems);
}

export function parseOne(file: SourceFile, problems: Problems): void {
  file.parsed = true;
  if (file.json !== undefined) {
    // The thread that read it sends a record as JSON only if it nests no deeper than MAX_DEPTH.
    file.value = JSON.parse(file.json);
    file.json = undefined;
  } else if (!file.hash.startsWith('oversized:')) {
    try {
      const text = sourceText(file);
      if (file.hash === '') file.hash = hashText(text);
      file.value = parse(text, file.rel, problems);
    } catch (err) {
      // A parser that gives up in its own way (a stack too deep, say) still gives a plain problem.
      problems.add({ ...fileStart(file.rel), message: `the file could not be read: ${(err as Error).message}` });
    }
    const value = file.value;
    if (value !== null && typeof value === 'object' && !nestsWithin(value, MAX_DEPTH)) {
      problems.add({
        ...fileStart(file.rel),
        message: `the document nests more than ${MAX_DEPTH} levels deep`,
        hint: 'a record nests a few levels; this looks like a mistake or an attack',
      });
      file.value = undefined;
    }
  }
  file.text = '';
}

/** The text of a source file, read again if parsing let it go. */
export function sourceText(file: SourceFile): string {
  if (file.text === '' && !file.hash.startsWith('oversized:')) {
    try {
      file.text = readText(file.abs);
    } catch {}
  }
  return file.text;
}

function parse(text: string, rel: string, problems: Problems): unknown {
  if (text.trim() === '') {
    problems.add({ ...fileStart(rel), message: 'the file is empty; it should hold one record' });
    return undefined;
  }
  if (rel.endsWith('.json')) {
    try {
      return JSON.parse(text);
    } catch (err) {
      const pos = positionAt(text, jsonErrorOffset(text));
      problems.add({ file: rel, ...pos, pointer: '', message: `invalid JSON: ${jsonMessage((err as Error).message)}` });
      return undefined;
    }
  }
  // The fast parser reads ordinary records; a document with anchors (and aliases) goes to the
  // careful one, which caps alias expansion, and so does anything the fast one refuses, so that
  // errors carry the careful parser's place and words.
  let fastError: jsyaml.YAMLException | undefined;
  if (!hasAnchor(text)) {
    try {
      return loadYaml(text, rel);
    } catch (err) {
      fastError = err as jsyaml.YAMLException;
    }
  }
  const doc = yaml().parseDocument(text, { prettyErrors: false });
  if (doc.errors.length === 0 && fastError) {
    const mark = fastError.mark;
    problems.add({
      file: rel,
      line: (mark?.line ?? 0) + 1,
      column: (mark?.column ?? 0) + 1,
      pointer: '',
      message: `invalid YAML: ${fastError.reason}`,
    });
    return undefined;
  }
  if (doc.errors.length > 0) {
    for (const e of doc.errors) {
      const pos = positionAt(text, e.pos[0]);
      problems.add({ file: rel, ...pos, pointer: '', message: `invalid YAML: ${e.message.split('\n')[0]}` });
    }
    return undefined;
  }
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    problems.add({ ...fileStart(rel), message: `invalid YAML: ${(err as Error).message}` });
    return undefined;
  }
}

/** The parser's words without the echo of the text or the offset (the problem has its place). */
const jsonMessage = (message: string) =>
  message.replace(/, (\.\.\.)?".*" is not valid JSON$/s, '').replace(/ in JSON at position \d+.*$/s, '');

/**
 * Where a JSON text first goes wrong. The parser's messages do not always say, so the shortest
 * prefix that is already wrong (not merely unfinished) is found by bisection.
 */
function jsonErrorOffset(text: string): number {
  const wrong = (prefix: string) => {
    try {
      JSON.parse(prefix);
      return false;
    } catch (err) {
      const message = (err as Error).message;
      if (/Unexpected end of JSON input/.test(message)) return false;
      const at = /at position (\d+)/.exec(message);
      return !at || Number(at[1]) < prefix.length;
    }
  };
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (wrong(text.slice(0, mid + 1))) hi = mid;
    else lo = mid + 1;
  }
  return Math.min(lo, Math.max(0, text.length - 1));
}

export { hashText, MAX_DEPTH } from './fast-yaml.mjs';

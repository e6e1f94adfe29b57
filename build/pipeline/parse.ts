// Stage 2, parse: a source file's text to a value. js-yaml reads ordinary YAML; a document with
// anchors (and so aliases) goes to `yaml`, which caps alias expansion, and so does one js-yaml
// refuses, so that every YAML error is placed and worded by one library. JSON files are read as JSON.
import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { locate, positionAt, yaml, type Position } from '../report/locate.ts';
import { fileStart, type Problems } from '../report/problems.ts';
import { MAX_FILE_BYTES } from '../guard.mjs';
import { hashText } from '../hash.ts';
import { mediaDigest } from '../site/media.ts';
import type { SourceFile } from '../store.ts';

/** Records nest a handful of levels; a document nested deeper than this is refused. */
export const MAX_DEPTH = 32;

/** At most this many aliases are expanded in one document: a few are useful, thousands an attack. */
const MAX_ALIASES = 100;

/** Anchors (and with them aliases) mark a document for the careful parser, which caps expansion. */
const ANCHOR = /(?:^|[\s[{,:-])&[^\s[\]{},]/m;
const hasAnchor = (text: string) => text.includes('&') && ANCHOR.test(text);

// The YAML readers are loaded when a file is first parsed: a rebuild with nothing changed parses none.
const require = createRequire(import.meta.url);
let jsyamlModule: typeof import('js-yaml') | undefined;
const jsyaml = () => (jsyamlModule ??= require('js-yaml') as typeof import('js-yaml'));

/** A text without the byte-order mark some editors put first. */
export const withoutMark = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/**
 * A source file's text, without a byte-order mark. Bytes that are not UTF-8 are refused where they
 * stand rather than decoded to U+FFFD: the record would be published changed.
 */
export function readText(abs: string): string {
  const bytes = readListed(abs);
  if (!isUtf8(bytes)) throw new NotUtf8(bytes);
  return withoutMark(bytes.toString('utf8'));
}

/**
 * The bytes of a file discover listed as a regular file under the size limit, held to that again on
 * the descriptor they are read from: one replaced since by a FIFO, a device or a larger file is
 * refused, never waited on or read whole (O_NONBLOCK: opening a FIFO does not wait for a writer).
 */
function readListed(abs: string): Buffer {
  const fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const stats = fs.fstatSync(fd);
    if (!stats.isFile()) throw new Error('it is no longer a regular file');
    if (stats.size > MAX_FILE_BYTES) throw new Error(`it is ${stats.size} bytes, over the limit of ${MAX_FILE_BYTES}`);
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** A source that is not UTF-8: where its first bad byte stands, and what to do. */
export class NotUtf8 extends Error {
  readonly position: Position;
  readonly hint: string;
  constructor(bytes: Buffer) {
    const { at, before } = firstBadByte(bytes);
    const value = bytes[at]!;
    const byte = `0x${value.toString(16).toUpperCase().padStart(2, '0')}`;
    super(`the file is not UTF-8: byte ${byte} does not begin a UTF-8 character`);
    this.position = positionAt(before, before.length);
    const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
    const latin1 = value >= 0xa0 ? ` (${byte} is "${String.fromCharCode(value)}" in Latin-1, the likely encoding)` : '';
    this.hint = utf16 ? 'the file is UTF-16: save it as UTF-8' : `save the file as UTF-8${latin1}`;
  }
}

/**
 * The offset of the first byte of bytes that are not UTF-8, and the text before it. The decoder
 * gives U+FFFD for each bad sequence; one the text holds as its own three bytes is passed over.
 */
function firstBadByte(bytes: Buffer): { at: number; before: string } {
  const text = bytes.toString('utf8');
  for (let i = text.indexOf('\ufffd'); i >= 0; i = text.indexOf('\ufffd', i + 1)) {
    const before = text.slice(0, i);
    const at = Buffer.byteLength(before);
    if (bytes[at] !== 0xef || bytes[at + 1] !== 0xbf || bytes[at + 2] !== 0xbd) return { at, before };
  }
  return { at: 0, before: '' }; // should `isUtf8` and the decoder ever disagree, the file's start is named
}

/** The text of a source file: the one held, or read again (for a problem's line number, say). */
export function sourceText(file: SourceFile): string {
  if (file.text !== undefined || file.refused) return file.text ?? '';
  try {
    return readText(file.abs);
  } catch {
    return '';
  }
}

/**
 * What tells a changed source from an unchanged one: its text, and for a record with a folder of its
 * own, the names and bytes of what the folder holds (media.ts), so that an image changed is a change.
 */
export function sourceHash(file: Pick<SourceFile, 'media'>, text: string): string {
  return file.media ? hashText(`${text}\n\0media\n${mediaDigest(file.media)}`) : hashText(text);
}

/** Reads and hashes, now, each file not yet read or remembered, and keeps its text for parsing. */
export function readUnhashed(files: SourceFile[]): void {
  for (const file of files) {
    if (file.hash !== undefined || file.refused) continue;
    try {
      file.text = readText(file.abs);
      file.hash = sourceHash(file, file.text);
    } catch {} // reported when the file is parsed
  }
}

/** Parses the file; its text is let go. The value is undefined when it cannot be read. */
export function parseSource(file: SourceFile, problems: Problems): unknown {
  let value: unknown;
  if (!file.refused) {
    try {
      const text = file.text ?? readText(file.abs);
      file.hash ??= sourceHash(file, text);
      value = parseText(text, file.rel, problems);
    } catch (err) {
      if (err instanceof NotUtf8) problems.add({ file: file.rel, ...err.position, pointer: '', message: err.message, hint: err.hint });
      // A parser that gives up in its own way (a stack too deep, say) still gives a plain problem.
      else problems.add({ ...fileStart(file.rel), message: `the file could not be read: ${(err as Error).message}` });
    }
  }
  if (value !== null && typeof value === 'object' && !nestsWithin(value, MAX_DEPTH)) {
    problems.add({
      ...fileStart(file.rel),
      message: `the document nests more than ${MAX_DEPTH} levels deep`,
      hint: 'a record nests a few levels; this looks like a mistake or an attack',
    });
    value = undefined;
  }
  file.text = undefined;
  return value;
}

/**
 * Whether an object or array nests no deeper than `limit` levels (itself the first): the recursion
 * goes no deeper than `limit` + 1, whatever the document.
 */
function nestsWithin(value: object, limit: number, at = 1): boolean {
  if (at > limit) return false;
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    if (item !== null && typeof item === 'object' && !nestsWithin(item as object, limit, at + 1)) return false;
  }
  return true;
}

/** The value of a source text, or undefined with its problems. */
export function parseText(text: string, rel: string, problems: Problems): unknown {
  if (text.trim() === '') {
    problems.add({ ...fileStart(rel), message: 'the file is empty; it should hold one record' });
    return undefined;
  }
  if (rel.endsWith('.json')) return parseJson(text, rel, problems);
  if (!hasAnchor(text)) {
    try {
      return jsyaml().load(text, { schema: jsyaml().CORE_SCHEMA, filename: rel });
    } catch {} // placed and worded by `yaml` below
  }
  return parseCarefully(text, rel, problems);
}

function parseCarefully(text: string, rel: string, problems: Problems): unknown {
  const doc = yaml().parseDocument(text, { prettyErrors: false });
  for (const e of doc.errors) {
    problems.add({ file: rel, ...positionAt(text, e.pos[0]), pointer: '', message: `invalid YAML: ${e.message.split('\n')[0]}` });
  }
  if (doc.errors.length > 0) return undefined;
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (err) {
    problems.add({ ...fileStart(rel), message: `invalid YAML: ${(err as Error).message}` });
    return undefined;
  }
  // Each alias repeats what its anchor holds, within the cap on aliases: a hundred of a 4 MB string
  // made a record of 410 MB, and more past the longest string a record can be written as.
  let length: number;
  try {
    length = JSON.stringify(value)?.length ?? 0;
  } catch {
    length = Infinity;
  }
  if (length > MAX_EXPANDED) {
    const message = `the record its aliases expand to is over ${MAX_EXPANDED} characters as JSON, where the file is ${text.length}`;
    problems.add({ ...fileStart(rel), message, hint: 'an alias repeats what its anchor holds: write a large value once' });
    return undefined;
  }
  return value;
}

/** The most a document with aliases may expand to, as JSON: twice the largest file, with room for a few aliases of a large value. */
const MAX_EXPANDED = 2 * MAX_FILE_BYTES;

function parseJson(text: string, rel: string, problems: Problems): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const pos = positionAt(text, jsonErrorOffset(text));
    problems.add({ file: rel, ...pos, pointer: '', message: `invalid JSON: ${jsonMessage((err as Error).message)}` });
    return undefined;
  }
  const repeated = repeatedKey(text);
  if (repeated) {
    const message = `invalid JSON: the key ${JSON.stringify(repeated.key)} is written twice in one object`;
    problems.add({
      file: rel,
      ...positionAt(text, repeated.offset),
      pointer: '',
      message,
      hint: 'JSON would keep the last and lose the first: write each key once',
    });
    return undefined;
  }
  return value;
}

/** A JSON text's strings, each with the colon after it that makes it a key, and its braces. */
const JSON_TOKEN = /"[^"\\]*(?:\\.[^"\\]*)*"(\s*:)?|[{}]/g;

/**
 * The first key a valid JSON text writes twice in one object, and where: JSON.parse keeps the last
 * without a word, where YAML refuses a repeated key, and an author's first value would be lost.
 * Outside its strings valid JSON holds no quote, so the strings are matched in turn from the start.
 */
export function repeatedKey(text: string): { key: string; offset: number } | undefined {
  const objects: Array<Set<string>> = [];
  for (const match of text.matchAll(JSON_TOKEN)) {
    const token = match[0];
    if (token === '{') objects.push(new Set());
    else if (token === '}') objects.pop();
    else if (match[1] !== undefined) {
      const keys = objects[objects.length - 1]!;
      const key = JSON.parse(token.slice(0, token.length - match[1].length)) as string;
      if (keys.has(key)) return { key, offset: match.index };
      keys.add(key);
    }
  }
  return undefined;
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

/** Where a JSON pointer of the file's record is written (its line and column), for a problem. */
export function at(file: SourceFile, pointer: string, key = false) {
  return { file: file.rel, ...locate(placedText(file), pointer, key) };
}

/**
 * A file's text to place its problems in. The last read is kept: a file's problems are placed one
 * after another, and reading it again for each took time growing with problems × size (63,000
 * broken references in a 4 MB pokedex: 12 minutes).
 */
function placedText(file: SourceFile): string {
  if (lastPlaced?.file !== file) lastPlaced = { file, text: sourceText(file) };
  return lastPlaced.text;
}
let lastPlaced: { file: SourceFile; text: string } | undefined;

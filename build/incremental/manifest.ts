// A tree's manifest: what the tree was built from and what it holds. It is text, one entry a line,
// so that it is quick to read and write at any size, and it is read as far as a build needs: a
// rebuild with nothing changed stops after the sources, and the list of files is parsed only when
// a build asks for it.
//
//   {"format":"manifest 3","key":…,"tool":…,"settings":…,"records":{…},"fileCount":…,"previous":…}
//   s <source path> <size> <modification time> <hash>     one line per source file
//   d <file path> <hash, or nothing>                      how the other tree differs (see `diff`)
//   f <file path> <hash>                                  one line per file of the tree
//   r <source path> <hash> <id> <derived hash> <facts>    one line per record (memory.ts)
//
// Fields are separated by tabs. A path holding a tab, a newline or a leading '"' is written as a
// JSON string.
import { isAscii } from 'node:buffer';
import fs from 'node:fs/promises';
import type { Remembered, SourceFile, SourceStamp } from '../store.ts';
import { PATH_SCANS_BEFORE_INDEX } from '../tuning.ts';
import { parseMemory } from './memory.ts';

const FORMAT = 'manifest 3';

export interface ManifestHeader {
  /** What the build's inputs were: data, schemas, code and options. Same key, same tree. */
  key: string;
  /** The tool's own fingerprint (schemas and code) when the tree was built. */
  tool: string;
  /** The options the records were derived with: what they are remembered for (`memory`). */
  settings: string;
  /** Records published, by kind. */
  records: Record<string, number>;
  /** How many files the tree holds. */
  fileCount: number;
  /** The key of the other tree when this one was built ('' when there was none): `diff` is against it. */
  previous: string;
}

export interface Manifest extends ManifestHeader {
  /** The source files the tree was built from: size, modification time and hash of each (`FileList.stamped`). */
  sources: FileList;
  /**
   * The files by which the other tree, as it was when this one was built (key `previous`), differs
   * from this one: its hash of each, or '' where it lacks the file. Every other file is the same.
   */
  diff: Map<string, string>;
  /** Every file of the tree, path → hash, in the order they were written; undefined if the list is damaged. */
  files(): FileList | undefined;
  /** What the build remembered of each record, by source path; undefined if a line is damaged. */
  memory(): Map<string, Remembered> | undefined;
  /** This manifest's text, but that `previous` is as given and `diff` empty: the other tree is the same as this one. */
  restated(previous: string): string[];
}

/** Files by path, each with its hash: a manifest's list, or a map. */
export interface Files {
  readonly size: number;
  get(rel: string): string | undefined;
  has(rel: string): boolean;
}

const encode = (rel: string) => (/[\t\n\r]/.test(rel) || rel.startsWith('"') ? JSON.stringify(rel) : rel);
const decode = (field: string) => (field.startsWith('"') ? (JSON.parse(field) as string) : field);

/** The kinds of line listed by path: a tree's files, the sources it was built from, and how the other tree differs. */
type Letter = 'f' | 's' | 'd';
/** A line of `letter` for `rel`: its hash (`f`, `d`), or its size, time and hash (`s`), after the path. */
const pathLine = (letter: Letter, rel: string, rest: string) => `${letter}\t${encode(rel)}\t${rest}\n`;
/** What an `s` line gives after its path; `FileList.stamped` reads it back. */
export const stampText = ([size, mtimeMs, hash]: SourceStamp) => `${size}\t${mtimeMs}\t${hash}`;

/**
 * The manifest's text, in the pieces it is made of: joined whole, a scale-10 manifest (36 MB) and
 * its copies made a full build's peak of memory (docs/PERFORMANCE.md, "The manifest written in
 * pieces"). `sources` and `files`: as pairs, or as their lines, written already (`Lines`, or a list
 * read from a manifest). `memory`: the `r` lines, written already (memory.ts).
 */
export function formatManifest(
  m: Omit<ManifestHeader, 'fileCount'> & {
    sources: Iterable<[string, SourceStamp]> | Lines;
    diff: Map<string, string>;
    files: Iterable<[string, string]> | Lines | FileList;
    memory: ReadonlyArray<string | Buffer>;
  },
): Array<string | Buffer> {
  const { key, tool, settings, records, previous } = m;
  const sources = m.sources instanceof Lines ? m.sources : linesOf('s', m.sources, stampText);
  const files = m.files instanceof Lines || m.files instanceof FileList ? m.files : linesOf('f', m.files, (hash) => hash);
  const header = JSON.stringify({ format: FORMAT, key, tool, settings, records, fileCount: files.size, previous }) + '\n';
  const pieces: Array<string | Buffer> = [header, ...sources.pieces()];
  for (const [rel, hash] of m.diff) pieces.push(pathLine('d', rel, hash));
  for (const piece of files.pieces()) pieces.push(piece);
  for (const piece of m.memory) pieces.push(piece);
  return pieces;
}

/**
 * The `s` lines of `files`: for each file whose stamp is as a line of `live` gives it (`stampLine`),
 * that line, taken as it is; a new line for each other file.
 */
export function sourceLines(files: readonly SourceFile[], live: FileList | undefined): Lines {
  const lines = new Lines('s');
  for (const f of files) {
    if (live && f.stampLine !== undefined) lines.take(live, f.stampLine);
    else lines.add(f.rel, stampText([f.size, f.mtimeMs, f.hash ?? '']));
  }
  return lines;
}

function linesOf<T>(letter: Letter, pairs: Iterable<[string, T]>, rest: (value: T) => string): Lines {
  const lines = new Lines(letter);
  for (const [rel, value] of pairs) lines.add(rel, rest(value));
  return lines;
}

/**
 * A tree's files (or the sources it was built from) as its manifest lists them, in order, read from
 * the manifest's text where they lie: no string is made for a line until it is asked for. Looked up
 * by path, it answers at once when asked in the order the lines are listed, as a rebuild asks (what
 * follows the last line found, the line after that, or that line again); otherwise it searches the
 * text (`search`).
 */
export class FileList implements Files {
  readonly size: number;
  /** Where each line starts (at its path, after the letter and tab), and where its hash starts (after the tab). */
  private readonly starts: Int32Array;
  private readonly hashes: Int32Array;
  private next = 0;
  private index?: Map<string, number>;

  /**
   * Undefined unless `text` is `count` well-formed lines of `letter`, each ended by a newline. An `s`
   * line's "hash" is all it gives after its path: size, time and hash.
   */
  static parse(text: string, count: number, letter: Letter = 'f'): FileList | undefined {
    if (text !== '' && !text.endsWith('\n')) return undefined;
    const code = letter.charCodeAt(0);
    // After the path's tab, the fields an `s` line has before its hash.
    const inner = letter === 's' ? 2 : 0;
    const starts = new Int32Array(count + 1);
    const hashes = new Int32Array(count);
    let n = 0;
    for (let at = 0; at < text.length;) {
      const nl = text.indexOf('\n', at);
      const tab = text.indexOf('\t', at + 2);
      if (n === count || text.charCodeAt(at) !== code || text.charCodeAt(at + 1) !== 9 || tab < 0 || tab > nl) return undefined;
      // The line's last tab is the one before its hash.
      let field = tab;
      for (let k = 0; k < inner && field >= 0; k++) field = text.indexOf('\t', field + 1);
      if (field < 0 || text.lastIndexOf('\t', nl - 1) !== field) return undefined;
      starts[n] = at + 2;
      hashes[n++] = tab + 1;
      at = nl + 1;
    }
    if (n !== count) return undefined;
    starts[n] = text.length + 2; // where the path of a line after the last would start
    const list = new FileList(text, starts, hashes, letter);
    // A path written as a JSON string must read as one.
    try {
      for (let i = 0; i < n; i++) if (text.charCodeAt(starts[i]!) === 0x22 /* " */) list.rel(i);
    } catch {
      return undefined;
    }
    return list;
  }

  private constructor(
    private readonly source: string,
    starts: Int32Array,
    hashes: Int32Array,
    private readonly letter: Letter,
  ) {
    this.starts = starts;
    this.hashes = hashes;
    this.size = hashes.length;
  }

  rel(i: number): string {
    return decode(this.source.slice(this.starts[i]!, this.hashes[i]! - 1));
  }
  hash(i: number): string {
    return this.source.slice(this.hashes[i]!, this.starts[i + 1]! - 3);
  }
  /** For an `s` line: its hash, if the size and time it gives are these. */
  stamped(i: number, size: number, mtimeMs: number): string | undefined {
    const fields = `${size}\t${mtimeMs}\t`;
    const at = this.hashes[i]!;
    return this.source.startsWith(fields, at) ? this.source.slice(at + fields.length, this.starts[i + 1]! - 3) : undefined;
  }
  /** Lines `from` to `to` (not included), as they are written. */
  lines(from: number, to: number): string {
    return this.source.slice(this.starts[from]! - 2, this.starts[to]! - 2);
  }

  private at(i: number, rel: string): boolean {
    if (i < 0 || i >= this.size) return false;
    const start = this.starts[i]!;
    return this.hashes[i]! - 1 - start === rel.length && this.source.startsWith(rel, start);
  }
  /** The line of `rel`, or -1. */
  indexOf(rel: string): number {
    const i = this.next;
    // The next line, or the one after it: a kind's NDJSON file asks for its records' id paths,
    // listed each with its name path after it.
    const next = this.at(i, rel) ? i : this.at(i + 1, rel) ? i + 1 : -1;
    if (next >= 0) {
      this.next = next + 1;
      return next;
    }
    if (this.at(i - 1, rel)) return i - 1;
    const found = this.search(rel);
    if (found >= 0) this.next = found + 1;
    return found;
  }
  /**
   * A path asked out of order: the first few are looked for in the text (a few milliseconds each at a
   * quarter of a million lines), the rest in an index of every path, made then.
   */
  private search(rel: string): number {
    if (!this.index && ++this.misses > PATH_SCANS_BEFORE_INDEX) {
      this.index = new Map();
      for (let line = 0; line < this.size; line++) this.index.set(this.rel(line), line);
    }
    if (this.index) return this.index.get(rel) ?? -1;
    const needle = `${this.letter}\t${encode(rel)}\t`;
    let at = 0;
    if (!this.source.startsWith(needle)) {
      at = this.source.indexOf(`\n${needle}`) + 1;
      if (at === 0) return -1;
    }
    // The line that starts there.
    let low = 0;
    let high = this.size - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.starts[mid]! < at + 2) low = mid + 1;
      else high = mid;
    }
    return low;
  }
  private misses = 0;
  get(rel: string): string | undefined {
    const i = this.indexOf(rel);
    return i < 0 ? undefined : this.hash(i);
  }
  has(rel: string): boolean {
    return this.indexOf(rel) >= 0;
  }
  *keys(): Generator<string> {
    for (let i = 0; i < this.size; i++) yield this.rel(i);
  }
  *[Symbol.iterator](): Generator<[string, string]> {
    for (let i = 0; i < this.size; i++) yield [this.rel(i), this.hash(i)];
  }
  /** The size of every file listed, in bytes: the sum of the sizes their hashes begin with. */
  bytes(): number {
    let total = 0;
    for (let i = 0; i < this.size; i++) total += parseInt(this.hash(i), 10);
    return total;
  }
  /** Every line, as written. */
  text(): string {
    return this.lines(0, this.size);
  }
  pieces(): string[] {
    return [this.text()];
  }
}

/**
 * A list of files (or sources) being made, as its manifest will list it: lines of its own, and runs
 * of a list's lines taken as they are (`take`), which cost nothing per line. Its text is made when
 * asked for.
 */
export class Lines {
  constructor(private readonly letter: Letter = 'f') {}
  size = 0;
  private readonly rels: string[] = [];
  private readonly hashes: string[] = [];
  /** Runs of lines taken from a list, each after `at` files of its own. */
  private readonly runs: Array<{ list: FileList; first: number; end: number; at: number }> = [];

  add(rel: string, hash: string): void {
    this.rels.push(rel);
    this.hashes.push(hash);
    this.size++;
  }
  /** Lines `first` to `end` (not included) of `list`: by default, line `first` alone. */
  take(list: FileList, first: number, end = first + 1): void {
    if (end <= first) return;
    const run = this.runs.at(-1);
    if (run && run.list === list && run.end === first && run.at === this.rels.length) run.end = end;
    else this.runs.push({ list, first, end, at: this.rels.length });
    this.size += end - first;
  }
  /** The lines, a line or a run of lines a piece. */
  pieces(): string[] {
    const parts: string[] = [];
    let own = 0;
    const ownUpTo = (at: number) => {
      for (; own < at; own++) parts.push(pathLine(this.letter, this.rels[own]!, this.hashes[own]!));
    };
    for (const run of this.runs) {
      ownUpTo(run.at);
      parts.push(run.list.lines(run.first, run.end));
    }
    ownUpTo(this.rels.length);
    return parts;
  }
  text(): string {
    return this.pieces().join('');
  }
  /** The list, read back: for lookups and for going through it. */
  read(): FileList {
    return FileList.parse(this.text(), this.size, this.letter)!;
  }
}

/**
 * The manifest in `bytes`, or undefined if it is not one this build can read. The bytes are decoded
 * only as far as the last `s` or `d` line; the `f` and `r` lines, most of a large manifest, when a
 * build asks for them: a no-op never does.
 */
export function manifestOf(bytes: Buffer): Manifest | undefined {
  const at = pathLinesEnd(bytes);
  if (at < bytes.length && !fileOrMemory(bytes[at]!)) return undefined;
  // Most manifests are ASCII, which is read into a string in a quarter of UTF-8's time: a dev loop reads one each save.
  const rest = () => (isAscii(bytes.subarray(at)) ? bytes.toString('latin1', at) : bytes.toString('utf8', at));
  // A rest of one byte a character (the text's length is the bytes'): a rebuild writes its kept lines from these bytes.
  return parseManifest(bytes.toString('utf8', 0, at), rest, (text) => (text.length === bytes.length - at ? bytes.subarray(at) : undefined));
}

/**
 * The manifest whose header, `s` and `d` lines are `text`, and whose `f` and `r` lines `rest`
 * decodes; `restBytes` gives their bytes if each character of the text is one.
 */
function parseManifest(text: string, rest: () => string, restBytes: (text: string) => Buffer | undefined): Manifest | undefined {
  const end = text.indexOf('\n');
  const header = parseHeader(end < 0 ? text : text.slice(0, end));
  if (!header || end < 0) return undefined;
  // The `s` lines, one per source, read as a list of lines (FileList): a line's fields are read
  // where they lie when its file is looked up.
  const sources = linesAt(text, end + 1, 's');
  const diff = sources && linesAt(text, sources.end, 'd');
  if (!sources || !diff || diff.end !== text.length) return undefined;
  let later: string | undefined;
  const tail = () => (later ??= rest());
  // The `f` lines end where the `r` lines start (a path holding a newline is a JSON string); found
  // only when either is asked for, as a no-op asks for neither.
  let memoryStart: number | undefined;
  const memoryAt = () => (memoryStart ??= tail().startsWith('r\t') ? 0 : tail().indexOf('\nr\t') + 1 || tail().length);
  let files: FileList | undefined | null;
  let memory: Map<string, Remembered> | undefined | null;
  // The `f` lines; no list unless they are as many as the header says (a list cut short, or edited).
  return {
    ...header,
    sources: sources.list,
    diff: new Map(diff.list),
    files: () =>
      (files === undefined ? (files = FileList.parse(tail().slice(0, memoryAt()), header.fileCount) ?? null) : files) ?? undefined,
    memory: () => (memory === undefined ? (memory = parseMemory(tail(), memoryAt(), restBytes(tail())) ?? null) : memory) ?? undefined,
    restated: (previous) => [JSON.stringify({ format: FORMAT, ...header, previous }) + '\n', text.slice(end + 1, sources.end), tail()],
  };
}

/** The lines of `letter` from `at` on, as a list, and where they end; undefined if one is damaged. */
function linesAt(text: string, at: number, letter: Letter): { list: FileList; end: number } | undefined {
  let end = at;
  let count = 0;
  for (; text.charCodeAt(end) === letter.charCodeAt(0); count++) {
    end = text.indexOf('\n', end) + 1;
    if (end === 0) return undefined;
  }
  const list = FileList.parse(text.slice(at, end), count, letter);
  return list && { list, end };
}

function parseHeader(line: string): ManifestHeader | undefined {
  try {
    const h = JSON.parse(line);
    return h?.format === FORMAT &&
      typeof h.key === 'string' &&
      typeof h.tool === 'string' &&
      typeof h.settings === 'string' &&
      typeof h.previous === 'string' &&
      Number.isInteger(h.fileCount) &&
      h.records &&
      typeof h.records === 'object'
      ? { key: h.key, tool: h.tool, settings: h.settings, records: h.records, fileCount: h.fileCount, previous: h.previous }
      : undefined;
  } catch {
    return undefined;
  }
}

/** The manifest in `file` (`manifestOf`), or undefined if there is none this build can read. */
export async function readManifest(file: string): Promise<Manifest | undefined> {
  const bytes = await fs.readFile(file).catch(() => undefined);
  return bytes === undefined ? undefined : manifestOf(bytes);
}

/** Whether a line starting with `code` is an `f` or an `r` line: the only lines after the `s` and `d` lines. */
const fileOrMemory = (code: number) => code === 0x66 /* f */ || code === 0x72; /* r */

/** Where the lines after the header that start with `s` or `d` end, in a manifest's bytes. */
function pathLinesEnd(bytes: Buffer): number {
  let at = bytes.indexOf(0x0a) + 1;
  while (at > 0 && at < bytes.length && (bytes[at] === 0x73 /* s */ || bytes[at] === 0x64) /* d */) at = bytes.indexOf(0x0a, at) + 1;
  return at > 0 ? at : bytes.length;
}

/** Only the first line of a manifest: enough to know which build made the tree. */
export async function readManifestHeader(file: string): Promise<ManifestHeader | undefined> {
  const handle = await fs.open(file).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const chunk = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, 0);
    const text = chunk.toString('utf8', 0, bytesRead);
    const end = text.indexOf('\n');
    return end < 0 ? undefined : parseHeader(text.slice(0, end));
  } finally {
    await handle.close();
  }
}

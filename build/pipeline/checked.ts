// Records checked by an earlier build, kept in the cache (cache.mjs, area `records`) by the bytes
// and path of their source and the tool that checked them, for builds with no live tree to remember
// them by: a first build, `--check`, a `--plain` deploy, a CI run that restores the cache. A record
// found here is parsed from its JSON, not from YAML, and taken only if the build would have kept it
// so: it passes its source schema, is named after its file and has an id, and its JSON is what the
// build writes for it. The cache checks the entry against the hash it was written with, but a
// folder restored from elsewhere can be edited, hash and all; a line that fails is a miss, and its
// file is checked anew. A source that changed is checked as ever.
//
// One entry per kind and tool, a line per record (`path`, `hash`, the record as JSON, by tabs): a
// file per record would double the files a first build writes. A kind's entry is rewritten when a
// build checked a record of it anew or no longer has one it held, so it holds the world's records
// of that kind and no more.
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { Cache } from '../cache.mjs';
import { isSlug } from '../guard.mjs';
import { hashText } from '../hash.ts';
import { cacheArea } from '../paths.ts';
import { readUnhashed } from './parse.ts';
import { serialise } from './serialise.ts';
import type { ValidatorSet } from '../schemas/validators.ts';
import type { Data, SourceFile } from '../store.ts';

const FILE = 'records';
/** Tools (versions of the build and its schemas) whose records are kept, for each kind. */
const TOOLS_KEPT = 4;

/** A kind's records as found in the cache and as this build checked them. */
interface KindRecords {
  /** The cache's lines, by key: read when first asked for (a checking thread may have read them instead). */
  found?: Lines;
  /** How many lines the cache held, as the thread that read them told. */
  foundSize?: number;
  /** Lines for the records of this build, by their key. */
  now: Map<string, string>;
  /** A record was checked anew, or the cache held one this build has no file for. */
  changed: boolean;
}

/** What a checking thread needs to read the cache as the build's thread would (`CheckedRecords.reader`). */
export interface CacheAt {
  tool: string;
  kindCount: number;
  dir: string;
}

export class CheckedRecords {
  private readonly cache: Cache;
  private readonly kinds = new Map<string, KindRecords>();
  /** Records taken from the cache by this build. */
  taken = 0;

  constructor(
    private readonly tool: string,
    private readonly kindCount: number,
    private readonly dir = cacheArea('records'),
    /** Whether the records taken are kept for `save` (a checking thread only reads: the build's thread keeps). */
    private readonly keeps = true,
  ) {
    this.cache = new Cache(dir, TOOLS_KEPT * kindCount);
  }

  /** Where a checking thread reads this cache from. */
  get at(): CacheAt {
    return { tool: this.tool, kindCount: this.kindCount, dir: this.dir };
  }

  /** A checking thread's reading of the cache: it takes records, and the build's thread keeps them (`took`). */
  static reader({ tool, kindCount, dir }: CacheAt): CheckedRecords {
    return new CheckedRecords(tool, kindCount, dir, false);
  }

  /** How many lines the cache held for a kind this reader read (for the build's thread's `save`). */
  foundSize(kind: string): number {
    return this.kinds.get(kind)?.foundSize ?? 0;
  }

  /**
   * Lets go of the lines of every kind but `kinds`: a thread is given files in their order, so a
   * kind it has passed does not come again (if one did, its lines would be read again).
   */
  keepOnly(kinds: ReadonlySet<string>): void {
    for (const kind of this.kinds.keys()) if (!kinds.has(kind)) this.kinds.delete(kind);
  }

  /** A record a checking thread took from the cache for this file, as `take` keeps one here. */
  took(file: SourceFile, json: string, foundSize: number): void {
    const key = keyOf(file);
    if (key === undefined) return;
    const records = this.records(file.kind);
    records.foundSize ??= foundSize;
    records.now.set(key, json);
    this.taken++;
  }

  /**
   * The record checked before from this file's bytes (read and hashed now, if not yet), parsed and
   * as JSON, if it passes the checks a record of the kind passed (`validators`). One that does not
   * is dropped from the cache.
   */
  take(file: SourceFile, validators: ValidatorSet): { data: Data; json: string } | undefined {
    readUnhashed([file]);
    const key = keyOf(file);
    if (key === undefined) return undefined;
    const records = this.of(file.kind);
    const json = records.found.get(key);
    if (json === undefined) return undefined;
    const data = asChecked(json, file, validators.get(file.kind));
    if (!data) {
      records.found.delete(key);
      records.changed = true;
      return undefined;
    }
    if (this.keeps) records.now.set(key, json);
    this.taken++;
    return { data, json };
  }

  /** A record checked now, with no problem, as JSON. */
  keep(file: SourceFile, json: string): void {
    const key = keyOf(file);
    if (key === undefined || !this.keeps) return;
    const records = this.records(file.kind);
    records.now.set(key, json);
    records.changed = true;
  }

  /**
   * Writes the kinds whose records differ from the cache's; one that cannot be written is left out.
   * The area is pruned once, after them: pruning looks at every entry, and a first build writes an
   * entry for each kind.
   */
  save(): void {
    let wrote = false;
    for (const [kind, records] of this.kinds) {
      if (!records.changed && records.now.size === (records.found?.size ?? records.foundSize)) continue;
      this.cache.write(this.entryKey(kind), [[FILE, lines(records.now)]], true, false);
      wrote = true;
    }
    if (wrote) this.cache.prune();
  }

  private records(kind: string): KindRecords {
    let records = this.kinds.get(kind);
    if (!records) this.kinds.set(kind, (records = { now: new Map(), changed: false }));
    return records;
  }

  /** A kind's records, with the cache's lines read. */
  private of(kind: string): KindRecords & { found: Lines } {
    const records = this.records(kind);
    records.found ??= new Lines(this.cache.read(this.entryKey(kind), FILE));
    records.foundSize ??= records.found.size;
    return records as KindRecords & { found: Lines };
  }

  private entryKey(kind: string): string {
    return hashText(`${this.tool}\n${kind}`);
  }
}

/**
 * The record a line holds, if the build would have kept it so for this file: an object that passes
 * its kind's source schema (which fills in no default, as the record kept had them all), named
 * after its file, with an id, and whose JSON, keys in order (serialise.ts), is the line's (a record
 * kept is written as it was checked).
 */
function asChecked(json: string, file: SourceFile, check: ValidateFunction | undefined): Data | undefined {
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!check || data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const record = data as Data;
  // The id's range is the kind's, which its source schema holds it to: a few kinds start at 0 or -1, as PokeAPI's do.
  const named = isSlug(record.name) && record.name === file.stem && Number.isInteger(record.id);
  return named && check(record) && serialise(record) === json ? record : undefined;
}

/** A record's key: its source's path and hash (a record is named after its file, so the path counts). */
function keyOf(file: SourceFile): string | undefined {
  if (file.hash === undefined || /[\t\n]/.test(file.rel)) return undefined;
  return `${file.rel}\t${file.hash}`;
}

/**
 * A line per record: `key`, a tab, its JSON. The cache writes them a batch at a time: a kind's lines
 * joined whole can pass the longest string V8 makes (half a gigabyte, the location areas of a
 * scale-100 world).
 */
function* lines(records: Map<string, string>): Generator<string> {
  for (const [key, json] of records) yield `${key}\t${json}\n`;
}

/**
 * A kind's entry, a line per record: each line's key is read at once, its JSON only when asked for,
 * from the entry's bytes (the whole may be longer than a string can be, and a checking thread takes
 * only its share of the records). A line cut short (the entry is whole, but a disk may lie) is left out.
 */
class Lines {
  /** Where each line's JSON starts, by its key; it ends at the line's end. */
  private readonly starts = new Map<string, number>();

  constructor(private readonly bytes: Buffer = Buffer.alloc(0)) {
    for (let at = 0; at < bytes.length;) {
      const nl = bytes.indexOf(0x0a, at);
      if (nl < 0) break;
      // The second tab: a key is a path and a hash.
      const tab = bytes.indexOf(0x09, bytes.indexOf(0x09, at) + 1);
      if (tab > at && tab < nl) this.starts.set(bytes.toString('utf8', at, tab), tab + 1);
      at = nl + 1;
    }
  }

  get size(): number {
    return this.starts.size;
  }

  get(key: string): string | undefined {
    const start = this.starts.get(key);
    return start === undefined ? undefined : this.bytes.toString('utf8', start, this.bytes.indexOf(0x0a, start));
  }

  delete(key: string): void {
    this.starts.delete(key);
  }
}

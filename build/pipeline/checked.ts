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
import type { ValidatorSet } from '../schemas/validators.ts';
import type { Data, SourceFile } from '../store.ts';

const FILE = 'records';
/** Tools (versions of the build and its schemas) whose records are kept, for each kind. */
const TOOLS_KEPT = 4;

/** A kind's records as found in the cache and as this build checked them. */
interface KindRecords {
  found: Map<string, string>;
  /** Lines for the records of this build, by their key. */
  now: Map<string, string>;
  /** A record was checked anew, or the cache held one this build has no file for. */
  changed: boolean;
}

export class CheckedRecords {
  private readonly cache: Cache;
  private readonly kinds = new Map<string, KindRecords>();
  /** Records taken from the cache by this build. */
  taken = 0;

  constructor(
    private readonly tool: string,
    kindCount: number,
    dir = cacheArea('records'),
  ) {
    this.cache = new Cache(dir, TOOLS_KEPT * kindCount);
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
    records.now.set(key, json);
    this.taken++;
    return { data, json };
  }

  /**
   * Whether the cache holds this file's record (`take` gives it): the file is read and hashed to
   * know, when the cache holds records of its kind (a file the cache cannot have is left unread).
   */
  has(file: SourceFile): boolean {
    const { found } = this.of(file.kind);
    if (found.size === 0) return false;
    readUnhashed([file]);
    const key = keyOf(file);
    return key !== undefined && found.has(key);
  }

  /** A record checked now, with no problem, as JSON. */
  keep(file: SourceFile, json: string): void {
    const key = keyOf(file);
    if (key === undefined) return;
    const records = this.of(file.kind);
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
      if (!records.changed && records.now.size === records.found.size) continue;
      this.cache.write(this.entryKey(kind), [[FILE, lines(records.now)]], true, false);
      wrote = true;
    }
    if (wrote) this.cache.prune();
  }

  private of(kind: string): KindRecords {
    let records = this.kinds.get(kind);
    if (!records) {
      records = { found: parseLines(this.cache.read(this.entryKey(kind), FILE)), now: new Map(), changed: false };
      this.kinds.set(kind, records);
    }
    return records;
  }

  private entryKey(kind: string): string {
    return hashText(`${this.tool}\n${kind}`);
  }
}

/**
 * The record a line holds, if the build would have kept it so for this file: an object that passes
 * its kind's source schema (which fills in no default, as the record kept had them all), named
 * after its file, with an id, and whose JSON is the line's (a record kept is written as it was
 * checked).
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
  return named && check(record) && JSON.stringify(record) === json ? record : undefined;
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
 * The lines of a kind's entry, read line by line from its bytes (the whole may be longer than a
 * string can be); a line cut short (the entry is whole, but a disk may lie) is left out.
 */
function parseLines(bytes: Buffer | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!bytes) return out;
  for (let at = 0; at < bytes.length;) {
    const nl = bytes.indexOf(0x0a, at);
    if (nl < 0) break;
    const line = bytes.toString('utf8', at, nl);
    const tab = line.indexOf('\t', line.indexOf('\t') + 1); // the second: a key is a path and a hash
    if (tab > 0) out.set(line.slice(0, tab), line.slice(tab + 1));
    at = nl + 1;
  }
  return out;
}

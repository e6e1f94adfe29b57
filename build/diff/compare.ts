// What a change does to the published API: two built API folders in, one value out. Records are
// matched by kind and id (an id never changes; a name may), so a record is added, removed, renamed
// or changed. Breaking is what a client that worked before can trip on: a url that answered and no
// longer does, and a key a record had that it no longer has.
import fs from 'node:fs';
import path from 'node:path';
import microdiff, { type Difference } from 'microdiff';
import { readInside } from '../guard.mjs';
import { apiPaths, META, parseRecordUrl } from '../paths.ts';
import { pointerOf, visible } from '../report/problems.ts';

export interface RecordKey {
  id: number;
  name: string;
}
export interface Renamed {
  id: number;
  from: string;
  to: string;
}
/** One value that differs, at its JSON pointer; `before` is absent for a key added, `after` for one removed. */
export interface FieldChange {
  pointer: string;
  before?: unknown;
  after?: unknown;
}
export interface RecordChange extends RecordKey {
  changes: FieldChange[];
  /** Pointers of keys the record had and no longer has (an array's lost elements are not keys). */
  removedFields: string[];
}
export interface KindDiff {
  kind: string;
  added: RecordKey[];
  removed: RecordKey[];
  renamed: Renamed[];
  changed: RecordChange[];
}
/** A path that answered before and no longer does; `kind` when it is under a kind's folder. */
export interface GoneUrl {
  path: string;
  url: string;
  kind?: string;
  why: string;
}
export interface RemovedField extends RecordKey {
  kind: string;
  pointer: string;
}
export interface ApiDiff {
  baseUrl: string;
  kinds: KindDiff[];
  breaking: { urls: GoneUrl[]; fields: RemovedField[] };
}

/** A built API folder as the diff reads it: the records' ids and names per kind, and every path it serves. */
interface ApiFolder {
  dir: string;
  baseUrl: string;
  kinds: Map<string, Map<number, string>>;
  paths: Set<string>;
}

/** The folders whose files are urls of the API; the rest (the explorer's hashed assets, hosts' rules) are not. */
const SERVED = ['api', 'schema', 'sprites', 'media'];

/**
 * A folder that is not a whole built API where the diff reads it (a build stopped halfway, a file
 * cut short or edited): `detail` says which file and what is wrong with it.
 */
export class NotAnApi extends Error {
  constructor(
    readonly dir: string,
    readonly detail: string,
  ) {
    super(`${dir}: not a whole built API: ${detail}`);
  }
}

/**
 * Past this a file of a built API is no file the build wrote; it is refused rather than read. The
 * lists of a large world are far larger than a source record, so the source files' limit is not this.
 */
const MAX_API_FILE_BYTES = 256 * 1024 * 1024;

/** The text of `rel` in the built API at `dir`: a regular file inside it, under the limit; or NotAnApi. */
function readText(dir: string, rel: string): string {
  let read: { bytes: Buffer } | { why: string };
  try {
    read = readInside(dir, path.join(dir, rel), MAX_API_FILE_BYTES);
  } catch (err) {
    read = { why: `could not be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
  if ('why' in read) throw new NotAnApi(dir, `${rel} ${read.why}`);
  return read.bytes.toString('utf8');
}

/** `text`, the file `rel` of the built API at `dir`, parsed; NotAnApi when it is not JSON. */
function parseJson(dir: string, rel: string, text = readText(dir, rel)): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    // The parser's message quotes the text it choked on, which may hold any character.
    throw new NotAnApi(dir, `${rel} is not JSON (${visible((err as Error).message)})`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A built API's index and the address its urls start with; NotAnApi when `dir` holds none, or a broken one. */
function readIndex(dir: string): { index: Record<string, string>; baseUrl: string } {
  if (!fs.existsSync(path.join(dir, apiPaths.index))) throw new NotAnApi(dir, `the folder holds no built API (no ${apiPaths.index})`);
  const index = parseJson(dir, apiPaths.index);
  const urls = isObject(index) ? Object.values(index) : [];
  const first = typeof urls[0] === 'string' ? urls[0] : '';
  const at = first.indexOf('/api/v2/');
  if (at <= 0 || urls.some((url) => typeof url !== 'string'))
    throw new NotAnApi(dir, `${apiPaths.index} is not an index the build writes (each kind mapped to its list's url)`);
  return { index: index as Record<string, string>, baseUrl: first.slice(0, at) };
}

/** The address a built API's urls start with, read from its index; NotAnApi when `dir` holds no built API. */
export const apiBaseUrl = (dir: string): string => readIndex(dir).baseUrl;

function readApiFolder(dir: string): ApiFolder {
  const { index, baseUrl } = readIndex(dir);
  // `meta` is in the index, as PokeAPI's is, but no kind: its date and hash differ between any two builds of different inputs.
  const kinds = new Map(
    Object.keys(index)
      .filter((kind) => kind !== META)
      .map((kind) => [kind, readList(dir, baseUrl, kind)]),
  );
  return { dir, baseUrl, kinds, paths: servedPaths(dir) };
}

/** A kind's records, id to name, in the list's order (by id). */
function readList(dir: string, baseUrl: string, kind: string): Map<number, string> {
  const rel = apiPaths.list(kind);
  const list = parseJson(dir, rel);
  const results = isObject(list) && Array.isArray(list.results) ? list.results : undefined;
  if (!results?.every((r) => isObject(r) && typeof r.url === 'string' && (r.name === undefined || typeof r.name === 'string')))
    throw new NotAnApi(dir, `${rel} is not a list the build writes ({results: [{name, url}, …]})`);
  const records = new Map<number, string>();
  for (const { name, url } of results as { name?: string; url: string }[]) {
    const ref = parseRecordUrl(baseUrl, url);
    if (ref) records.set(ref.id, name!); // a characteristic publishes no name
  }
  return records;
}

/** Every path the folder answers, as a client asks for it: `api/v2/type/fire/` for `api/v2/type/fire/index.json`. */
function servedPaths(dir: string): Set<string> {
  const paths = new Set<string>();
  for (const top of SERVED) {
    if (!fs.existsSync(path.join(dir, top))) continue;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(dir, top), { recursive: true, withFileTypes: true });
    } catch (err) {
      throw new NotAnApi(dir, `${top} cannot be listed (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const rel = path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
      paths.add(rel.endsWith('/index.json') ? rel.slice(0, -'index.json'.length) : rel);
    }
  }
  return paths;
}

/** The two folders compared: what the API at `afterDir` does to a client of the one at `beforeDir`. */
export function diffFolders(beforeDir: string, afterDir: string): ApiDiff {
  const before = readApiFolder(beforeDir);
  const after = readApiFolder(afterDir);
  const names = [...new Set([...after.kinds.keys(), ...before.kinds.keys()])];
  const kinds = names.map((kind) => diffKind(kind, before, after)).filter(hasChanges);
  const fields = kinds.flatMap((k) =>
    k.changed.flatMap((r) => r.removedFields.map((pointer) => ({ kind: k.kind, id: r.id, name: r.name, pointer }))),
  );
  return { baseUrl: after.baseUrl, kinds, breaking: { urls: goneUrls(before, after, kinds), fields } };
}

const hasChanges = (k: KindDiff) => k.added.length + k.removed.length + k.renamed.length + k.changed.length > 0;

function diffKind(kind: string, before: ApiFolder, after: ApiFolder): KindDiff {
  const was = before.kinds.get(kind) ?? new Map<number, string>();
  const now = after.kinds.get(kind) ?? new Map<number, string>();
  const key = ([id, name]: [number, string]): RecordKey => ({ id, name });
  const kept = [...now].filter(([id]) => was.has(id));
  return {
    kind,
    added: [...now].filter(([id]) => !was.has(id)).map(key),
    removed: [...was].filter(([id]) => !now.has(id)).map(key),
    renamed: kept.filter(([id, name]) => was.get(id) !== name).map(([id, to]) => ({ id, from: was.get(id)!, to })),
    changed: kept.flatMap(([id, name]) => recordChange(kind, { id, name }, before.dir, after.dir) ?? []),
  };
}

/** How one record differs between the folders, or undefined when its bytes are the same. */
function recordChange(kind: string, key: RecordKey, beforeDir: string, afterDir: string): RecordChange | undefined {
  const rel = apiPaths.record(kind, key.id);
  const [was, now] = [readText(beforeDir, rel), readText(afterDir, rel)];
  if (was === now) return undefined;
  const record = (dir: string, text: string) => {
    const value = parseJson(dir, rel, text);
    if (!isObject(value)) throw new NotAnApi(dir, `${rel} is not a record (a JSON object)`);
    return value;
  };
  const differences = microdiff(record(beforeDir, was), record(afterDir, now));
  if (differences.length === 0) return undefined; // the same record, written otherwise (indented, say)
  return { ...key, changes: differences.map(fieldChange), removedFields: differences.flatMap(removedFields) };
}

function fieldChange(d: Difference): FieldChange {
  const pointer = pointerOf(d.path);
  if (d.type === 'CREATE') return { pointer, after: d.value };
  if (d.type === 'REMOVE') return { pointer, before: d.oldValue };
  return { pointer, before: d.oldValue, after: d.value };
}

/** The keys a difference takes away: a key removed from an object, or every key of an object replaced by a non-object. */
function removedFields(d: Difference): string[] {
  if (d.type === 'REMOVE') return typeof d.path.at(-1) === 'string' ? [pointerOf(d.path)] : [];
  if (d.type === 'CHANGE' && isObject(d.oldValue) && !isObject(d.value))
    return Object.keys(d.oldValue).map((k) => pointerOf([...d.path, k]));
  return [];
}

/** The paths the folder before answered that the one after does not, each with the reason a reader will look for. */
function goneUrls(before: ApiFolder, after: ApiFolder, kinds: KindDiff[]): GoneUrl[] {
  const byKind = new Map(kinds.map((k) => [k.kind, k]));
  return [...before.paths]
    .filter((p) => !after.paths.has(p))
    .sort()
    .map((p) => {
      // A kind's list, a record, or a record's sub-resource (a creature's encounters).
      const m = /^api\/v2\/([^/]+)\/(?:([^/]+)\/(?:[^/]+\/)?)?$/.exec(p);
      const url = `${before.baseUrl}/${p}`;
      if (!m) return { path: `/${p}`, url, why: 'no longer published' };
      return { path: `/${p}`, url, kind: m[1]!, why: whyGone(m[1]!, m[2], byKind.get(m[1]!)) };
    });
}

function whyGone(kind: string, key: string | undefined, diff: KindDiff | undefined): string {
  if (key === undefined) return `the kind ${kind} is no longer published`;
  const removed = diff?.removed.find((r) => String(r.id) === key || r.name === key);
  if (removed) return `${kind} ${removed.name} (${removed.id}) was removed`;
  const renamed = diff?.renamed.find((r) => r.from === key);
  if (renamed) return `${kind} ${renamed.id} was renamed ${renamed.from} → ${renamed.to}`;
  return 'no longer published';
}

export const isBreaking = (diff: ApiDiff) => diff.breaking.urls.length + diff.breaking.fields.length > 0;

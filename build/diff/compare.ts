// What a change does to the published API: two built API folders in, one value out. Records are
// matched by kind and id (an id never changes; a name may), so a record is added, removed, renamed
// or changed. Breaking is what a client that worked before can trip on: a url that answered and no
// longer does, and a key a record had that it no longer has.
import fs from 'node:fs';
import path from 'node:path';
import microdiff, { type Difference } from 'microdiff';
import { apiPaths, parseRecordUrl } from '../paths.ts';
import { pointerOf } from '../report/problems.ts';

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
const SERVED = ['api', 'schema', 'sprites'];

/** A built API's index and the address its urls start with; undefined when `dir` holds no built API. */
function readIndex(dir: string): { index: Record<string, string>; baseUrl: string } | undefined {
  let index: Record<string, string>;
  try {
    index = JSON.parse(fs.readFileSync(path.join(dir, apiPaths.index), 'utf8'));
  } catch {
    return undefined;
  }
  const first = Object.values(index)[0];
  const at = typeof first === 'string' ? first.indexOf('/api/v2/') : -1;
  return at > 0 ? { index, baseUrl: first!.slice(0, at) } : undefined;
}

/** The address a built API's urls start with, read from its index; undefined when `dir` holds no built API. */
export const apiBaseUrl = (dir: string): string | undefined => readIndex(dir)?.baseUrl;

function readApiFolder(dir: string): ApiFolder {
  const read = readIndex(dir);
  if (!read) throw new Error(`${dir} holds no built API (no ${apiPaths.index} listing the kinds)`);
  const { index, baseUrl } = read;
  const kinds = new Map(Object.keys(index).map((kind) => [kind, readList(dir, baseUrl, kind)]));
  return { dir, baseUrl, kinds, paths: servedPaths(dir) };
}

/** A kind's records, id to name, in the list's order (by id). */
function readList(dir: string, baseUrl: string, kind: string): Map<number, string> {
  const list = JSON.parse(fs.readFileSync(path.join(dir, apiPaths.list(kind)), 'utf8')) as { results: { name: string; url: string }[] };
  const records = new Map<number, string>();
  for (const { name, url } of list.results) {
    const ref = parseRecordUrl(baseUrl, url);
    if (ref) records.set(ref.id, name);
  }
  return records;
}

/** Every path the folder answers, as a client asks for it: `api/v2/type/fire/` for `api/v2/type/fire/index.json`. */
function servedPaths(dir: string): Set<string> {
  const paths = new Set<string>();
  for (const top of SERVED) {
    if (!fs.existsSync(path.join(dir, top))) continue;
    for (const entry of fs.readdirSync(path.join(dir, top), { recursive: true, withFileTypes: true })) {
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
  const read = (dir: string) => fs.readFileSync(path.join(dir, apiPaths.record(kind, key.id)), 'utf8');
  const [was, now] = [read(beforeDir), read(afterDir)];
  if (was === now) return undefined;
  const differences = microdiff(JSON.parse(was), JSON.parse(now));
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

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The paths the folder before answered that the one after does not, each with the reason a reader will look for. */
function goneUrls(before: ApiFolder, after: ApiFolder, kinds: KindDiff[]): GoneUrl[] {
  const byKind = new Map(kinds.map((k) => [k.kind, k]));
  return [...before.paths]
    .filter((p) => !after.paths.has(p))
    .sort()
    .map((p) => {
      const m = /^api\/v2\/([^/]+)\/(?:([^/]+)\/)?$/.exec(p);
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

// Stage 1, read: PokeAPI's static layout, `<kind>/<id>/index.json`, into records by our kind and id.
// Only the kinds this project publishes are parsed; the others are counted, by PokeAPI's name.
// This is the import's boundary: a file is read only through the guard (a regular file inside
// `--from`, under the build's size limit), and a record enters only as the JSON object its folder
// names, of PokeAPI's shape (shape.ts), with no key that reaches an object's prototype. Whatever is
// not taken is a refusal, with why, for the report; the rest is read.
import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { readInside, UsageError, within } from '../guard.mjs';
import { MAX_DEPTH, repeatedKey, withoutMark } from '../pipeline/parse.ts';
import { visible } from '../report/problems.ts';
import type { SchemaSet } from '../schemas/schemas.ts';
import { ourName, pause, type Poke, type Refusal, type World } from './kinds.ts';
import { misfit, pokeApiShape } from './shape.ts';

export interface Source {
  world: World;
  /** Records of kinds this project does not publish, by PokeAPI's kind name. */
  skipped: Record<string, number>;
  /** What was not read, or read and not taken, in the order of the folder. */
  refused: Refusal[];
  /** Where each record was read, inside `--from`, by our kind and id. */
  files: Map<string, Map<number, string>>;
}

/** Where a stage is: told its total once, then each step done. */
export interface Progress {
  start(stage: string, total: number): void;
  tick(): void;
}

/** Records read between two turns of the event loop: often enough that Ctrl-C is answered at once. */
const RECORDS_PER_PAUSE = 256;

export async function readSource(from: string, schemas: SchemaSet, progress?: Progress): Promise<Source> {
  const refused: Refusal[] = [];
  const { wanted, skipped } = kindsIn(from, schemas, refused);
  progress?.start(
    'read',
    wanted.reduce((n, { ids }) => n + ids.length, 0),
  );
  const world: World = new Map();
  const files = new Map<string, Map<number, string>>();
  let done = 0;
  for (const { pokeKind, kind, ids } of wanted) {
    const shape = pokeApiShape(kind, schemas.kinds.get(kind)!.response);
    const records = new Map<number, Poke>();
    const where = new Map<number, string>();
    for (const id of ids) {
      const file = `${pokeKind}/${id}/index.json`;
      const read = readRecord(from, file, Number(id), shape);
      if ('why' in read) refused.push({ file, why: read.why });
      else {
        records.set(Number(id), read.record);
        where.set(Number(id), file);
      }
      progress?.tick();
      if (++done % RECORDS_PER_PAUSE === 0) await pause();
    }
    if (records.size === 0) continue;
    world.set(kind, records);
    files.set(kind, where);
  }
  return { world, skipped, refused, files };
}

interface KindFolder {
  pokeKind: string;
  kind: string;
  ids: string[];
}

/** The kind folders of `from` that hold records, those of kinds this API publishes apart from the others, counted. */
function kindsIn(from: string, schemas: SchemaSet, refused: Refusal[]): { wanted: KindFolder[]; skipped: Record<string, number> } {
  const wanted: KindFolder[] = [];
  const skipped: Record<string, number> = {};
  for (const pokeKind of listing(from, '', refused).folders.sort()) {
    const ids = idFolders(from, pokeKind, refused);
    if (ids.length === 0) continue;
    if (schemas.kinds.has(ourName(pokeKind))) wanted.push({ pokeKind, kind: ourName(pokeKind), ids });
    else skipped[pokeKind] = ids.length;
  }
  if (wanted.length === 0) throw new UsageError(`--from ${from}: no PokeAPI records of a kind this API publishes (<kind>/<id>/index.json)`);
  return { wanted, skipped };
}

interface Listing {
  folders: string[];
  /** Entries that are not folders, nor links refused. */
  others: string[];
}

/**
 * The entries of `rel`: its folders (a link to a folder inside `root` counts as one), and the rest.
 * A link that leads out of `root` or nowhere is not followed, and said.
 */
function listing(root: string, rel: string, refused: Refusal[]): Listing {
  const out: Listing = { folders: [], others: [] };
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
  } catch (err) {
    refused.push({ file: rel || '.', why: `could not be listed (${(err as NodeJS.ErrnoException).code})` });
    return out;
  }
  for (const entry of entries) {
    const at = rel ? `${rel}/${entry.name}` : entry.name;
    const found = entry.isSymbolicLink() ? linked(root, at) : entry.isDirectory() ? 'folder' : 'other';
    if (found === 'folder') out.folders.push(entry.name);
    else if (found === 'other') out.others.push(entry.name);
    else refused.push({ file: at, why: found.why });
  }
  return out;
}

/** What the link at `rel` leads to inside `root`, or why it is not followed. */
function linked(root: string, rel: string): 'folder' | 'other' | { why: string } {
  let real: string;
  try {
    real = fs.realpathSync(path.join(root, rel));
  } catch {
    return { why: 'is a link that leads nowhere: not followed' };
  }
  if (!within(real, fs.realpathSync(root))) return { why: `is a link to ${visible(real)}, outside --from: not followed` };
  return fs.statSync(real).isDirectory() ? 'folder' : 'other';
}

/**
 * The record folders of a kind folder, those named by an id, in id order. An entry named by an id
 * that is no folder holds no record: it is said, as a record that could not be read.
 */
function idFolders(root: string, kind: string, refused: Refusal[]): string[] {
  // An id may be 0 or negative, as PokeAPI's move ailments "none" (0) and "unknown" (-1) are.
  const isId = (name: string) => /^-?\d+$/.test(name);
  const { folders, others } = listing(root, kind, refused);
  for (const name of others.filter(isId).sort()) refused.push({ file: `${kind}/${name}`, why: 'is not a folder, so holds no record' });
  // PokeAPI's layout names each record's folder by its id alone: any other folder is said, not passed over.
  for (const name of folders.filter((n) => !isId(n)).sort())
    refused.push({ file: `${kind}/${name}`, why: 'is a folder not named by an id, so holds no record PokeAPI would serve' });
  // `7` and `007` name one id: the folder written as the number is, or else the first, holds it.
  const byId = new Map<number, string>();
  for (const name of folders.filter(isId).sort((a, b) => Number(a) - Number(b) || a.length - b.length)) {
    if (!byId.has(Number(name))) byId.set(Number(name), name);
    else refused.push({ file: `${kind}/${name}`, why: `names the id ${Number(name)}, as ${kind}/${byId.get(Number(name))} does` });
  }
  return [...byId.values()];
}

/** Keys that name an object's own machinery in JavaScript: no PokeAPI record has one, and a copy made of it could take a prototype. */
const MACHINERY = new Set(['__proto__', 'constructor', 'prototype']);

/** The record in `rel`, which its folder names by `id`, or why it is not taken. */
function readRecord(root: string, rel: string, id: number, shape: Poke): { record: Poke } | { why: string } {
  const read = readInside(root, path.join(root, rel));
  if ('why' in read) return read;
  if (!isUtf8(read.bytes)) return { why: 'is not UTF-8 text' };
  let data: unknown;
  const text = withoutMark(read.bytes.toString('utf8'));
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { why: `is not JSON: ${visible((err as Error).message)}` };
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) return { why: 'is not a record (a JSON object)' };
  const repeated = repeatedKey(text);
  if (repeated) return { why: `writes the key ${visible(JSON.stringify(repeated.key))} twice in one object: JSON would keep the last` };
  const unsafe = unsafeKeyOrDepth(data);
  if (unsafe) return { why: unsafe };
  const record = data as Poke;
  if (record.id !== id) return { why: `holds the id ${visible(JSON.stringify(record.id) ?? 'undefined')}, where its folder says ${id}` };
  const misfits = misfit(shape, record);
  return misfits ? { why: misfits } : { record };
}

/**
 * Why a parsed record is not taken whatever its kind: it nests deeper than the build reads, it
 * holds a key of JavaScript's machinery, or two keys that are one field once renamed. Looked at
 * without recursion, however deep it is.
 */
function unsafeKeyOrDepth(value: object): string | undefined {
  const stack: Array<[object, number]> = [[value, 1]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [node, depth] = next;
    if (depth > MAX_DEPTH) return `nests more than ${MAX_DEPTH} levels deep, as no record does`;
    const isList = Array.isArray(node);
    // PokeAPI's names are renamed ("pokemon" → "creature"): two keys renamed alike would be one field, the last kept.
    const renamed = new Map<string, string>();
    for (const [key, item] of Object.entries(node)) {
      if (!isList && MACHINERY.has(key)) return `holds the key "${key}", which names an object's machinery in JavaScript`;
      const ours = isList ? undefined : ourName(key);
      const before = ours === undefined ? undefined : renamed.get(ours);
      if (before !== undefined)
        return `holds both ${visible(JSON.stringify(before))} and ${visible(JSON.stringify(key))}, which are one field here`;
      if (ours !== undefined) renamed.set(ours, key);
      if (item && typeof item === 'object') stack.push([item, depth + 1]);
    }
  }
  return undefined;
}

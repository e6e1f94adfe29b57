// Writes test/fixtures/pokeapi-subset/: a subset of PokeAPI's own static API (api-data's
// data/api/v2) that holds every kind and every top-level field at least once, for the round trip
// in import.test.ts. Run it again when api-data changes:
//
//   npx tsx test/pokeapi-subset.ts /path/to/api-data/data/api/v2
//
// The records are PokeAPI's, unchanged but for one thing: a subset cannot hold what it leaves out,
// so every list item that refers to a record outside it is taken away (a type's creatures list
// only the creatures kept); an item's own lists are pruned as their items say, so a kept evolution
// keeps its place in a chain whatever becomes of those after it. Which records are kept:
// - of each kind, for each top-level field, the record of lowest id where it holds something (not
//   null, not empty), and the lowest id of all;
// - every record a kept record refers to outside any list (a creature's species, a chain's item),
//   and every record of a small kind (languages, versions, types, …) however it is referred to, so
//   that what each kept record says of them is whole;
// - a creature's encounters beside it (`pokemon/<id>/encounters/`), pruned as the records are.
import fs from 'node:fs';
import path from 'node:path';

/** A kind with at most this many records is kept whole. */
const SMALL = 60;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Key = string; // `kind/id`

const out = path.join(import.meta.dirname, 'fixtures', 'pokeapi-subset');

function main(from: string): void {
  const kinds = fs
    .readdirSync(from, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== 'meta')
    .map((entry) => entry.name)
    .sort();
  const ids = new Map(kinds.map((kind) => [kind, recordIds(from, kind)]));
  const read = memo((key: Key) => JSON.parse(fs.readFileSync(path.join(from, key, 'index.json'), 'utf8')) as Json);
  const has = (key: Key) => ids.get(key.split('/')[0]!)?.includes(Number(key.split('/')[1]));

  const kept = new Set<Key>();
  for (const kind of kinds) for (const key of seeds(kind, ids.get(kind)!, read)) kept.add(key);
  for (const kind of kinds) if (ids.get(kind)!.length <= SMALL) for (const id of ids.get(kind)!) kept.add(`${kind}/${id}`);
  // Every record a kept one refers to outside a list: followed until nothing new is found.
  for (let queue = [...kept]; queue.length > 0;) {
    const next: Key[] = [];
    for (const key of queue)
      for (const target of refsOutsideLists(read(key)))
        if (has(target) && !kept.has(target)) {
          kept.add(target);
          next.push(target);
        }
    queue = next;
  }

  fs.rmSync(out, { recursive: true, force: true });
  for (const key of [...kept].sort()) {
    write(key, prune(read(key), kept));
    const encounters = path.join(from, key, 'encounters', 'index.json');
    if (key.startsWith('pokemon/') && fs.existsSync(encounters))
      write(`${key}/encounters`, prune(JSON.parse(fs.readFileSync(encounters, 'utf8')) as Json, kept));
  }
  console.log(`wrote ${kept.size} records of ${kinds.length} kinds to ${path.relative(process.cwd(), out)}`);
}

/** A kind's record ids, in order. */
function recordIds(from: string, kind: string): number[] {
  return fs
    .readdirSync(path.join(from, kind))
    .filter((name) => /^-?\d+$/.test(name) && fs.existsSync(path.join(from, kind, name, 'index.json')))
    .map(Number)
    .sort((a, b) => a - b);
}

/** Of a kind: its lowest id, and for each top-level field the lowest id where it holds something. */
function seeds(kind: string, ids: number[], read: (key: Key) => Json): Key[] {
  const out = new Set<Key>([`${kind}/${ids[0]}`]);
  const wanted = new Set<string>();
  for (const id of ids.slice(0, 400)) for (const field of Object.keys(read(`${kind}/${id}`) as object)) wanted.add(field);
  for (const field of wanted) {
    const id = ids.find((one) => holds((read(`${kind}/${one}`) as Record<string, Json>)[field]));
    if (id !== undefined) out.add(`${kind}/${id}`);
  }
  return [...out];
}

const holds = (value: Json | undefined): boolean =>
  value !== undefined &&
  value !== null &&
  !(Array.isArray(value) && value.length === 0) &&
  !(typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0);

/** The `kind/id` an api url names, or undefined. */
function target(value: Json): Key | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value) || typeof value.url !== 'string') return undefined;
  const match = /^\/api\/v2\/([a-z0-9-]+)\/(-?\d+)\/$/.exec(value.url);
  return match ? `${match[1]}/${match[2]}` : undefined;
}

/** The records a value refers to outside any list. */
function refsOutsideLists(value: Json): Key[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  const here = target(value);
  return [...(here ? [here] : []), ...Object.values(value).flatMap((v) => (Array.isArray(v) ? [] : refsOutsideLists(v)))];
}

/**
 * What PokeAPI never gives empty, writing null instead: a side of a move's contest combos, and its
 * combos when every side is null. Emptied by the pruning, they are null.
 */
const EMPTY_IS_NULL = new Set(['use_before', 'use_after']);
const allNull = (value: Json): boolean =>
  value === null || (typeof value === 'object' && !Array.isArray(value) && Object.values(value).every(allNull));

/** The value without the list items that refer to a record outside `kept` (outside their own lists), at any depth. */
function prune(value: Json, kept: ReadonlySet<Key>): Json {
  if (Array.isArray(value))
    return value.filter((item) => refsOutsideLists(item).every((key) => kept.has(key))).map((item) => prune(item, kept));
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => {
      const pruned = prune(v, kept);
      if (EMPTY_IS_NULL.has(k) && Array.isArray(pruned) && pruned.length === 0) return [k, null];
      return [k, k === 'contest_combos' && allNull(pruned) ? null : pruned];
    }),
  );
}

function write(key: Key, value: Json): void {
  fs.mkdirSync(path.join(out, key), { recursive: true });
  fs.writeFileSync(path.join(out, key, 'index.json'), `${JSON.stringify(value)}\n`);
}

function memo<T>(fn: (key: Key) => T): (key: Key) => T {
  const cache = new Map<Key, T>();
  return (key) => {
    if (!cache.has(key)) cache.set(key, fn(key));
    return cache.get(key)!;
  };
}

const from = process.argv[2];
if (!from || !fs.existsSync(path.join(from, 'pokemon'))) {
  console.error('usage: npx tsx test/pokeapi-subset.ts <api-data>/data/api/v2');
  process.exit(2);
}
main(from);

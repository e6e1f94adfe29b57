// A record's published bytes: JSON with every object's keys sorted, so the same record always
// gives the same bytes, whatever order its fields were read in.

/** Object keys sorted at every depth, so the same record always serialises to the same bytes. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
  return out;
}

export function serialise(value: unknown, pretty = false): string {
  if (pretty) return JSON.stringify(sortKeys(value), null, 2) + '\n';
  // JSON.stringify writes the text in one flat string, where joining it piece by piece leaves a rope
  // that hashing and writing must first flatten (docs/PERFORMANCE.md, "Serialising through
  // JSON.stringify"). It writes an object's keys in the order they are enumerated, so an object
  // whose keys are not in order is given to it as a sorted copy. An object with a key that looks
  // like an index enumerates it first whatever order it is set in, so a record that needs such an
  // object sorted is written piece by piece.
  const ordered = inOrder(value);
  return ordered === UNORDERABLE ? compact(value) : (JSON.stringify(ordered) ?? 'null');
}

const UNORDERABLE = Symbol('unorderable');

/**
 * `value` with every object's keys in code-unit order, or UNORDERABLE if an object out of order has
 * a key that looks like an index. What is in order already is given as it is, not copied: most of
 * a record is (its source and facts are kept in order, facts.ts), and copying it was most of what serialising cost.
 */
function inOrder(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const ordered = inOrder(item);
      if (ordered === UNORDERABLE) return UNORDERABLE;
      if (ordered !== item) (out ??= value.slice())[i] = ordered;
    }
    return out ?? value;
  }
  const obj = value as Record<string, unknown>;
  if (!keysInOrder(obj)) return sortedCopy(obj);
  let out: Record<string, unknown> | undefined;
  for (const key in obj) {
    const item = obj[key];
    const ordered = inOrder(item);
    if (ordered === UNORDERABLE) return UNORDERABLE;
    // A copy keeps its keys where they were: setting one that is there already does not move it.
    if (ordered !== item) (out ??= { ...obj })[key] = ordered;
  }
  return out ?? obj;
}

/** Whether an object's keys are enumerated in code-unit order, as JSON.stringify would write them. */
function keysInOrder(obj: Record<string, unknown>): boolean {
  let last: string | undefined;
  for (const key in obj) {
    if (last !== undefined && key < last) return false;
    last = key;
  }
  return true;
}

function sortedCopy(obj: Record<string, unknown>): unknown {
  const out: Record<string, unknown> = {};
  for (const key of sortedKeys(obj)) {
    if (INDEX_LIKE.test(key)) return UNORDERABLE;
    if ((out[key] = inOrder(obj[key])) === UNORDERABLE) return UNORDERABLE;
  }
  return out;
}

/** A key JavaScript enumerates before the others, in numeric order: an array index. */
const INDEX_LIKE = /^(?:0|[1-9]\d{0,9})$/;

/** JSON.stringify(sortKeys(value)) without building the sorted copy first. */
function compact(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  // JSON writes a finite number as String does, and any other as null.
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + (value[i] === undefined ? 'null' : compact(value[i]));
    return out + ']';
  }
  const obj = value as Record<string, unknown>;
  // Most objects come with their keys in order, and are written as they are enumerated, with no
  // list of keys made: a list per object would be most of the garbage publishing makes.
  let out = '{';
  if (keysInOrder(obj)) {
    for (const key in obj) out = member(out, key, obj[key]);
  } else {
    for (const key of sortedKeys(obj)) out = member(out, key, obj[key]);
  }
  return out + '}';
}

/** `out` (an object's text so far) with a member, `"key":value`, unless its value is one JSON leaves out. */
function member(out: string, key: string, v: unknown): string {
  if (v === undefined || typeof v === 'function') return out;
  let name = keyText.get(key);
  if (name === undefined) keyText.set(key, (name = JSON.stringify(key) + ':'));
  return out + (out.length === 1 ? '' : ',') + name + (typeof v === 'string' ? quote(v) : compact(v));
}

/**
 * An object's keys in order, sorted in place by insertion: a record's objects have a handful of
 * keys, and Array#sort copies them first (a third of the objects arrive out of order). An object
 * of many keys, which only an author's map can be, is sorted by Array#sort: insertion takes time
 * growing with the square of the keys (80,000 out of order took 50 s).
 */
function sortedKeys(obj: Record<string, unknown>): string[] {
  const keys = Object.keys(obj);
  if (keys.length > INSERTION_SORT_MAX) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    if (keys[j]! <= key) continue;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

const INSERTION_SORT_MAX = 64;

/**
 * A string as JSON writes it. Most need no escape (no control character, quote, backslash or
 * surrogate), and are quoted as they are: a call to JSON.stringify for each of a build's hundreds of
 * thousands of strings cost more than the rest of serialising.
 */
function quote(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(text);
  }
  return '"' + text + '"';
}
/** Each key as it is written, `"key":`; records share a few hundred keys. */
const keyText = new Map<string, string>();

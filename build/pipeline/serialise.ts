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
  return pretty ? JSON.stringify(sortKeys(value), null, 2) + '\n' : compact(value);
}

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
  let last = '';
  let sorted = true;
  for (const key in obj) {
    if (key < last) {
      sorted = false;
      break;
    }
    last = key;
  }
  let out = '{';
  if (sorted) {
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
 * keys, and Array#sort copies them first (a third of the objects arrive out of order).
 */
function sortedKeys(obj: Record<string, unknown>): string[] {
  const keys = Object.keys(obj);
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

// A record serialises to the same bytes whatever order its keys come in: every object's keys in
// code-unit order, at every depth (emit.ts).
import { describe, expect, it } from 'vitest';
import { serialise } from '../build/pipeline/serialise.ts';

/** The definition, written plainly: keys sorted with Array#sort, undefined left out. */
function reference(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : reference(v))).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .sort()
    .filter((k) => obj[k] !== undefined);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${reference(obj[k])}`).join(',')}}`;
}

/** A small seeded generator (mulberry32), so a failure is found again. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = [
  'name',
  'names',
  'url',
  'id',
  'a',
  'ab',
  'a_b',
  'a-b',
  'B',
  'b',
  '',
  'é',
  'zz',
  'min_level',
  'max_level',
  'chance',
  'method',
  'url2',
  // Keys that look like indexes are enumerated first, in numeric order: '9' before '10', though '10'
  // sorts first as a string.
  '9',
  '10',
];

function value(next: () => number, depth: number, keys = KEYS): unknown {
  const pick = next();
  if (depth > 3 || pick < 0.3) {
    // Strings JSON writes as they are and strings it escapes (a lone surrogate among them), and
    // numbers JSON writes as String does and those it writes as null.
    const leaves = [
      'text',
      'quote " and \\ and \n',
      'é☃',
      '\u007f and \u2028',
      '\u001f',
      '😀',
      'lone \ud800',
      '\udc00',
      12,
      -3.5,
      -0,
      1e21,
      0.1 + 0.2,
      2 ** 53 + 2,
      NaN,
      -Infinity,
      true,
      null,
      undefined,
    ];
    return leaves[Math.floor(next() * leaves.length)];
  }
  if (pick < 0.5) return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1, keys));
  const obj: Record<string, unknown> = {};
  // Keys in a random order: some objects come sorted, most do not.
  for (const key of keys.filter(() => next() < 0.4).sort(() => next() - 0.5)) obj[key] = value(next, depth + 1, keys);
  return obj;
}

describe('serialising', () => {
  // Records with a key that looks like an index (which JavaScript enumerates first) and records
  // without one: the serialiser writes the two in different ways.
  it.each([
    ['any keys', KEYS],
    ['no key like an index', KEYS.filter((key) => !/^\d+$/.test(key))],
  ])('writes every object with its keys in order, however they came: %s', (_, keys) => {
    const next = random(7);
    let unsorted = 0;
    for (let i = 0; i < 1000; i++) {
      const v = value(next, 0, keys);
      if (v && typeof v === 'object' && !Array.isArray(v) && JSON.stringify(v) !== reference(v)) unsorted++;
      expect(serialise(v)).toBe(reference(v));
    }
    // The generator does give objects out of order.
    expect(unsorted).toBeGreaterThan(50);
  });

  it('writes an object of many keys in order, as an author may write a map of them', () => {
    const next = random(11);
    const keys = Array.from({ length: 500 }, (_, i) => `${KEYS[i % KEYS.length]}${i}`).sort(() => next() - 0.5);
    const many = Object.fromEntries(keys.map((key) => [key, { b: 1, a: [key] }]));
    expect(serialise(many)).toBe(reference(many));
    expect(serialise({ ...many, '7': 'an index' })).toBe(reference({ ...many, '7': 'an index' }));
  });
});

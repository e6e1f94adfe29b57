// The paging module against Django REST framework's LimitOffsetPagination as PokeAPI configures it
// (default limit 20, no maximum), and its reading of numbers against Python's own int().
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { apiPaths } from '../build/paths.ts';
import { listKind, page, pageJson, pageSources, pagingOf, pythonInt, type NamedRefList } from '../build/site/paging.ts';

const LIST_URL = 'http://crs.test/api/v2/type/';
const list = (n: number): NamedRefList<{ name: string; url: string }> => {
  const results = Array.from({ length: n }, (_, i) => ({ name: `t${i + 1}`, url: `${LIST_URL}${i + 1}/` }));
  return { count: n, next: null, previous: null, results };
};
const q = (query: string) => new URLSearchParams(query);
const names = (p: NamedRefList<{ name: string }>) => p.results.map((r) => r.name);

describe('page', () => {
  it('answers the full list as it is when the query names neither offset nor limit', () => {
    const full = list(45);
    expect(page(full, LIST_URL, q(''))).toBe(full);
    expect(page(full, LIST_URL, q('format=json&page=2'))).toBe(full);
  });

  it('slices the first, a middle, the last and a past-the-end page, with links in both directions', () => {
    const full = list(45);
    expect(page(full, LIST_URL, q('offset=0&limit=20'))).toEqual({
      count: 45,
      next: `${LIST_URL}?offset=20&limit=20`,
      previous: null,
      results: full.results.slice(0, 20),
    });
    const middle = page(full, LIST_URL, q('offset=20&limit=20'));
    expect(names(middle)).toEqual(names(full).slice(20, 40));
    expect([middle.next, middle.previous]).toEqual([`${LIST_URL}?offset=40&limit=20`, `${LIST_URL}?offset=0&limit=20`]);
    const last = page(full, LIST_URL, q('offset=40&limit=20'));
    expect(names(last)).toEqual(['t41', 't42', 't43', 't44', 't45']);
    expect([last.next, last.previous]).toEqual([null, `${LIST_URL}?offset=20&limit=20`]);
    const past = page(full, LIST_URL, q('offset=100&limit=20'));
    expect(past).toEqual({ count: 45, next: null, previous: `${LIST_URL}?offset=80&limit=20`, results: [] });
    expect(page(full, LIST_URL, q('offset=45&limit=20')).results).toEqual([]);
  });

  it('links back to offset 0 from an offset smaller than the limit', () => {
    const p = page(list(45), LIST_URL, q('offset=5&limit=20'));
    expect(names(p)[0]).toBe('t6');
    expect([p.next, p.previous]).toEqual([`${LIST_URL}?offset=25&limit=20`, `${LIST_URL}?offset=0&limit=20`]);
  });

  it('reads bad values as DRF does: the default limit, offset 0', () => {
    const full = list(45);
    const first20 = { count: 45, next: `${LIST_URL}?offset=20&limit=20`, previous: null, results: full.results.slice(0, 20) };
    for (const query of [
      'limit=0',
      'limit=-3',
      'limit=abc',
      'limit=',
      'limit=2.5',
      'limit=1e3',
      'offset=-1',
      'offset=x',
      'offset=',
      'offset=-1&limit=0',
    ])
      expect(page(full, LIST_URL, q(query)), query).toEqual(first20);
    expect(names(page(full, LIST_URL, q('offset=10')))).toEqual(names(full).slice(10, 30));
    expect(page(full, LIST_URL, q('limit=5')).next).toBe(`${LIST_URL}?offset=5&limit=5`);
  });

  it('reads numbers as Python does: spaces, a plus sign, underscores, other scripts, the last of a repeated parameter', () => {
    expect(pagingOf(q('offset=+3&limit=%207%20'))).toEqual({ offset: 3n, limit: 7n });
    expect(pagingOf(q('offset=1_0&limit=%D9%A5'))).toEqual({ offset: 10n, limit: 5n });
    expect(pagingOf(q('limit=5&limit=9&offset=2&offset=x'))).toEqual({ offset: 0n, limit: 9n });
  });

  it('takes a huge limit whole (PokeAPI sets no maximum) and a huge offset exactly', () => {
    const full = list(45);
    const all = page(full, LIST_URL, q('limit=100000000000000000000000'));
    expect(all).toEqual({ count: 45, next: null, previous: null, results: full.results });
    const far = page(full, LIST_URL, q('offset=100000000000000000000000&limit=20'));
    expect(far).toEqual({ count: 45, next: null, previous: `${LIST_URL}?offset=99999999999999999999980&limit=20`, results: [] });
    // Python refuses more than 4,300 digits: the default limit.
    expect(pagingOf(q(`limit=${'9'.repeat(4301)}`))?.limit).toBe(20n);
    expect(pagingOf(q(`limit=${'9'.repeat(4300)}`))?.limit).toBe(BigInt('9'.repeat(4300)));
  });

  it('pages an empty list', () => {
    expect(page(list(0), LIST_URL, q('offset=0&limit=20'))).toEqual({ count: 0, next: null, previous: null, results: [] });
    expect(page(list(0), LIST_URL, q('offset=5'))).toEqual({
      count: 0,
      next: null,
      previous: `${LIST_URL}?offset=0&limit=20`,
      results: [],
    });
  });
});

describe('pageJson and listKind', () => {
  it('takes the list url from the index, as the records link to it', () => {
    const index = JSON.stringify({ type: LIST_URL });
    const body = JSON.parse(pageJson(index, JSON.stringify(list(3)), 'type', q('offset=1&limit=1')));
    expect(body).toEqual({
      count: 3,
      next: `${LIST_URL}?offset=2&limit=1`,
      previous: `${LIST_URL}?offset=0&limit=1`,
      results: [list(3).results[1]],
    });
    expect(() => pageJson(index, JSON.stringify(list(3)), 'stat', q('limit=1'))).toThrow(/no list url for stat/);
  });

  it('names the kind of a list path only', () => {
    expect(listKind('/api/v2/type/')).toBe('type');
    expect(listKind('/api/v2/location-area')).toBe('location-area');
    for (const p of ['/api/v2/', '/api/v2/type/1/', '/api/v2/openapi.json', '/api/v2/type//', '/x/api/v2/type/'])
      expect(listKind(p), p).toBeUndefined();
  });
});

const python = spawnSync('python3', ['--version']).status === 0;

describe.skipIf(!python)('pythonInt against python3', () => {
  it('gives what int() gives, or fails where it raises ValueError', () => {
    const samples = [
      '0',
      '7',
      '-7',
      '+7',
      '-0',
      '007',
      ' 12 ',
      '\t12\n',
      '\x1c12\x1f',
      '\x8512\xa0',
      '\u300012\u2029',
      '\ufeff12',
      '1_000',
      '_1',
      '1_',
      '1__0',
      '+-1',
      '- 1',
      '1 2',
      '',
      ' ',
      '1.0',
      '1e3',
      '0x10',
      '٣٤',
      '१२',
      '𝟙𝟚',
      '𝟘𝟡',
      '１２',
      '1٢',
      'Ⅻ',
      '²',
      '½',
      '12a',
      'NaN',
      'Infinity',
      '9'.repeat(4300),
      '9'.repeat(4301),
      `${'1_'.repeat(4300)}1`,
    ];
    const script =
      'import json,sys\nout=[]\nfor s in json.load(sys.stdin):\n  try: out.append(str(int(s)))\n  except ValueError: out.append(None)\nprint(json.dumps(out))';
    const run = spawnSync('python3', ['-c', script], { input: JSON.stringify(samples), encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const expected: (string | null)[] = JSON.parse(run.stdout);
    expect(samples.map((s) => pythonInt(s)?.toString() ?? null)).toEqual(expected);
  });
});

describe('pageFor', () => {
  it('reads the files paths.ts names', () => {
    expect(pageSources.index).toBe(apiPaths.index);
    expect(pageSources.list('location-area')).toBe(apiPaths.list('location-area'));
  });
});

// The one set of HTTP assertions every host is held to: the behaviour of the local server
// (build/site/serve.ts), which the static hosts reproduce with their own rules.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiPaths, META, NDJSON_LIST } from '../../build/paths.ts';
import { loadSchemas } from '../../build/schemas/schemas.ts';
import { listFiles } from '../helpers.ts';
import { startHost, type HostProcess, type StartOptions } from './processes.ts';

const NOT_FOUND = { detail: 'Not found.' };
const schemas = loadSchemas();
const JSON_TYPE = /^application\/json(;|$)/;
/** The content type each kind of file in the output is to be served with. */
const TYPES: Record<string, RegExp> = {
  '.json': JSON_TYPE,
  '.svg': /^image\/svg\+xml(;|$)/,
  '.png': /^image\/png(;|$)/,
  '.ogg': /^audio\/ogg(;|$)/,
  '.html': /^text\/html(;|$)/,
  '.js': /^(text|application)\/javascript(;|$)/,
  '.css': /^text\/css(;|$)/,
  '.ndjson': /^application\/x-ndjson(;|$)/,
};
/** Files the static hosts read as their rules or 404 page, not part of the API. */
const HOST_FILES = new Set(['_headers', '_redirects', '_routes.json', '_worker.js', '404.html', 'serve.json']);

/** The built site: `root` holds `dist/`, laid out as the repository is for the hosts. */
export function site(): { root: string; dist: string } {
  const root = inject('siteRoot');
  return { root, dist: path.join(root, 'dist') };
}

/**
 * What a host does with `offset` and `limit` on a list: `pages` (code runs there and answers the
 * page, as PokeAPI does) or `full list` (a host of files only: the query is ignored).
 */
export type Paging = 'pages' | 'full list';

export interface Gaps {
  /** Why this host's answers to unknown API paths do not carry a JSON content type. */
  apiNotFoundContentType?: string;
  /** Why this host's NDJSON files do not carry their content type. */
  ndjsonContentType?: string;
  /** Why this host answers every range with the whole file (RFC 9110 lets a server ignore `Range`): asserted so instead. */
  ignoresRanges?: string;
  /** Why this host answers a range whose If-Range names another version with the range, not the whole file (held by its own test). */
  ifRange?: string;
  /** Why this host's answer to a range past the end is not a 416 with `bytes *\/size` and no file (held by its own test). */
  rangePastEnd?: string;
}

interface Answer {
  status: number;
  type: string;
  cors: string | null;
  body: string;
  /** The path the answer finally came from, after redirects. */
  finalPath: string;
  redirected: boolean;
  headers: Headers;
}

/**
 * The suite of a host run as a process: skipped, saying why, when `reason` is set; otherwise the
 * host is started from `options()` before the shared tests and stopped after them.
 */
export function describeHost(
  title: string,
  reason: string | undefined,
  options: () => Promise<StartOptions>,
  gaps?: Gaps,
  paging: Paging = 'full list',
): void {
  describe.skipIf(reason)(title, () => {
    let host: HostProcess | undefined;
    beforeAll(async () => {
      host = await startHost(await options());
    });
    afterAll(() => host?.stop());
    hostBehaviour(() => host!.url, gaps, paging);
  });
}

/**
 * Registers the shared tests inside the caller's `describe`. `baseUrl` is read when the tests
 * run, after the caller's `beforeAll` has started the host.
 */
export function hostBehaviour(baseUrl: () => string, gaps: Gaps = {}, paging: Paging = 'full list'): void {
  for (const [what, why] of Object.entries(gaps)) console.warn(`[hosts] not asserted here (${what}): ${why}`);
  const file = (rel: string) => JSON.parse(fs.readFileSync(path.join(site().dist, rel), 'utf8'));

  async function get(pathAndQuery: string, method = 'GET', headers: Record<string, string> = {}): Promise<Answer> {
    const url = new URL(pathAndQuery, baseUrl());
    const res = await fetch(url, { method, headers, redirect: 'follow', signal: AbortSignal.timeout(15_000) });
    const final = new URL(res.url);
    expect(final.origin, `${pathAndQuery} was redirected off the host`).toBe(new URL(baseUrl()).origin);
    // Every answer, whatever its status, has its type taken as given: a browser reads the first
    // value of the header (Fetch, "determine nosniff"), and nginx sends its own twice on a 416.
    const nosniff = res.headers.get('x-content-type-options')?.split(',')[0]!.trim().toLowerCase();
    expect(nosniff, `${method} ${pathAndQuery} ${JSON.stringify(headers)}`).toBe('nosniff');
    return {
      status: res.status,
      type: res.headers.get('content-type') ?? '',
      cors: res.headers.get('access-control-allow-origin'),
      body: await res.text(),
      finalPath: final.pathname,
      redirected: res.redirected,
      headers: res.headers,
    };
  }

  /** `path` answers 200 with JSON equal to the file `rel`, possibly after a redirect to the same path with a slash. */
  async function expectJson(pathAndQuery: string, rel: string): Promise<void> {
    const answer = await get(pathAndQuery);
    const where = `GET ${pathAndQuery}`;
    expect(answer.status, where).toBe(200);
    expect(answer.type, where).toMatch(JSON_TYPE);
    expect(answer.cors, where).toBe('*');
    expect(JSON.parse(answer.body), where).toEqual(file(rel));
    const asked = new URL(pathAndQuery, 'http://x').pathname;
    if (answer.redirected) expect(answer.finalPath.replace(/\/$/, ''), where).toBe(asked.replace(/\/$/, ''));
  }

  async function expectNotFound(pathAndQuery: string, jsonType: boolean): Promise<void> {
    const answer = await get(pathAndQuery);
    const where = `GET ${pathAndQuery}`;
    expect(answer.status, where).toBe(404);
    expect(answer.cors, where).toBe('*');
    expect(JSON.parse(answer.body), where).toEqual(NOT_FOUND);
    if (jsonType) expect(answer.type, where).toMatch(JSON_TYPE);
  }

  /** Whether a kind's records answer by name too (not location areas or characteristics: by id only, as the schemas say). */
  const byName = (kind: string) => schemas.kinds.get(kind)?.byName ?? true;

  /** Every record of the site as the paths a client would ask for. */
  function records(): { kind: string; idPath: string; namePath: string; name: string; rel: string }[] {
    const index: Record<string, string> = file(apiPaths.index);
    // The NDJSON list names files, not records; meta is the API's word about itself.
    const kinds = Object.keys(index).filter((key) => key !== NDJSON_LIST && key !== META);
    return kinds.flatMap((kind) => {
      const list: { results: { name: string; url: string }[] } = file(apiPaths.list(kind));
      return list.results.map(({ name, url }) => {
        const id = Number(/\/(-?\d+)\/$/.exec(url)![1]);
        return {
          kind,
          name,
          idPath: new URL(url).pathname,
          namePath: new URL(url).pathname.replace(/-?\d+\/$/, `${name}/`),
          rel: apiPaths.record(kind, id),
        };
      });
    });
  }

  async function inTurn<T>(items: T[], each: (item: T) => Promise<void>, width = 6): Promise<void> {
    const queue = [...items];
    await Promise.all(
      Array.from({ length: width }, async () => {
        for (let item = queue.shift(); item !== undefined; item = queue.shift()) await each(item);
      }),
    );
  }

  it('answers the index with and without the trailing slash, and with a query string', async () => {
    for (const p of ['/api/v2/', '/api/v2', '/api/v2/?offset=0&limit=20', '/api/v2?offset=0&limit=20']) await expectJson(p, apiPaths.index);
  });

  it('answers every list with and without the trailing slash, and with a query string', async () => {
    const kinds = Object.keys(file(apiPaths.index));
    expect(kinds.length).toBeGreaterThan(5);
    await inTurn(kinds, async (kind) => {
      const base = `/api/v2/${kind}`;
      for (const p of [`${base}/`, base, `${base}/?offset=0&limit=20`, `${base}?offset=0&limit=20`])
        await expectJson(p, apiPaths.list(kind));
    });
  }, 240_000); // four requests for each of PokeAPI's fifty kinds: an emulator such as netlify dev answers each slowly

  it('answers every record by id and by name, with and without the trailing slash', async () => {
    const all = records();
    expect(all.length).toBeGreaterThan(50);
    await inTurn(all, async (r) => {
      await expectJson(r.idPath, r.rel);
      await expectJson(r.idPath.slice(0, -1), r.rel);
      await expectJson(`${r.idPath}?offset=0&limit=20`, r.rel);
      // A creature's encounters, a sub-resource of its record, as PokeAPI's.
      const encounters = r.rel.replace(/index\.json$/, 'encounters/index.json');
      if (r.kind === 'creature') for (const p of [`${r.idPath}encounters/`, `${r.idPath}encounters`]) await expectJson(p, encounters);
      // A form's trigger conditions, whole.
      const triggers = r.rel.replace(/index\.json$/, 'trigger-conditions/index.json');
      if (r.kind === 'creature-form')
        for (const p of [`${r.idPath}trigger-conditions/`, `${r.idPath}trigger-conditions`]) await expectJson(p, triggers);
      if (!byName(r.kind)) return;
      await expectJson(r.namePath, r.rel);
      await expectJson(r.namePath.slice(0, -1), r.rel);
    });
  });

  const unknown = () => {
    const area = records().find((r) => r.kind === 'location-area')!;
    return [
      '/api/v2/type/9999/',
      '/api/v2/type/9999',
      '/api/v2/type/no-such-type/',
      '/api/v2/type/no-such-type',
      '/api/v2/type/9999/?offset=0&limit=20',
      '/api/v2/no-such-kind/',
      '/api/v2/no-such-kind',
      '/api/v2/type/1/no-such-part/',
      area.namePath,
      area.namePath.slice(0, -1),
    ];
  };

  it('answers unknown ids, names and kinds (and location areas by name) with the JSON 404', async () => {
    for (const p of unknown()) await expectNotFound(p, false);
  });

  it.skipIf(gaps.apiNotFoundContentType)('gives the 404 under /api/ a JSON content type', async () => {
    for (const p of unknown()) await expectNotFound(p, true);
  });

  it('lists no folder: folders without an index.json are the JSON 404', async () => {
    for (const p of ['/api/', '/api', '/sprites/', '/sprites', '/sprites/creature-form/', '/sprites/types/'])
      await expectNotFound(p, false);
  });

  it('answers the site root with the explorer page (index.html), or the JSON 404 without one', async () => {
    const page = path.join(site().dist, 'index.html');
    if (!fs.existsSync(page)) return expectNotFound('/', false);
    const answer = await get('/');
    expect(answer.status).toBe(200);
    expect(answer.type).toMatch(TYPES['.html']!);
    expect(answer.body).toBe(fs.readFileSync(page, 'utf8'));
  });

  it('serves every file of the output at its own path, with the type of its kind', async () => {
    const files = (await listFiles(site().dist)).filter((rel) => !HOST_FILES.has(rel));
    expect(files.filter((rel) => rel.endsWith('.svg')).length).toBeGreaterThan(5);
    await inTurn(files, async (rel) => {
      const answer = await get(`/${rel}`);
      const where = `GET /${rel}`;
      const type = TYPES[path.extname(rel)];
      expect(type, `${where}: a new kind of file; say here what type the hosts must give it`).toBeDefined();
      expect(answer.status, where).toBe(200);
      if (!(gaps.ndjsonContentType && rel.endsWith('.ndjson'))) expect(answer.type, where).toMatch(type!);
      expect(answer.cors, where).toBe('*');
      expect(answer.body, where).toBe(fs.readFileSync(path.join(site().dist, rel), 'utf8'));
    });
  });

  it('answers HEAD like GET, without a body', async () => {
    const r = records()[0]!;
    const answer = await get(r.idPath, 'HEAD');
    expect(answer.status).toBe(200);
    expect(answer.type).toMatch(JSON_TYPE);
    expect(answer.cors).toBe('*');
    expect(answer.body).toBe('');
  });

  rangeBehaviour(get, () => records()[0]!.idPath, gaps);
  pagingBehaviour(get, file, paging);
}

type Get = (pathAndQuery: string, method?: string, headers?: Record<string, string>) => Promise<Answer>;

/** What a range is asked of: a kind's NDJSON file (the download a client resumes), and a record by its folder's url. */
const rangePaths = (record: () => string) => ['/api/v2/type/all.ndjson', record()];

/**
 * Ranges as RFC 9110 has them (§14.2, §13.1.5): a range of the file as it is gets 206; If-Range
 * naming another version, by another tag, a weak tag or a date, gets the whole file, so that a
 * resumed download never joins two builds; a range past the end gets 416, `bytes *\/size`, and
 * not the file. A host that ignores `Range`, as a server may, answers each with the whole file.
 */
function rangeBehaviour(get: Get, record: () => string, gaps: Gaps): void {
  it.skipIf(!gaps.ignoresRanges)('ignores Range, past the end too: 200 and the whole file', async () => {
    for (const p of rangePaths(record)) {
      const full = await get(p);
      for (const range of ['bytes=0-9', `bytes=${Buffer.byteLength(full.body)}-`]) {
        const answer = await get(p, 'GET', { Range: range });
        expect([answer.status, answer.body], `${p} Range: ${range}`).toEqual([200, full.body]);
      }
    }
  });

  it.skipIf(gaps.ignoresRanges)('answers a byte range with 206, as it is or when If-Range names the file by its strong ETag', async () => {
    for (const p of rangePaths(record)) {
      const full = await get(p);
      const etag = full.headers.get('etag');
      const asked: Record<string, string>[] = [{}];
      if (etag && !etag.startsWith('W/')) asked.push({ 'If-Range': etag });
      for (const ifRange of asked) {
        const part = await get(p, 'GET', { Range: 'bytes=0-9', ...ifRange });
        const where = `${p} ${JSON.stringify(ifRange)}`;
        expect([part.status, part.body], where).toEqual([206, full.body.slice(0, 10)]);
        expect(part.headers.get('content-range'), where).toBe(`bytes 0-9/${Buffer.byteLength(full.body)}`);
      }
    }
  });

  it.skipIf(gaps.ignoresRanges || gaps.ifRange)(
    'answers a range whose If-Range names another version, a weak tag or a date with 200 and the whole file',
    async () => {
      for (const p of rangePaths(record)) {
        const full = await get(p);
        const etag = full.headers.get('etag') ?? '"x"';
        for (const ifRange of ['"another-build"', `W/${etag.replace(/^W\//, '')}`, 'Thu, 01 Jan 1970 00:00:00 GMT']) {
          const answer = await get(p, 'GET', { Range: 'bytes=0-9', 'If-Range': ifRange });
          const where = `${p} If-Range: ${ifRange}`;
          expect([answer.status, answer.body], where).toEqual([200, full.body]);
          expect(answer.headers.get('content-range'), where).toBeNull();
        }
      }
    },
  );

  it.skipIf(gaps.ignoresRanges || gaps.rangePastEnd)(
    'answers a range past the end with 416 and Content-Range bytes */size, without the file',
    async () => {
      for (const p of rangePaths(record)) {
        const full = await get(p);
        const size = Buffer.byteLength(full.body);
        const answer = await get(p, 'GET', { Range: `bytes=${size}-` });
        expect(answer.status, p).toBe(416);
        expect(answer.headers.get('content-range'), p).toBe(`bytes */${size}`);
        expect(answer.body, p).not.toContain(full.body.slice(0, 40));
      }
    },
  );
}

interface List {
  count: number;
  next: string | null;
  previous: string | null;
  results: { name: string; url: string }[];
}

/** The list url the index gives a kind (the build's BASE_URL), and the full list of its file. */
function fullList(file: (rel: string) => any, kind: string): { listUrl: string; full: List } {
  return { listUrl: file(apiPaths.index)[kind], full: file(apiPaths.list(kind)) };
}

/** The paging tests: a host that pages is held to PokeAPI's answers, a host of files to the full list. */
function pagingBehaviour(get: Get, file: (rel: string) => any, paging: Paging): void {
  async function getList(pathAndQuery: string): Promise<List> {
    const answer = await get(pathAndQuery);
    expect(answer.status, pathAndQuery).toBe(200);
    expect(answer.type, pathAndQuery).toMatch(JSON_TYPE);
    expect(answer.cors, pathAndQuery).toBe('*');
    return JSON.parse(answer.body);
  }
  // Meta is in the index but no list: a query on it pages nothing (`answers every list`).
  const kinds = () => Object.keys(file(apiPaths.index)).filter((key) => key !== META);

  it.skipIf(paging !== 'full list')('ignores offset and limit on a list: the full list, with no next page', async () => {
    for (const kind of kinds()) {
      const { full } = fullList(file, kind);
      for (const query of ['?offset=1&limit=1', '?offset=1000&limit=5', '?limit=0']) {
        expect(await getList(`/api/v2/${kind}/${query}`), `${kind} ${query}`).toEqual({ ...full, next: null, previous: null });
      }
    }
  });

  it.skipIf(paging !== 'pages')('pages every list by offset and limit, to its end by next, back by previous', async () => {
    for (const kind of kinds()) {
      const { listUrl, full } = fullList(file, kind);
      const walked: List['results'] = [];
      let next: string | null = `${listUrl}?offset=0&limit=2`;
      for (let offset = 0; next !== null; offset += 2) {
        expect(next, kind).toBe(`${listUrl}?offset=${offset}&limit=2`);
        expect(offset, `${kind}: the walk ends`).toBeLessThanOrEqual(full.count);
        const page = await getList(new URL(next).pathname + new URL(next).search);
        expect(page.count, kind).toBe(full.count);
        expect(page.previous, kind).toBe(offset === 0 ? null : `${listUrl}?offset=${offset - 2}&limit=2`);
        expect(page.results, kind).toEqual(full.results.slice(offset, offset + 2));
        walked.push(...page.results);
        next = page.next;
      }
      expect(walked, kind).toEqual(full.results);
    }
  });

  it.skipIf(paging !== 'pages')('answers past the end, without the slash, and bad values as PokeAPI does', async () => {
    const { listUrl, full } = fullList(file, 'type');
    expect(full.count).toBeGreaterThan(3);
    expect(await getList('/api/v2/type?offset=1000&limit=5')).toEqual({
      count: full.count,
      next: null,
      previous: `${listUrl}?offset=995&limit=5`,
      results: [],
    });
    expect(await getList('/api/v2/type?limit=1&offset=2')).toEqual({
      count: full.count,
      next: `${listUrl}?offset=3&limit=1`,
      previous: `${listUrl}?offset=1&limit=1`,
      results: full.results.slice(2, 3),
    });
    // A limit that is not a positive integer is the default of 20; an offset that is not a whole number is 0.
    const first20 = {
      count: full.count,
      next: full.count > 20 ? `${listUrl}?offset=20&limit=20` : null,
      previous: null,
      results: full.results.slice(0, 20),
    };
    for (const query of ['limit=0', 'limit=-1&offset=-1', 'limit=abc&offset=x', 'offset='])
      expect(await getList(`/api/v2/type/?${query}`), query).toEqual(first20);
    const head = await get('/api/v2/type/?offset=1&limit=1', 'HEAD');
    expect([head.status, head.body]).toEqual([200, '']);
    expect(head.type).toMatch(JSON_TYPE);
    expect((await get('/api/v2/no-such-kind/?offset=0&limit=1')).status).toBe(404);
  });

  it.skipIf(paging !== 'pages')("tags a page with an ETag and the list's Cache-Control, and answers If-None-Match with 304", async () => {
    const list = await get('/api/v2/type/');
    const pages = ['/api/v2/type/?offset=0&limit=2', '/api/v2/type?offset=2&limit=2'];
    const tags: string[] = [];
    for (const p of pages) {
      const page = await get(p);
      const etag = page.headers.get('etag');
      expect(etag, p).toMatch(/^(W\/)?"[^"]+"$/);
      tags.push(etag!);
      const cacheControl = page.headers.get('cache-control');
      expect(cacheControl, p).toBeTruthy();
      if (list.headers.get('cache-control')) expect(cacheControl, p).toBe(list.headers.get('cache-control'));
      for (const [method, ifNoneMatch] of [
        ['GET', etag!],
        ['GET', `W/${etag!.replace(/^W\//, '')}`],
        ['GET', `"other", ${etag}`],
        ['HEAD', '*'],
      ] as const) {
        const answer = await get(p, method, { 'If-None-Match': ifNoneMatch });
        const where = `${method} ${p} If-None-Match: ${ifNoneMatch}`;
        expect([answer.status, answer.body], where).toEqual([304, '']);
        expect(answer.headers.get('etag'), where).toBe(etag);
        expect(answer.headers.get('cache-control'), where).toBe(cacheControl);
      }
      const other = await get(p, 'GET', { 'If-None-Match': '"other"' });
      expect([other.status, other.body], p).toEqual([200, page.body]);
    }
    expect(new Set(tags).size).toBe(pages.length);
  });
}

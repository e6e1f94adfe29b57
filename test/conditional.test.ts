// Conditional requests as browsers and CDNs send them (RFC 9110 §13.1.2), to the real server: a
// 304 when any tag named matches by weak comparison, or for `*`, carrying the ETag and
// Cache-Control the 200 would; pages of a list are tagged and answered the same way. Ranges as a
// resumed download asks for them (§14.2, §13.1.5): a part only of the version If-Range names, a
// 416 past the end.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { noneMatchHits } from '../build/site/paging.ts';
import { ifRangeHolds } from '../build/site/serve.ts';
import { buildWorld, fixtureWorld, rawRequest, serve, servedStarterWorld } from './helpers.ts';

const world = servedStarterWorld();

const get = (pathname: string, headers: Record<string, string> = {}, method = 'GET') => rawRequest(world.url, pathname, method, headers);

/** The If-None-Match values that name `etag`, as clients write them, and some that do not. */
const matching = (etag: string) => [etag, `W/${etag}`, '*', ` * `, `"nope", ${etag}`, `W/"nope",W/${etag}`, `"a,b", ${etag}`];
const notMatching = (etag: string) => ['"nope"', 'W/"nope", "other"', `"${etag.slice(1, -2)}"`, `${etag.slice(0, -1)}x"`];

/** Every path, of a file and of a page, answers 304 to every matching form and 200 to the others. */
async function answersConditionally(pathname: string): Promise<void> {
  const full = await get(pathname);
  expect(full.status, pathname).toBe(200);
  const { etag } = full.headers;
  expect(etag, pathname).toMatch(/^"[^"]+"$/);
  // JSON answers are given a Cache-Control (hosts/serve.json); the NDJSON files none.
  if (!pathname.endsWith('.ndjson')) expect(full.headers['cache-control'], pathname).toBeTruthy();
  for (const method of ['GET', 'HEAD']) {
    for (const value of matching(etag!)) {
      const answer = await get(pathname, { 'If-None-Match': value }, method);
      expect([answer.status, answer.body], `${method} ${pathname} If-None-Match: ${value}`).toEqual([304, '']);
      expect(answer.headers.etag).toBe(etag);
      expect(answer.headers['cache-control']).toBe(full.headers['cache-control']);
      expect(answer.headers['access-control-allow-origin']).toBe('*');
    }
    for (const value of notMatching(etag!)) {
      const answer = await get(pathname, { 'If-None-Match': value }, method);
      expect(answer.status, `${method} ${pathname} If-None-Match: ${value}`).toBe(200);
      expect(answer.body).toBe(method === 'GET' ? full.body : '');
      expect(answer.headers.etag).toBe(etag);
    }
  }
}

describe('If-None-Match', () => {
  it('answers a record, a list, the index, a schema and an NDJSON file with 304 for a matching tag in any form, 200 otherwise', async () => {
    for (const p of [
      '/api/v2/type/fire/',
      '/api/v2/type/2',
      '/api/v2/type/',
      '/api/v2/',
      '/api/v2/type/all.ndjson',
      '/schema/v2/type.json',
    ])
      await answersConditionally(p);
  });

  it('tags pages of a list, with the Cache-Control of the list, and answers them 304 the same way', async () => {
    const list = await get('/api/v2/type/');
    const pages = ['/api/v2/type/?offset=0&limit=2', '/api/v2/type/?offset=2&limit=2', '/api/v2/stat?limit=3'];
    const tags = new Set<string>();
    for (const p of pages) {
      const page = await get(p);
      expect(page.headers['cache-control'], p).toBe(list.headers['cache-control']);
      expect(page.headers['content-type'], p).toMatch(/^application\/json/);
      expect(Number(page.headers['content-length']), p).toBe(Buffer.byteLength(page.body));
      expect(page.headers.etag).not.toBe(list.headers.etag);
      tags.add(page.headers.etag!);
      await answersConditionally(p);
    }
    expect(tags.size).toBe(pages.length);
    // The same page asked again is the same bytes, so the same tag.
    expect((await get(pages[0]!)).headers.etag).toBe((await get(pages[0]!)).headers.etag);
  });

  it('answers a range request with a matching If-None-Match by 304, and leaves a missing file and a refused path as they were', async () => {
    const full = await get('/api/v2/type/all.ndjson');
    const range = await get('/api/v2/type/all.ndjson', { Range: 'bytes=0-9' });
    expect([range.status, range.body]).toEqual([206, full.body.slice(0, 10)]);
    const notModified = await get('/api/v2/type/all.ndjson', { Range: 'bytes=0-9', 'If-None-Match': full.headers.etag! });
    expect([notModified.status, notModified.body]).toEqual([304, '']);
    for (const p of ['/api/v2/type/9999/', '/api/v2/../../package.json']) {
      const missing = await get(p, { 'If-None-Match': '*' });
      expect([missing.status, JSON.parse(missing.body)], p).toEqual([404, { detail: 'Not found.' }]);
    }
  });
});

const NDJSON = '/api/v2/type/all.ndjson';

describe('Range and If-Range', () => {
  it('answers a range with 206 when If-Range names the file as it is, or is not sent', async () => {
    for (const p of [NDJSON, '/api/v2/type/fire/']) {
      const full = await get(p);
      const { etag } = full.headers;
      for (const ifRange of [{}, { 'If-Range': etag! }] as Record<string, string>[]) {
        const part = await get(p, { Range: 'bytes=0-9', ...ifRange });
        const where = `${p} ${JSON.stringify(ifRange)}`;
        expect([part.status, part.body], where).toEqual([206, full.body.slice(0, 10)]);
        expect(part.headers['content-range'], where).toBe(`bytes 0-9/${Buffer.byteLength(full.body)}`);
        expect(part.headers.etag, where).toBe(etag);
      }
    }
  });

  it('answers a range whose If-Range names another version, a weak tag or a date with 200 and the whole file', async () => {
    for (const p of [NDJSON, '/api/v2/type/fire/']) {
      const full = await get(p);
      const { etag } = full.headers;
      for (const ifRange of [
        '"another-build"',
        `W/${etag}`,
        etag!.slice(0, -2) + '"',
        'Thu, 01 Jan 1970 00:00:00 GMT',
        new Date().toUTCString(),
      ]) {
        for (const range of ['bytes=0-9', 'bytes=5-', 'bytes=-3']) {
          const answer = await get(p, { Range: range, 'If-Range': ifRange });
          const where = `${p} Range: ${range} If-Range: ${ifRange}`;
          expect([answer.status, answer.body], where).toEqual([200, full.body]);
          expect(answer.headers['content-range'], where).toBeUndefined();
          expect(answer.headers.etag, where).toBe(etag);
        }
      }
    }
  });

  it('gives a download resumed after a rebuild the new file whole, not the old start joined to the new end', async () => {
    const world = await fixtureWorld();
    await buildWorld({ dataDir: world.data, outDir: world.out });
    const server = await serve(world.out);
    try {
      const before = await rawRequest(server.url, NDJSON);
      const fire = path.join(world.data, 'type', 'fire.yaml');
      await fs.writeFile(fire, (await fs.readFile(fire, 'utf8')).replace('name: Feu', 'name: Flamme'));
      await buildWorld({ dataDir: world.data, outDir: world.out });
      const after = await fs.readFile(path.join(world.out, 'api/v2/type/all.ndjson'), 'utf8');
      expect(after).not.toBe(before.body);
      const half = Buffer.byteLength(before.body) >> 1;
      const resumed = await rawRequest(server.url, NDJSON, 'GET', { Range: `bytes=${half}-`, 'If-Range': before.headers.etag! });
      expect([resumed.status, resumed.body]).toEqual([200, after]);
    } finally {
      await server.close();
    }
  });

  it('answers a range past the end with 416, Content-Range bytes */size and the JSON error, not the file', async () => {
    for (const p of [NDJSON, '/api/v2/type/fire/']) {
      const full = await get(p);
      const size = Buffer.byteLength(full.body);
      for (const range of [`bytes=${size}-`, `bytes=${size + 10}-${size + 20}`]) {
        const answer = await get(p, { Range: range });
        const where = `${p} Range: ${range}`;
        expect(answer.status, where).toBe(416);
        expect(answer.headers['content-range'], where).toBe(`bytes */${size}`);
        expect(answer.headers['content-type'], where).toMatch(/^application\/json/);
        expect(JSON.parse(answer.body), where).toEqual({ detail: 'Range not satisfiable.' });
        expect(answer.headers['access-control-allow-origin'], where).toBe('*');
      }
      // If-Range naming another version asks for the whole file, which is there.
      const other = await get(p, { Range: `bytes=${size}-`, 'If-Range': '"another-build"' });
      expect([other.status, other.body], p).toEqual([200, full.body]);
    }
  });

  it('answers HEAD, a unit other than bytes and several ranges with the whole file', async () => {
    const full = await get(NDJSON);
    const head = await get(NDJSON, { Range: 'bytes=0-9' }, 'HEAD');
    expect([head.status, head.body, head.headers['content-range']]).toEqual([200, '', undefined]);
    for (const range of ['items=0-1', 'bytes=0-1,4-5', 'bytes=0-1, 2-3']) {
      const answer = await get(NDJSON, { Range: range });
      expect([answer.status, answer.body, answer.headers['content-range']], range).toEqual([200, full.body, undefined]);
    }
    const upper = await get(NDJSON, { Range: 'Bytes=0-9' });
    expect([upper.status, upper.body]).toEqual([206, full.body.slice(0, 10)]);
  });
});

describe('ifRangeHolds', () => {
  it('holds without If-Range, or for the very tag compared strongly; never for a weak tag or a date', () => {
    expect(ifRangeHolds(undefined, '"x"')).toBe(true);
    expect(ifRangeHolds('"x"', '"x"')).toBe(true);
    expect(ifRangeHolds('W/"x"', '"x"')).toBe(false);
    expect(ifRangeHolds('W/"x"', 'W/"x"')).toBe(false);
    expect(ifRangeHolds('"y"', '"x"')).toBe(false);
    expect(ifRangeHolds('"x", "y"', '"x"')).toBe(false);
    expect(ifRangeHolds('Thu, 01 Jan 1970 00:00:00 GMT', '"x"')).toBe(false);
    expect(ifRangeHolds('"x"', '')).toBe(false);
  });
});

describe('paths the file system cannot hold', () => {
  it('answers a segment over 255 bytes, alone, in a record path, a list or a page, with the JSON 404', async () => {
    const long = 'a'.repeat(256);
    for (const p of [
      `/${long}`,
      `/api/v2/type/${long}/`,
      `/api/v2/${long}/`,
      `/api/v2/${long}/?offset=1`,
      `/api/v2/type/${'é'.repeat(128)}/`,
    ]) {
      const answer = await get(encodeURI(p));
      expect(answer.status, p).toBe(404);
      expect(answer.headers['content-type'], p).toMatch(/^application\/json/);
      expect(JSON.parse(answer.body), p).toEqual({ detail: 'Not found.' });
    }
  });
});

describe('noneMatchHits', () => {
  it('compares weakly, reads a list tag by tag, takes * for any tag, and nothing for no header', () => {
    expect(noneMatchHits('W/"x"', '"x"')).toBe(true);
    expect(noneMatchHits('"x"', 'W/"x"')).toBe(true);
    expect(noneMatchHits('"a", W/"x" ,"b"', '"x"')).toBe(true);
    expect(noneMatchHits('"a,b"', '"b"')).toBe(false);
    expect(noneMatchHits('*', '"x"')).toBe(true);
    expect(noneMatchHits('"X"', '"x"')).toBe(false);
    expect(noneMatchHits('x', '"x"')).toBe(false);
    expect(noneMatchHits(undefined, '"x"')).toBe(false);
    expect(noneMatchHits('', '"x"')).toBe(false);
  });
});

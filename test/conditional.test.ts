// Conditional requests as browsers and CDNs send them (RFC 9110 §13.1.2), to the real server: a
// 304 when any tag named matches by weak comparison, or for `*`, carrying the ETag and
// Cache-Control the 200 would; pages of a list are tagged and answered the same way.
import { describe, expect, it } from 'vitest';
import { noneMatchHits } from '../build/site/paging.ts';
import { rawRequest, servedStarterWorld } from './helpers.ts';

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

  it('leaves a range request, a missing file and a refused path as they were', async () => {
    const full = await get('/api/v2/type/all.ndjson');
    const range = await get('/api/v2/type/all.ndjson', { Range: 'bytes=0-9' });
    expect([range.status, range.body]).toEqual([206, full.body.slice(0, 10)]);
    for (const p of ['/api/v2/type/9999/', '/api/v2/../../package.json']) {
      const missing = await get(p, { 'If-None-Match': '*' });
      expect([missing.status, JSON.parse(missing.body)], p).toEqual([404, { detail: 'Not found.' }]);
    }
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

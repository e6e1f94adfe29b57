// The real server on a free loopback port, asked the way clients ask.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { rawRequest, servedStarterWorld } from './helpers.ts';

const world = servedStarterWorld();

/** A request with the path sent exactly as written (fetch would normalise `..` away). */
const raw = (pathname: string, method = 'GET', headers: Record<string, string> = {}) => rawRequest(world.url, pathname, method, headers);
const file = (rel: string) => fs.readFileSync(path.join(world.out, rel), 'utf8');
const SPEC_KINDS = ['type', 'creature-form', 'location-area', 'athlon-stat', 'gender', 'stat'];

describe('HTTP', () => {
  it('answers every record of the six kinds by id and by name, with and without the slash', async () => {
    for (const kind of SPEC_KINDS) {
      const list = JSON.parse(file(`api/v2/${kind}/index.json`));
      expect(list.count).toBeGreaterThan(0);
      for (const ref of list.results) {
        const id = ref.url.split('/').at(-2);
        const expected = file(`api/v2/${kind}/${id}/index.json`);
        const keys = kind === 'location-area' ? [id] : [id, ref.name];
        for (const key of keys) {
          for (const p of [`/api/v2/${kind}/${key}/`, `/api/v2/${kind}/${key}`]) {
            const res = await raw(p);
            expect(res.status, p).toBe(200);
            expect(res.headers['content-type']).toMatch(/^application\/json/);
            expect(res.headers['access-control-allow-origin']).toBe('*');
            expect(res.body).toBe(expected);
          }
        }
      }
    }
  });

  it('answers lists and the index, with or without the slash and with a query string', async () => {
    for (const p of ['/api/v2/type/', '/api/v2/type', '/api/v2/type/?offset=0&limit=20', '/api/v2/type?limit=100000']) {
      const res = await raw(p);
      expect(res.status, p).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(res.body)).toEqual(JSON.parse(file('api/v2/type/index.json')));
    }
    for (const p of ['/api/v2/', '/api/v2', '/api/v2/?format=json']) {
      const res = await raw(p);
      expect(res.status, p).toBe(200);
      expect(Object.keys(JSON.parse(res.body))).toContain('creature-form');
    }
    const query = await raw('/api/v2/stat/attack/?x=1');
    expect(JSON.parse(query.body).name).toBe('attack');
    // A long query (a tracker's) is read past, as PokeAPI reads past what it does not know; a long path is no file.
    const tracked = await raw(`/api/v2/stat/attack/?utm=${'a'.repeat(3000)}`);
    expect(tracked.status).toBe(200);
    expect(JSON.parse(tracked.body).name).toBe('attack');
    expect((await raw(`/api/v2/stat/${'a'.repeat(3000)}/`)).status).toBe(404);
  });

  it('answers 404 with a JSON body for unknown ids and names, and for location-area by name', async () => {
    for (const p of [
      '/api/v2/type/9999/',
      '/api/v2/type/no-such-type/',
      '/api/v2/location-area/ember-peak-base/',
      '/api/v2/no-such-kind/',
      '/nothing-here',
    ]) {
      const res = await raw(p);
      expect(res.status, p).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(JSON.parse(res.body)).toEqual({ detail: 'Not found.' });
    }
  });

  it('lists no directories and reaches nothing outside the output folder', async () => {
    fs.writeFileSync(path.join(world.out, '..', 'secret.txt'), 'outside');
    for (const p of [
      '/sprites/',
      '/api/v2/type/1/../../',
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/..%2fsecret.txt',
      '/%2e%2e%2fsecret.txt',
      '/api/v2/..%5c..%5c..%5csecret.txt',
      '/%252e%252e/secret.txt',
      '/sprites/%00/x',
    ]) {
      const res = await raw(p);
      expect(res.status, p).toBe(404);
      expect(res.body).not.toContain('outside');
      expect(res.body).not.toMatch(/<html|Index of/i);
    }
  });

  it('serves sprites as SVG, HEAD without a body, 304 for a matching ETag, 405 for writes', async () => {
    const type = JSON.parse(file('api/v2/type/fire/index.json'));
    const icon = new URL(Object.values<any>(Object.values<any>(type.sprites)[0])[0].name_icon);
    const svg = await raw(icon.pathname);
    expect(svg.status).toBe(200);
    expect(svg.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(svg.body).toContain('FIRE');

    const head = await raw('/api/v2/type/1/', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    const etag = head.headers.etag!;
    expect(etag).toBeTruthy();
    expect((await raw('/api/v2/type/1/', 'GET', { 'If-None-Match': etag })).status).toBe(304);

    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await raw('/api/v2/type/1/', method);
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
      expect(JSON.parse(res.body).detail).toContain(method);
    }
    const preflight = await raw('/api/v2/type/1/', 'OPTIONS', { Origin: 'http://example.org', 'Access-Control-Request-Method': 'GET' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
  });

  it('tells browsers not to sniff the type of any answer, whatever its status', async () => {
    const etag = (await raw('/api/v2/type/1/')).headers.etag!;
    const pageTag = (await raw('/api/v2/type/?limit=2')).headers.etag!;
    const asked: [string, string, Record<string, string>, number][] = [
      ['/api/v2/type/1/', 'GET', {}, 200],
      ['/api/v2/type/1/', 'HEAD', {}, 200],
      ['/api/v2/type/all.ndjson', 'GET', { Range: 'bytes=0-9' }, 206],
      ['/api/v2/type/all.ndjson', 'GET', { Range: 'bytes=0-9', 'If-Range': '"another-build"' }, 200],
      ['/api/v2/type/1/', 'GET', { 'If-None-Match': etag }, 304],
      ['/api/v2/type/?limit=2', 'GET', {}, 200],
      ['/api/v2/type/?limit=2', 'GET', { 'If-None-Match': pageTag }, 304],
      ['/api/v2/type/9999/', 'GET', {}, 404],
      ['/../secret.txt', 'GET', {}, 404],
      ['/api/v2/type/1/', 'POST', {}, 405],
      ['/api/v2/type/1/', 'GET', { Range: 'bytes=999999-' }, 416],
      ['/api/v2/type/1/', 'OPTIONS', { Origin: 'http://example.org', 'Access-Control-Request-Method': 'GET' }, 204],
      ['/', 'GET', {}, 200], // the explorer page
    ];
    for (const [p, method, headers, status] of asked) {
      const res = await raw(p, method, headers);
      const where = `${method} ${p} ${JSON.stringify(headers)}`;
      expect(res.status, where).toBe(status);
      expect(res.headers['x-content-type-options'], where).toBe('nosniff');
    }
  });
});

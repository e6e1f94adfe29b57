// The local server under a bounded loopback load: 50 connections for 10 seconds, every answer
// checked against the file it should be, zero errors and zero wrong answers.
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { describe, expect, it } from 'vitest';
import { servedStarterWorld } from './helpers.ts';

const world = servedStarterWorld();

describe('under load', () => {
  it('answers every request, and every answer right', async () => {
    const file = (rel: string) => fs.readFileSync(path.join(world.out, rel), 'utf8');
    const cases: Array<{ path: string; status: number; body: string }> = [
      { path: '/api/v2/type/fire/', status: 200, body: file('api/v2/type/fire/index.json') },
      { path: '/api/v2/type/2', status: 200, body: file('api/v2/type/2/index.json') },
      { path: '/api/v2/location-area/1/', status: 200, body: file('api/v2/location-area/1/index.json') },
      { path: '/api/v2/stat/?offset=0&limit=20', status: 200, body: file('api/v2/stat/index.json') },
      { path: '/api/v2/', status: 200, body: file('api/v2/index.json') },
      { path: '/api/v2/creature-form/emberpup-blaze/', status: 200, body: file('api/v2/creature-form/emberpup-blaze/index.json') },
      { path: '/api/v2/type/no-such-type/', status: 404, body: file('404.json') },
      { path: '/api/v2/../../package.json', status: 404, body: file('404.json') },
    ];
    const wrong: string[] = [];
    let seen = 0;
    let notFound = 0;
    const result = await autocannon({
      url: world.url,
      connections: 50,
      duration: 10,
      requests: cases.map((c) => ({
        method: 'GET',
        path: c.path,
        onResponse: (status: number, body: string) => {
          seen++;
          if (status === 404) notFound++;
          if (status !== c.status || body !== c.body) wrong.push(`${c.path}: ${status} ${body.slice(0, 60)}`);
        },
      })),
    });
    console.info(
      `load: ${result.requests.total} requests in ${result.duration}s, ${Math.round(result.requests.average)} req/s, p99 latency ${result.latency.p99} ms, ${result.errors} errors, ${result.timeouts} timeouts, ${wrong.length} wrong`,
    );
    expect(result.errors).toBe(0);
    expect(result.timeouts).toBe(0);
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(seen).toBeGreaterThan(1000);
    expect(result.non2xx).toBe(notFound);
  }, 60_000);
});

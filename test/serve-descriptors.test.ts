// The servers under the traffic browsers and CDNs make: tens of thousands of conditional requests,
// downloads a client hangs up on mid-answer, HEAD requests. A server that kept a file open for any
// of them would run out of descriptors (EMFILE) and stop; each here ends as it started, alive.
import http from 'node:http';
import autocannon from 'autocannon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultDataDir } from '../build/paths.ts';
import { npmRunDev, npmStart, openFiles, type ServerProcess } from './servers.ts';

/** Descriptors a server may open for good while it answers (a lazily started helper, a cached handle). */
const SLACK = 8;
const NDJSON = '/api/v2/location-area/all.ndjson';

/** The ETag a path answers with. */
async function etagOf(url: string): Promise<string> {
  const res = await fetch(url);
  await res.arrayBuffer();
  expect(res.status).toBe(200);
  return res.headers.get('etag')!;
}

/** `count` requests with If-None-Match in the forms clients send (exact, weak, in a list, `*`), `connections` at once: all 304. */
async function conditionalLoad(url: string, count: number, connections: number): Promise<void> {
  const paths = ['/api/v2/type/fire/', '/api/v2/creature/1/', NDJSON];
  const requests = [];
  for (const p of paths) {
    const etag = await etagOf(url + p);
    for (const value of [etag, `W/${etag}`, `"other", ${etag}`, '*'])
      requests.push({ method: 'GET' as const, path: p, headers: { 'if-none-match': value } });
  }
  const result = await autocannon({ url, connections, amount: count, requests });
  expect([result.errors, result.timeouts]).toEqual([0, 0]);
  expect(result['3xx']).toBe(result.requests.total);
  expect(result.requests.total).toBeGreaterThanOrEqual(count);
}

/** Runs `one` `count` times, `parallel` at once. */
async function inParallel(count: number, parallel: number, one: () => Promise<void>): Promise<void> {
  let started = 0;
  const worker = async () => {
    while (started < count) {
      started++;
      await one();
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/**
 * `count` HEAD requests for a record and the largest NDJSON file over kept-alive connections: all
 * 200 without a body (autocannon reads a HEAD answer's body by its length, so node's client asks).
 */
async function headLoad(url: string, count: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
  const statuses = new Map<string, number>();
  let n = 0;
  await inParallel(count, 10, async () => {
    const p = n++ % 2 ? NDJSON : '/api/v2/type/fire/';
    const answer = await new Promise<string>((resolve, reject) => {
      const req = http.request(url + p, { method: 'HEAD', agent }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve(`${res.statusCode} ${res.headers['content-length'] ? 'sized' : 'unsized'} ${body.length}`));
      });
      req.on('error', reject);
      req.end();
    });
    statuses.set(answer, (statuses.get(answer) ?? 0) + 1);
  });
  agent.destroy();
  expect(Object.fromEntries(statuses)).toEqual({ '200 sized 0': count });
}

/** `count` downloads of the largest NDJSON file, 10 at once, each hung up on at its first bytes. */
async function abortedDownloads(url: string, count: number): Promise<void> {
  let cut = 0;
  await inParallel(
    count,
    10,
    () =>
      new Promise<void>((resolve, reject) => {
        const req = http.get(url + NDJSON, (res) => {
          res.once('data', () => {
            cut++;
            req.destroy();
            resolve();
          });
        });
        req.on('error', (err) => (req.destroyed ? resolve() : reject(err)));
      }),
  );
  expect(cut).toBe(count);
}

/** The server's open files once what it was answering has settled. */
async function settledOpenFiles(pid: number): Promise<number> {
  await new Promise((r) => setTimeout(r, 500));
  return openFiles(pid);
}

/** The load, and the server's open files before and after; it still answers. */
async function holdsSteady(server: ServerProcess, scale: { conditional: number; aborted: number; head: number }): Promise<void> {
  await etagOf(server.url + '/api/v2/type/fire/'); // warmed: whatever a first answer opens for good is open
  await abortedDownloads(server.url, 10);
  const before = await settledOpenFiles(server.pid);
  const started = performance.now();
  await conditionalLoad(server.url, scale.conditional, 10);
  await abortedDownloads(server.url, scale.aborted);
  await headLoad(server.url, scale.head);
  const after = await settledOpenFiles(server.pid);
  console.info(
    `${scale.conditional} conditional, ${scale.aborted} aborted, ${scale.head} HEAD in ${Math.round(performance.now() - started)} ms: open files ${before} before, ${after} after`,
  );
  expect(after, server.output()).toBeLessThanOrEqual(before + SLACK);
  const alive = await fetch(server.url + '/api/v2/type/fire/');
  expect(alive.status).toBe(200);
}

describe('npm start under conditional requests, aborted downloads and HEAD', () => {
  let server: ServerProcess | undefined;
  beforeAll(async () => {
    server = await npmStart();
  }, 120_000);
  afterAll(() => server?.stop());

  it('keeps its open files flat and stays up', async () => {
    await holdsSteady(server!, { conditional: 10_000, aborted: 500, head: 2_000 });
  }, 90_000);
});

describe("npm run dev's API under the same traffic", () => {
  let server: ServerProcess | undefined;
  beforeAll(async () => {
    server = await npmRunDev(defaultDataDir);
  }, 120_000);
  afterAll(() => server?.stop());

  it('keeps its open files flat and stays up', async () => {
    await holdsSteady(server!, { conditional: 3_000, aborted: 200, head: 500 });
  }, 90_000);
});

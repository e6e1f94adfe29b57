// A real consumer of NDJSON reads the per-kind files: DuckDB's read_json, from disk and over HTTP
// from the local server. DuckDB reaches http urls only through its httpfs extension, which it
// downloads on first use; offline, the server's answer is streamed into a named pipe it reads.
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiPaths, NDJSON_LIST } from '../build/paths.ts';
import { servedStarterWorld, tempDir } from './helpers.ts';

const world = servedStarterWorld();
let db: DuckDBConnection;

beforeAll(async () => {
  db = await (await DuckDBInstance.create(':memory:')).connect();
});

const read = (rel: string) => JSON.parse(fs.readFileSync(path.join(world.out, rel), 'utf8'));
const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** Each row of a query, as plain values. */
async function rows(sql: string): Promise<Record<string, unknown>[]> {
  return (await db.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
}

/** The rows DuckDB reads from an NDJSON file, in file order (one read: a pipe gives its bytes once): their count, ids and names. */
async function readNdjson(file: string) {
  // A kind whose records publish no name (characteristic) reads as null there.
  const records = await rows(
    `SELECT id, json_extract_string(to_json(r), '$.name') AS name FROM read_json(${quote(file)}, format = 'newline_delimited') r`,
  );
  return { count: records.length, records: records.map((r) => ({ id: Number(r.id), name: r.name })) };
}

/** The kind's records as its list and record files say: ids in order, names (null for records that publish none). */
function expected(kind: string) {
  const list = read(apiPaths.list(kind));
  const records = list.results.map((ref: { url: string }) => {
    const id = Number(ref.url.split('/').at(-2));
    return { id, name: read(apiPaths.record(kind, id)).name ?? null };
  });
  return { count: list.count, records };
}

describe('DuckDB read_json', () => {
  it('reads every kind from disk: count, ids in order and names as the record files have them', async () => {
    const kinds = read(apiPaths.list(NDJSON_LIST)).results.map((r: { name: string }) => r.name);
    expect(kinds).toContain('location-area');
    for (const kind of kinds) expect(await readNdjson(path.join(world.out, apiPaths.ndjson(kind))), kind).toEqual(expected(kind));
  });

  it('reads a nested field as the record file has it', async () => {
    const file = quote(path.join(world.out, apiPaths.ndjson('location-area')));
    const got = await rows(`SELECT id, location.name AS location FROM read_json(${file}, format = 'newline_delimited') ORDER BY id`);
    const want = expected('location-area').records.map((r: { id: number }) => ({
      id: r.id,
      location: read(apiPaths.record('location-area', r.id)).location.name,
    }));
    expect(got.map((r) => ({ id: Number(r.id), location: r.location }))).toEqual(want);
  });

  it('reads a kind served over HTTP by the local server', async () => {
    const list = await (await fetch(`${world.url}/api/v2/${NDJSON_LIST}/`)).json();
    const type = list.results.find((r: { name: string }) => r.name === 'type');
    const res = await fetch(new URL(new URL(type.url).pathname, world.url));
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    const fifo = path.join(await tempDir(), 'type.ndjson');
    execFileSync('mkfifo', [fifo]);
    const feeding = pipeline(Readable.fromWeb(res.body as never), fs.createWriteStream(fifo));
    const got = await readNdjson(fifo).catch(async (err) => {
      await feeding.catch(() => {});
      throw err;
    });
    await feeding;
    expect(got).toEqual(expected('type'));
  });
});

// Every kind's records in one NDJSON file: each line the bytes of a record's file, ordered by id,
// listed by the index, right after every kind of rebuild and through both trees.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiPaths, NDJSON_LIST } from '../build/paths.ts';
import { BASE, buildWorld, fixtureWorld, serve, snapshot, tempDir } from './helpers.ts';

const read = (out: string, rel: string) => fs.readFileSync(path.join(out, rel), 'utf8');
/** The kinds the index maps to their lists: all its keys but meta, the build's own date and hash. */
const kindsOf = (out: string) => Object.keys(JSON.parse(read(out, apiPaths.index))).filter((key) => key !== 'meta');

/** The record files of a kind, in the order of its list (by id). */
function recordFiles(out: string, kind: string): string[] {
  const list = JSON.parse(read(out, apiPaths.list(kind)));
  return list.results.map((ref: { url: string }) => read(out, apiPaths.record(kind, Number(ref.url.split('/').at(-2)))));
}

/** Every kind's NDJSON file holds its records' files, one a line, by id; returns how many lines were checked. */
function expectNdjsonMatchesRecords(out: string): number {
  let lines = 0;
  for (const kind of kindsOf(out)) {
    const records = recordFiles(out, kind);
    const text = read(out, apiPaths.ndjson(kind));
    expect(text, kind).toBe(records.map((record) => `${record}\n`).join(''));
    const ids = text
      .split('\n')
      .slice(0, -1)
      .map((line) => JSON.parse(line).id);
    expect(ids, kind).toEqual([...ids].sort((a, b) => a - b));
    lines += ids.length;
  }
  return lines;
}

const edit = (file: string, from: RegExp, to: string) => {
  const text = fs.readFileSync(file, 'utf8');
  expect(text).toMatch(from);
  fs.writeFileSync(file, text.replace(from, to));
};

describe('the NDJSON file of each kind', () => {
  it('holds the bytes of every record file, one a line, by id, listed beside the index but not in it', async () => {
    const w = await fixtureWorld();
    await buildWorld({ dataDir: w.data, outDir: w.out });
    expect(expectNdjsonMatchesRecords(w.out)).toBeGreaterThan(80);
    const index = JSON.parse(read(w.out, apiPaths.index));
    // The index holds kinds and meta only, as PokeAPI's: every other value a kind's list.
    expect(index[NDJSON_LIST]).toBeUndefined();
    for (const kind of kindsOf(w.out)) expect(index[kind]).toBe(`${BASE}/api/v2/${kind}/`);
    const list = JSON.parse(read(w.out, apiPaths.list(NDJSON_LIST)));
    const kinds = kindsOf(w.out);
    expect(list).toEqual({
      count: kinds.length,
      next: null,
      previous: null,
      results: kinds.map((kind) => ({ name: kind, url: `${BASE}/${apiPaths.ndjson(kind)}` })),
    });
  });

  it('stays right through edits, additions, removals and renames, and equals a clean build', async () => {
    const w = await fixtureWorld();
    await buildWorld({ dataDir: w.data, outDir: w.out });
    const area = path.join(w.data, 'location-area');
    const changes: Array<[string, () => void]> = [
      ['a location area (read late) is edited', () => edit(path.join(area, 'tide-cove-shore.yaml'), /^game_index: 21$/m, 'game_index: 22')],
      [
        // First in file order, last by id: the file must still be ordered by id.
        'a location area is added',
        () => {
          const text = fs.readFileSync(path.join(area, 'ember-peak-base.yaml'), 'utf8');
          fs.writeFileSync(path.join(area, 'aaa-ridge.yaml'), text.replace(/^id: 1$/m, 'id: 40').replace(/^name: .*$/m, 'name: aaa-ridge'));
        },
      ],
      ['a location area is removed', () => fs.rmSync(path.join(area, 'ember-peak-summit.yaml'))],
      ['a record is removed', () => fs.rmSync(path.join(w.data, 'characteristic/likes-to-run.yaml'))],
      [
        'a record is renamed',
        () => {
          const text = fs.readFileSync(path.join(w.data, 'item/potion.yaml'), 'utf8');
          fs.rmSync(path.join(w.data, 'item/potion.yaml'));
          fs.writeFileSync(path.join(w.data, 'item/tonic.yaml'), text.replace(/^name: potion$/m, 'name: tonic'));
        },
      ],
      [
        'a move changes type (derived fields of types change)',
        () => edit(path.join(w.data, 'move/quick-strike.yaml'), /^type: normal$/m, 'type: fire'),
      ],
    ];
    for (const [what, change] of changes) {
      change();
      await buildWorld({ dataDir: w.data, outDir: w.out });
      expect(expectNdjsonMatchesRecords(w.out), what).toBeGreaterThan(80);
      const clean = path.join(await tempDir(), 'dist');
      await buildWorld({ dataDir: w.data, outDir: clean });
      const [rebuilt, fresh] = await Promise.all([snapshot(w.out), snapshot(clean)]);
      for (const kind of kindsOf(w.out))
        expect(rebuilt.get(apiPaths.ndjson(kind)), `${what}: ${kind}`).toBe(fresh.get(apiPaths.ndjson(kind)));
    }
    const areas = read(w.out, apiPaths.ndjson('location-area'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(areas.map((a) => [a.id, a.name])).toEqual([
      [1, 'ember-peak-base'],
      [3, 'tide-cove-shore'],
      [40, 'aaa-ridge'],
    ]);
    expect(areas[1].game_index).toBe(22);
  });

  it('is left as it was, not written again, when no record of its kind changed', async () => {
    const w = await fixtureWorld();
    await buildWorld({ dataDir: w.data, outDir: w.out });
    const before = fs.statSync(path.join(w.out, apiPaths.ndjson('location-area')));
    edit(path.join(w.data, 'location-area/tide-cove-shore.yaml'), /^game_index: 21$/m, 'game_index: 22');
    const firstTree = fs.statSync(path.join(w.out, apiPaths.ndjson('gender')));
    await buildWorld({ dataDir: w.data, outDir: w.out });
    // The other tree now: its gender file is the same file as the live tree's was (a hard link).
    expect(fs.statSync(path.join(w.out, apiPaths.ndjson('gender'))).ino).toBe(firstTree.ino);
    expect(fs.statSync(path.join(w.out, apiPaths.ndjson('location-area'))).ino).not.toBe(before.ino);
  });

  it('with --pretty, holds each record on one line, as the compact build writes it', async () => {
    const w = await fixtureWorld();
    const pretty = path.join(await tempDir(), 'dist');
    await buildWorld({ dataDir: w.data, outDir: w.out });
    await buildWorld({ dataDir: w.data, outDir: pretty, pretty: true });
    expect(read(pretty, apiPaths.record('type', 1))).toContain('\n  "');
    for (const kind of kindsOf(w.out)) expect(read(pretty, apiPaths.ndjson(kind)), kind).toBe(read(w.out, apiPaths.ndjson(kind)));
  });

  it('is served by the local server as application/x-ndjson', async () => {
    const w = await fixtureWorld();
    await buildWorld({ dataDir: w.data, outDir: w.out });
    const server = await serve(w.out);
    try {
      const list = await (await fetch(`${server.url}/api/v2/${NDJSON_LIST}/`)).json();
      for (const { name, url } of list.results) {
        const res = await fetch(url.replace(BASE, server.url));
        expect(res.status, name).toBe(200);
        expect(res.headers.get('content-type'), name).toBe('application/x-ndjson');
        expect(await res.text(), name).toBe(read(w.out, apiPaths.ndjson(name)));
      }
    } finally {
      await server.close();
    }
  });
});

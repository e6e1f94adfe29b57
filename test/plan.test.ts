// Publishing is planned without touching the disk: what each file needs (written, linked from the
// file before it or from the live tree, or nothing) and which files go, from the manifests alone.
import { describe, expect, it } from 'vitest';
import { FileList } from '../build/incremental/manifest.ts';
import { beforeLive, hashBody, holding, joinedHash, joinPieces, planFile, removals, type Before, type Join } from '../build/output/plan.ts';

const list = (files: Record<string, string>) =>
  FileList.parse(
    Object.entries(files)
      .map(([rel, hash]) => `f\t${rel}\t${hash}\n`)
      .join(''),
    Object.keys(files).length,
  )!;

const one = hashBody('{"id":1}');
const two = hashBody('{"id":2}');

describe('the publishing plan', () => {
  it('writes a new file, links a name path to the id path before it, and a file the live tree holds from there', () => {
    const before: Before = { live: list({ 'a/1/index.json': one }), existing: holding() };
    const first = planFile({ rel: 'a/1/index.json', body: '{"id":1}' }, before, undefined);
    expect(first).toMatchObject({ hash: one, was: one, line: 0 });
    expect(first.op).toEqual({ op: 'link', rel: 'a/1/index.json', from: 'a/1/index.json', live: true, replace: false });
    const name = planFile({ rel: 'a/one/index.json', body: '{"id":1}', sameAs: 'a/1/index.json' }, before, first);
    expect(name.op).toEqual({ op: 'link', rel: 'a/one/index.json', from: 'a/1/index.json', live: false, replace: false });
    const fresh = planFile({ rel: 'a/2/index.json', body: '{"id":2}' }, before, name);
    expect(fresh).toMatchObject({ hash: two, was: undefined, line: -1 });
    expect(fresh.op).toEqual({ op: 'write', rel: 'a/2/index.json', body: '{"id":2}', replace: false });
  });

  it('does nothing to a file the tree holds already, and replaces one it holds otherwise', () => {
    const before: Before = { live: undefined, existing: holding(list({ 'x.json': one, 'y.json': one })) };
    expect(planFile({ rel: 'x.json', body: '{"id":1}' }, before, undefined).op).toBeUndefined();
    expect(planFile({ rel: 'y.json', body: '{"id":2}' }, before, undefined).op).toMatchObject({ op: 'write', replace: true });
  });

  it('takes a carried file from the live tree, and refuses one the live manifest lacks', () => {
    const before: Before = { live: list({ 'k.json': two }), existing: holding() };
    expect(planFile({ rel: 'k.json', carried: true }, before, undefined)).toMatchObject({ hash: two, op: { op: 'link', live: true } });
    expect(() => planFile({ rel: 'gone.json', carried: true }, before, undefined)).toThrow(/lacks gone.json/);
  });

  it("reads the other tree from the live manifest's diff, and removes only what the build did not make", () => {
    const live = list({ 'a.json': one, 'b.json': one });
    // The other tree has b.json otherwise, lacks a.json, and holds c.json, which the live one lacks.
    const other = beforeLive(
      new Map([
        ['b.json', two],
        ['a.json', ''],
        ['c.json', one],
      ]),
      live,
    );
    expect(other.get('a.json')).toBeUndefined();
    expect(other.get('b.json')).toBe(two);
    expect([...other.paths()].sort()).toEqual(['b.json', 'c.json']);
    const made = new Set(['a.json', 'b.json']);
    expect(removals(other, (rel) => made.has(rel), true, [])).toEqual(['c.json']);
    expect(removals(other, (rel) => made.has(rel), false, [])).toEqual(['c.json']);
    expect(removals(other, () => true, true, ['c.json'])).toEqual([]);
  });

  describe('a joined file in a rebuild', () => {
    const body = (id: number, v = '') => `{"id":${id}${v}}`;
    const rel = (id: number) => `a/${id}/index.json`;
    // The live tree: records 1, 2, 3, 4 and their joined file, one a line.
    const liveBodies = [1, 2, 3, 4].map((id) => body(id));
    const liveFiles: Record<string, string> = Object.fromEntries(liveBodies.map((b, i) => [rel(i + 1), hashBody(b)]));
    const liveJoined = joinedHash(Object.values(liveFiles), false);
    const live = list(liveFiles);
    const ends = liveBodies.map((_, i) => liveBodies.slice(0, i + 1).reduce((n, b) => n + b.length + 1, 0));
    const join = (ids: number[], hashes: Record<number, string> = {}): Join => ({
      parts: ids.map(rel),
      compact: false,
      hashes: ids.map((id) => hashes[id] ?? liveFiles[rel(id)] ?? hashBody(body(id))),
    });

    it('takes the unchanged parts from the live file, in runs, and the changed and new ones from their files', () => {
      // Record 2 changed, 5 is new.
      const pieces = joinPieces(join([1, 2, 3, 4, 5], { 2: hashBody(body(2, ',"x":1')) }), liveJoined, live);
      expect(pieces).toEqual([{ start: 0, end: ends[0] }, { rel: rel(2) }, { start: ends[1], end: ends[3] }, { rel: rel(5) }]);
      // Nothing changed: one range.
      expect(joinPieces(join([1, 2, 3, 4]), liveJoined, live)).toEqual([{ start: 0, end: ends[3] }]);
    });

    it('does not use a live file that was not made of the parts both trees hold, or was compacted', () => {
      // Record 4 was removed: the live file holds a line the new one must not.
      expect(joinPieces(join([1, 2, 3]), liveJoined, live)).toBeUndefined();
      expect(joinPieces({ ...join([1, 2, 3, 4]), compact: true }, liveJoined, live)).toBeUndefined();
      expect(joinPieces(join([1, 2, 3, 4]), undefined, live)).toBeUndefined();
    });
  });
});

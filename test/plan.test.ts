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
    liveFiles['a/all'] = joinedHash(Object.values(liveFiles), false);
    const live = list(liveFiles);
    const partsIn = (files: Iterable<[string, string]>) =>
      [...files]
        .map(([r]) => r)
        .filter((r) => /^a\/\d+\//.test(r))
        .sort();
    const offsets = [0, ...liveBodies.map((b) => b.length + 1)].map((_, i, all) => all.slice(0, i + 1).reduce((x, y) => x + y, 0));

    it('takes the unchanged parts from the live file, in runs, and the changed and new ones from their files', () => {
      // Record 2 changed, 4 was removed, 5 is new.
      const now: Record<string, string> = {
        [rel(1)]: liveFiles[rel(1)]!,
        [rel(2)]: hashBody(body(2, ',"x":1')),
        [rel(3)]: liveFiles[rel(3)]!,
        [rel(5)]: hashBody(body(5)),
      };
      const join: Join = { parts: [rel(1), rel(2), rel(3), rel(5)], compact: false, partsIn };
      expect(joinPieces(join, liveFiles['a/all'], live, (r) => now[r])).toEqual([
        { start: offsets[0], end: offsets[1] },
        { rel: rel(2) },
        { start: offsets[2], end: offsets[3] },
        { rel: rel(5) },
      ]);
      // Unchanged neighbours are one range.
      const same: Join = { parts: [rel(1), rel(2), rel(3)], compact: false, partsIn };
      expect(joinPieces(same, liveFiles['a/all'], live, (r) => liveFiles[r])).toEqual([{ start: 0, end: offsets[3] }]);
    });

    it('does not use a live file that was not made of the parts its tree lists, or was compacted', () => {
      const join: Join = { parts: [rel(1)], compact: false, partsIn };
      expect(joinPieces(join, joinedHash([liveFiles[rel(1)]!], false), live, (r) => liveFiles[r])).toBeUndefined();
      expect(joinPieces({ ...join, compact: true }, liveFiles['a/all'], live, (r) => liveFiles[r])).toBeUndefined();
      expect(joinPieces(join, undefined, live, (r) => liveFiles[r])).toBeUndefined();
    });
  });
});

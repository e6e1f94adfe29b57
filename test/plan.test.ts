// Publishing is planned without touching the disk: what each file needs (written, linked from the
// file before it or from the live tree, or nothing) and which files go, from the manifests alone.
import { describe, expect, it } from 'vitest';
import { FileList } from '../build/incremental/manifest.ts';
import { beforeLive, hashBody, holding, planFile, removals, type Before } from '../build/output/plan.ts';

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
});

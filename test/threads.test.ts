// Work done on other threads gives what the build's own thread would: source files checked on
// worker threads (as for large worlds) against the same files checked on the build's own thread, and
// folders made ahead of their files by the writer thread, which a failed build removes again.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sortProblems } from '../build/report/problems.ts';
import { buildProblems, buildWorld, fixtureWorld, overlayBad, snapshot } from './helpers.ts';

describe('worker threads', () => {
  it('check source files on threads with the same output as on the main thread', async () => {
    const w = await fixtureWorld();
    const inline = await buildWorld({ dataDir: w.data, outDir: path.join(w.root, 'inline'), plain: true }, { checkOnThreads: false });
    const threaded = await buildWorld({ dataDir: w.data, outDir: path.join(w.root, 'threaded'), plain: true }, { checkOnThreads: true });
    expect(threaded.records).toEqual(inline.records);
    // Each file is read by one or the other: parsed, or taken as checked from the cache other builds share.
    expect(threaded.parsed + threaded.cached).toBe(inline.parsed + inline.cached);
    expect(await snapshot(path.join(w.root, 'threaded'))).toEqual(await snapshot(path.join(w.root, 'inline')));
  });

  it.each([
    'invalid-yaml',
    'duplicate-id',
    'unknown-field',
    'name-uppercase',
    'scalar-not-record',
    'missing-reference',
    'area-duplicate-id',
    'area-missing-reference',
    'area-level-range',
  ])('report the same problems on threads for %s', async (bad) => {
    const w = await fixtureWorld();
    overlayBad(w, bad);
    const inline = await buildProblems({ dataDir: w.data, outDir: w.out }, { checkOnThreads: false });
    const threaded = await buildProblems({ dataDir: w.data, outDir: w.out }, { checkOnThreads: true });
    expect(inline.length).toBeGreaterThan(0);
    expect(sortProblems(threaded)).toEqual(sortProblems(inline));
  });

  // Many location areas, the bulk of a PokeAPI-sized world.
  const areaWorld = async () => {
    const w = await fixtureWorld();
    const dir = path.join(w.data, 'location-area');
    const model = fs.readFileSync(path.join(dir, 'ember-peak-base.yaml'), 'utf8');
    for (let i = 0; i < 300; i++) {
      const name = `ember-peak-cave-${i + 1}`;
      fs.writeFileSync(
        path.join(dir, `${name}.yaml`),
        model.replace(/^id: .*$/m, `id: ${1000 + i}`).replace(/^name: .*$/m, `name: ${name}`),
      );
    }
    return w;
  };

  it('check many records of one kind with the same output as on threads', async () => {
    const w = await areaWorld();
    const out = (name: string) => path.join(w.root, name);
    const inline = await buildWorld({ dataDir: w.data, outDir: out('inline'), plain: true }, { checkOnThreads: false });
    await buildWorld({ dataDir: w.data, outDir: out('threaded'), plain: true }, { checkOnThreads: true });
    expect(inline.records['location-area']).toBeGreaterThan(300);
    expect(await snapshot(out('inline'))).toEqual(await snapshot(out('threaded')));
  });

  it.each(['area-invalid-yaml', 'area-duplicate-id', 'area-missing-reference', 'area-level-range'])(
    'report the same problems for many records of one kind as on threads for %s',
    async (bad) => {
      const w = await areaWorld();
      if (bad === 'area-invalid-yaml')
        fs.writeFileSync(path.join(w.data, 'location-area', 'ember-peak-cave-7.yaml'), 'id: 1006\nname: [ember\n');
      else overlayBad(w, bad);
      const inline = await buildProblems({ dataDir: w.data, outDir: w.out }, { checkOnThreads: false });
      const threaded = await buildProblems({ dataDir: w.data, outDir: w.out }, { checkOnThreads: true });
      expect(inline.length).toBeGreaterThan(0);
      expect(sortProblems(inline)).toEqual(sortProblems(threaded));
    },
  );

  it('leave no folder behind when a build fails after its folders were made', async () => {
    // A missing reference is found after every record has been read, and its folders made.
    const first = await fixtureWorld();
    overlayBad(first, 'missing-reference');
    expect(await buildProblems({ dataDir: first.data, outDir: first.out })).not.toEqual([]);
    expect(fs.readdirSync(first.root).sort()).toEqual(['data']);

    const built = await fixtureWorld();
    await buildWorld({ dataDir: built.data, outDir: built.out });
    const builds = path.join(built.root, '.dist-builds');
    const before = fs.readdirSync(builds).sort();
    overlayBad(built, 'missing-reference');
    expect(await buildProblems({ dataDir: built.data, outDir: built.out })).not.toEqual([]);
    expect(fs.readdirSync(builds).sort()).toEqual(before);
  });
});

// Work done on other threads gives what the build's own thread would: source files checked on
// worker threads (as for large worlds), and folders made ahead of their files by the writer thread,
// which a failed build removes again.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sortProblems } from '../build/problems.ts';
import { buildProblems, buildWorld, fixtureWorld, overlayBad, snapshot } from './helpers.ts';

describe('worker threads', () => {
  it('check source files on threads with the same output as on the main thread', async () => {
    const w = await fixtureWorld();
    const inline = await buildWorld({ dataDir: w.data, outDir: path.join(w.root, 'inline'), threads: false, plain: true });
    const threaded = await buildWorld({ dataDir: w.data, outDir: path.join(w.root, 'threaded'), threads: true, plain: true });
    expect(threaded.records).toEqual(inline.records);
    expect(threaded.parsed).toBe(inline.parsed);
    expect(await snapshot(path.join(w.root, 'threaded'))).toEqual(await snapshot(path.join(w.root, 'inline')));
  });

  it.each([
    'invalid-yaml',
    'duplicate-id',
    'unknown-field',
    'name-uppercase',
    'scalar-not-record',
    'missing-reference',
    'late-duplicate-id',
    'late-missing-reference',
    'late-level-range',
  ])('report the same problems on threads for %s', async (bad) => {
    const w = await fixtureWorld();
    overlayBad(w, bad);
    const inline = await buildProblems({ dataDir: w.data, outDir: w.out, threads: false });
    const threaded = await buildProblems({ dataDir: w.data, outDir: w.out, threads: true });
    expect(inline.length).toBeGreaterThan(0);
    expect(sortProblems(threaded)).toEqual(sortProblems(inline));
  });

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

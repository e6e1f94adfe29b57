// Each folder in fixtures/bad overlays the starter world with a mistake and names the problem the
// build must report: file, line, column, JSON pointer, message — in a rebuild and in a first build
// alike. A failed build leaves dist alone.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { formatProblems, type Problem } from '../build/report/problems.ts';
import { buildProblems, buildWorld, fixtureWorld, fixturesDir, overlayBad, snapshot, tempDir } from './helpers.ts';

const badDir = path.join(fixturesDir, 'bad');
const cases = fs.readdirSync(badDir).sort();

/**
 * The starter world and its good build, made once. Each case lays its mistake over that world,
 * rebuilds it, and takes the mistake away again: the build it fails must have left the output as it
 * was, so the next case starts from the same good build. `builtWorld` is a copy of both: the data
 * folder with its files' times, to the nanosecond the build's memory of its sources holds; the
 * trees the build keeps beside the output linked, file by file, as a build links a file that did
 * not change from one tree into the other.
 */
const built = { root: '', before: new Map<string, string>() };
beforeAll(async () => {
  const world = await fixtureWorld();
  await buildWorld({ dataDir: world.data, outDir: world.out });
  Object.assign(built, { root: world.root, before: await snapshot(world.out) });
});

/**
 * Lays the mistake of fixtures/bad/`name` over `data`; gives what takes it away again: each file it
 * replaced back as it was, each file it added removed.
 */
function withMistake(data: string, name: string): () => void {
  const mistake = path.join(badDir, name, 'data');
  const rels = fs.readdirSync(mistake, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  const files = rels.map((e) => path.join(data, path.relative(mistake, path.join(e.parentPath, e.name))));
  const before = files.map((file) => (fs.existsSync(file) ? fs.readFileSync(file) : undefined));
  overlayBad({ data }, name);
  return () => files.forEach((file, i) => (before[i] === undefined ? fs.rmSync(file) : fs.writeFileSync(file, before[i])));
}

async function builtWorld() {
  const root = await tempDir();
  execFileSync('cp', ['-a', path.join(built.root, 'data'), path.join(built.root, 'dist'), root]);
  execFileSync('cp', ['-a', '--link', path.join(built.root, '.dist-builds'), root]);
  return { root, data: path.join(root, 'data'), out: path.join(root, 'dist') };
}

describe('bad input', () => {
  it('a copy of the built world is rebuilt as the world it was copied from: nothing read again, nothing written', async () => {
    const world = await builtWorld();
    const again = await buildWorld({ dataDir: world.data, outDir: world.out });
    expect([again.parsed, again.written, again.removed]).toEqual([0, 0, 0]);
  });

  it.each(cases)('%s is reported with its place and leaves dist untouched', async (name) => {
    const expected = JSON.parse(fs.readFileSync(path.join(badDir, name, 'expect.json'), 'utf8'));
    const world = { root: built.root, data: path.join(built.root, 'data'), out: path.join(built.root, 'dist') };
    onTestFinished(withMistake(world.data, name));
    const problems = await buildProblems({ dataDir: world.data, outDir: world.out });

    const { hint, ...place } = expected;
    const reported = (problems: Problem[]) => {
      const match = problems.find((p) => p.file === place.file && p.message.includes(place.message));
      expect(match, `problems were:\n${formatProblems(problems)}`).toBeDefined();
      expect(match).toMatchObject({ ...place, message: expect.stringContaining(place.message) });
      if (hint) expect(match!.hint).toContain(hint);
      // The rendered report names the file, line and column.
      expect(formatProblems(problems)).toContain(`${place.file}:${match!.line}:${match!.column}`);
    };
    reported(problems);
    expect(await snapshot(world.out)).toEqual(built.before);

    // A first build, with nothing remembered, reports it too, and leaves nothing.
    const first = await buildProblems({ dataDir: world.data, outDir: path.join(world.root, 'first') });
    reported(first);
    expect(fs.readdirSync(world.root).sort()).toEqual(['.dist-builds', 'data', 'dist']);
    fs.rmSync(path.join(world.root, 'first'), { recursive: true, force: true }); // were a case to fail there
  });

  it('places each of many problems of one file at its own line, the first with a hint of the nearest name', async () => {
    const w = await fixtureWorld();
    const file = path.join(w.data, 'pokedex/national.yaml');
    const head = fs.readFileSync(file, 'utf8').split('creature_entries:')[0]!;
    const entries = Array.from({ length: 300 }, (_, i) => `  - { entry_number: ${i + 1}, creature_species: emberpupp${i} }\n`);
    fs.writeFileSync(file, `${head}creature_entries:\n${entries.join('')}`);
    const firstLine = head.split('\n').length + 1;
    const problems = (await buildProblems({ dataDir: w.data, outDir: w.out })).filter((p) => p.file === 'data/pokedex/national.yaml');
    expect(problems.map((p) => p.line)).toEqual(entries.map((_, i) => firstLine + i));
    expect(problems.every((p) => p.message.startsWith('there is no creature-species named "emberpupp'))).toBe(true);
    // A hint costs a search of every name: the first problems have one, which is what an author reads.
    expect(problems[0]!.hint).toBe('did you mean "emberpup"?');
    expect(problems.filter((p) => p.hint).length).toBe(200);
  });

  it('refuses a record its aliases expand far past its file, within the cap on aliases', async () => {
    const w = await fixtureWorld();
    const file = path.join(w.data, 'gender/female.yaml');
    const long = 'x'.repeat(100_000);
    fs.writeFileSync(file, `${fs.readFileSync(file, 'utf8')}notes:\n  - &long ${long}\n${'  - *long\n'.repeat(99)}`);
    const problems = await buildProblems({ dataDir: w.data, outDir: w.out });
    expect(problems).toEqual([
      expect.objectContaining({
        file: 'data/gender/female.yaml',
        line: 1,
        message: expect.stringMatching(/^the record its aliases expand to is over 8388608 characters as JSON, where the file is \d+$/),
      }),
    ]);
  });

  it('reports problems found at every step together, in a first build and a rebuild', async () => {
    const w = await fixtureWorld();
    overlayBad(w, 'unknown-field'); // found while the sources are checked
    overlayBad(w, 'wrong-kind-reference'); // found when the record is read whole, to be published
    overlayBad(w, 'area-missing-reference'); // found while references are resolved
    const files = (problems: { file: string }[]) => [...new Set(problems.map((p) => p.file))].sort();
    const expected = ['data/gender/female.yaml', 'data/location-area/ember-peak-summit.yaml', 'data/version/dawn.yaml'];
    expect(files(await buildProblems({ dataDir: w.data, outDir: w.out }))).toEqual(expected);
    expect(fs.readdirSync(w.root)).toEqual(['data']);
    // And when the last good build is there to remember, with one problem alone.
    fs.rmSync(w.data, { recursive: true });
    fs.cpSync(path.join(fixturesDir, 'starter'), w.data, { recursive: true });
    await buildWorld({ dataDir: w.data, outDir: w.out });
    overlayBad(w, 'area-missing-reference');
    expect(files(await buildProblems({ dataDir: w.data, outDir: w.out }))).toEqual([expected[1]]);
  });
});

// A rebuild writes only what changed, and what it leaves is byte for byte what a clean build of
// the same data writes: after edits, additions, removals and renames, through both trees.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProblems, buildWorld, fixtureWorld, listFiles, snapshot, tempDir, treesMatchManifests } from './helpers.ts';
import { layout, openTree } from '../build/output/trees.ts';
import { PLAIN_MARK, PLAIN_MARK_TEXT } from '../build/output/guard.ts';

/** A clean build of `data` in a fresh folder. */
async function clean(data: string, built?: { out?: string }) {
  const out = path.join(await tempDir(), 'dist');
  await buildWorld({ dataDir: data, outDir: out });
  if (built) built.out = out;
  return snapshot(out);
}

/**
 * What the live tree's build left beside it for the next one: its manifest's lists of sources and
 * files, and its memory of each record. A rebuild's are a clean build's.
 */
function remembered(out: string) {
  const where = layout(out);
  const slot = path.basename(fs.readlinkSync(out)) as 'a' | 'b';
  const lines = fs.readFileSync(where.manifest(slot), 'utf8').split('\n');
  return { lists: lines.filter((l) => /^[sf]\t/.test(l)), memory: lines.filter((l) => /^r\t/.test(l)) };
}

const edit = (file: string, from: RegExp, to: string) => {
  const text = fs.readFileSync(file, 'utf8');
  expect(text).toMatch(from);
  fs.writeFileSync(file, text.replace(from, to));
};

describe('incremental builds', () => {
  it('match a clean build after every kind of change, and write only what changed', async () => {
    const w = await fixtureWorld();
    const first = await buildWorld({ dataDir: w.data, outDir: w.out });
    expect(first.written).toBeGreaterThan(100);
    expect(fs.lstatSync(w.out).isSymbolicLink()).toBe(true);

    const changes: Array<[string, () => void, (r: Awaited<ReturnType<typeof buildWorld>>) => void]> = [
      [
        'a move changes type',
        () => edit(path.join(w.data, 'move/quick-strike.yaml'), /^type: normal$/m, 'type: fire'),
        (r) => expect(r.written).toBeLessThan(12),
      ],
      [
        'a record is added',
        () => fs.writeFileSync(path.join(w.data, 'item/amber-charm.yaml'), 'id: 50\nname: amber-charm\naffected_stats: [defense]\n'),
        () => {},
      ],
      [
        'a record is removed',
        () => fs.rmSync(path.join(w.data, 'characteristic/likes-to-run.yaml')),
        (r) => expect(r.removed).toBeGreaterThanOrEqual(1), // a characteristic is published by id only
      ],
      [
        'a record is renamed',
        () => {
          fs.rmSync(path.join(w.data, 'item/potion.yaml'));
          fs.writeFileSync(
            path.join(w.data, 'item/tonic.yaml'),
            'id: 1\nname: tonic\nnames:\n  - {name: Tonic, language: en}\n  - {name: Tonique, language: fr}\n',
          );
        },
        () => {},
      ],
      [
        // No derivation reads it: only the moves are derived again, and nothing else is hashed again.
        "a move's power changes",
        () => edit(path.join(w.data, 'move/quick-strike.yaml'), /^power: 95$/m, 'power: 90'),
        (r) => expect(r.written).toBeLessThan(6),
      ],
      [
        // The tree written was left behind by the build before the last: the move's files the last
        // build changed are brought over from the live tree, beside this build's own.
        "another move's power changes",
        () => edit(path.join(w.data, 'move/ember-bite.yaml'), /^power: 75$/m, 'power: 80'),
        (r) => {
          expect(r.written).toBeLessThan(6);
          expect(r.linked).toBeGreaterThanOrEqual(2); // quick-strike's files, as the last build made them
          // Given only the files that may change, the tree is not given the explorer's (trees.ts, publishChanges).
          expect(r.stages.explorer).toBeUndefined();
        },
      ],
      [
        "a form's order and a type's display name change",
        () => {
          edit(path.join(w.data, 'creature-form/emberpup.yaml'), /^order: 1$/m, 'order: 21');
          edit(path.join(w.data, 'type/fire.yaml'), /name: Feu$/m, 'name: Flamme');
        },
        (r) => expect(r.written).toBeLessThan(12),
      ],
      ['the first change is undone', () => edit(path.join(w.data, 'move/quick-strike.yaml'), /^type: fire$/m, 'type: normal'), () => {}],
      [
        // No record changes; /api/v2/meta/ states the hash of the sources, which did.
        'a comment is added (only the hash of the sources changes)',
        () => fs.appendFileSync(path.join(w.data, 'type/fire.yaml'), '# hot\n'),
        (r) => expect([r.written, r.removed]).toEqual([1, 0]),
      ],
    ];
    for (const [what, change, expectOf] of changes) {
      change();
      const result = await buildWorld({ dataDir: w.data, outDir: w.out });
      expectOf(result);
      const built: { out?: string } = {};
      expect(await snapshot(w.out), what).toEqual(await clean(w.data, built));
      expect(remembered(w.out), what).toEqual(remembered(built.out!));
      // The tree left behind is what its manifest says: the next build writes into it on that word.
      expect(await treesMatchManifests(w.out), what).toBe(2);
    }
    expect(fs.existsSync(path.join(w.out, 'api/v2/characteristic/4/index.json'))).toBe(false);
    expect(fs.existsSync(path.join(w.out, 'api/v2/item/potion/index.json'))).toBe(false);
    expect(JSON.parse(fs.readFileSync(path.join(w.out, 'api/v2/item/1/index.json'), 'utf8')).name).toBe('tonic');
  });

  it('reads only the changed files and the records whose derived fields change', async () => {
    const w = await fixtureWorld();
    const first = await buildWorld({ dataDir: w.data, outDir: w.out });
    const sources = first.parsed + first.cached; // every file, parsed or taken from the cache as checked
    const file = (rel: string) => path.join(w.data, rel);
    // [what, change, most source files the rebuild may parse]
    const changes: Array<[string, () => void, number]> = [
      // Its forms gain female sprites, and so does its creature (its default form's): they are read in full, nothing else.
      [
        'a species comes to differ by gender',
        () => edit(file('creature-species/shadewisp.yaml'), /^has_gender_differences: false$/m, 'has_gender_differences: true'),
        4,
      ],
      // The type lists change, and so do the types of the forms that take their creature's.
      ['a creature changes type', () => edit(file('creature/tidefin.yaml'), /type: water$/m, 'type: steel'), 6],
      [
        'an area moves to another location',
        () => edit(file('location-area/tide-cove-shore.yaml'), /^location: tide-cove$/m, 'location: ember-peak'),
        3,
      ],
      [
        // Its max_chance is derived within the area; the creature met there has new encounters.
        'an encounter changes (its area, and the encounters of the creature met there)',
        () => edit(file('location-area/ember-peak-base.yaml'), /chance: 30$/m, 'chance: 40'),
        2,
      ],
      [
        'a nature is added',
        () => fs.writeFileSync(file('nature/bold.yaml'), 'id: 9\nname: bold\nincreased_stat: defense\ndecreased_stat: attack\n'),
        4,
      ],
      // A renumbered record: every kind that may refer to versions is read again.
      ['a version is renumbered', () => edit(file('version/dawn.yaml'), /^id: 1$/m, 'id: 7'), sources],
    ];
    for (const [what, change, most] of changes) {
      change();
      const result = await buildWorld({ dataDir: w.data, outDir: w.out });
      expect(result.parsed, what).toBeLessThanOrEqual(most);
      expect(await snapshot(w.out), what).toEqual(await clean(w.data));
    }
    // A record others refer to is removed: the rebuild finds every broken reference a clean build finds.
    const before = await snapshot(w.out);
    fs.rmSync(file('version/dusk.yaml'));
    const problems = await buildProblems({ dataDir: w.data, outDir: w.out });
    const copy = await tempDir();
    fs.cpSync(w.data, path.join(copy, 'data'), { recursive: true });
    const fresh = await buildProblems({ dataDir: path.join(copy, 'data'), outDir: path.join(copy, 'dist') });
    expect(fresh.length).toBeGreaterThan(0);
    expect(problems).toEqual(fresh);
    expect(await snapshot(w.out)).toEqual(before);
  });

  it('after a build that failed while publishing, starts from the files it had placed', async () => {
    const w = await fixtureWorld();
    const file = (rel: string) => path.join(w.data, rel);
    await buildWorld({ dataDir: w.data, outDir: w.out });
    edit(file('creature/tidefin.yaml'), /type: water$/m, 'type: steel');
    await buildWorld({ dataDir: w.data, outDir: w.out }); // both trees are filled now
    const live = await snapshot(w.out);
    // A change that publishing takes up first, then a reference found broken only while publishing.
    edit(file('creature/tidefin.yaml'), /type: steel$/m, 'type: grass');
    edit(file('move/quick-strike.yaml'), /language: fr$/m, 'language: frr');
    const problems = await buildProblems({ dataDir: w.data, outDir: w.out });
    expect(problems, JSON.stringify(problems)).toHaveLength(1);
    expect(problems[0]).toMatchObject({
      file: 'data/move/quick-strike.yaml',
      line: 7,
      pointer: '/names/1/language',
      message: 'there is no language named "frr"',
    });
    expect(await snapshot(w.out)).toEqual(live);
    edit(file('move/quick-strike.yaml'), /language: frr$/m, 'language: fr');
    const result = await buildWorld({ dataDir: w.data, outDir: w.out });
    expect(result.written + result.linked).toBeLessThan(20);
    expect(await snapshot(w.out)).toEqual(await clean(w.data));
  });

  it('leaves no trace of a first build that cannot write a file, and the last good output after a rebuild that cannot', async () => {
    const w = await fixtureWorld();
    // An output folder nested so deep that one path in it, and only one, is too long to be made.
    let parent = w.root;
    while (parent.length < 3850) parent = path.join(parent, 'd'.repeat(Math.min(200, 3850 - parent.length)));
    fs.mkdirSync(parent, { recursive: true });
    const out = path.join(parent, 'dist');
    const long = 'a'.repeat(240);
    const language = path.join(w.data, 'language', `${long}.yaml`);
    const add = () =>
      fs.writeFileSync(
        language,
        fs
          .readFileSync(path.join(w.data, 'language/fr.yaml'), 'utf8')
          .replace(/^id: .*$/m, 'id: 99')
          .replace(/^name: fr$/m, `name: ${long}`),
      );

    add();
    await expect(buildWorld({ dataDir: w.data, outDir: out })).rejects.toThrow(/could not write .*\/language\/a{240}\//);
    expect(fs.readdirSync(parent)).toEqual([]);

    fs.rmSync(language);
    await buildWorld({ dataDir: w.data, outDir: out });
    const live = await snapshot(out);
    add();
    await expect(buildWorld({ dataDir: w.data, outDir: out })).rejects.toThrow(/could not write/);
    expect(await snapshot(out)).toEqual(live);
    fs.rmSync(language);
    // The failed build recorded what it had placed in the other tree; with the record gone again the
    // output is the live one, and nothing is written.
    expect((await buildWorld({ dataDir: w.data, outDir: out })).written).toBe(0);
    expect(await snapshot(out)).toEqual(await clean(w.data));
    expect(await treesMatchManifests(out)).toBe(2);
  });

  it('report, when a rebuild given only its changes fails, the problems a clean build reports', async () => {
    const w = await fixtureWorld();
    const sorted = (problems: Awaited<ReturnType<typeof buildProblems>>) =>
      problems.map((p) => `${p.file}:${p.line ?? ''}:${p.column ?? ''} ${p.message}`).sort();
    await buildWorld({ dataDir: w.data, outDir: w.out });
    // A second build, so that the tree written next was built beside the live one.
    edit(path.join(w.data, 'move/quick-strike.yaml'), /^power: 95$/m, 'power: 90');
    await buildWorld({ dataDir: w.data, outDir: w.out });
    // The version group keeps its file and id, but not its name: every record naming it refers to
    // nothing, forms among them, whose kind no derivation of a version group reads.
    edit(path.join(w.data, 'version-group/tide-ember.yaml'), /^name: tide-ember$/m, 'name: tide-flame');
    const rebuilt = sorted(await buildProblems({ dataDir: w.data, outDir: w.out }));
    const cleanOut = path.join(await tempDir(), 'dist');
    const fromNothing = sorted(await buildProblems({ dataDir: w.data, outDir: cleanOut }));
    expect(fromNothing.filter((p) => /creature-form\/.* there is no version-group named "tide-ember"/.test(p))).toHaveLength(2);
    expect(rebuilt).toEqual(fromNothing);
    // The same for an item, which forms name outside their facts.
    edit(path.join(w.data, 'version-group/tide-ember.yaml'), /^name: tide-flame$/m, 'name: tide-ember');
    await buildWorld({ dataDir: w.data, outDir: w.out });
    edit(path.join(w.data, 'item/emberite.yaml'), /^name: emberite$/m, 'name: emberstone');
    const itemRebuilt = sorted(await buildProblems({ dataDir: w.data, outDir: w.out }));
    const itemFromNothing = sorted(await buildProblems({ dataDir: w.data, outDir: path.join(await tempDir(), 'dist') }));
    expect(itemFromNothing.filter((p) => /creature-form\/.* there is no item named "emberite"/.test(p)).length).toBeGreaterThan(0);
    expect(itemRebuilt).toEqual(itemFromNothing);
  });

  it('reads every record again when the live manifest lacks files it lists', async () => {
    const w = await fixtureWorld();
    const first = await buildWorld({ dataDir: w.data, outDir: w.out });
    // The live manifest loses a gender's files (genders hold derived fields); the edit is to a move.
    const manifest = layout(w.out).manifest(path.basename(fs.readlinkSync(w.out)) as 'a' | 'b');
    const lines = fs.readFileSync(manifest, 'utf8').split('\n');
    const lost = lines.filter((l) => /^f\tapi\/v2\/gender\/(1|female)\/index\.json\t/.test(l));
    expect(lost).toHaveLength(2);
    fs.writeFileSync(manifest, lines.filter((l) => !lost.includes(l)).join('\n'));
    edit(path.join(w.data, 'move/quick-strike.yaml'), /^type: normal$/m, 'type: fire');
    // What the last build remembered of its records is not trusted beside a damaged list: every file
    // is parsed or, unchanged, taken as checked from the cache.
    const again = await buildWorld({ dataDir: w.data, outDir: w.out });
    expect(again.parsed).toBeGreaterThanOrEqual(1);
    expect(again.parsed + again.cached).toBe(first.parsed + first.cached);
    expect(await snapshot(w.out)).toEqual(await clean(w.data));
  });

  it('takes over an output an earlier version built, whose memory of records lay beside its manifest', async () => {
    const w = await fixtureWorld();
    await buildWorld({ dataDir: w.data, outDir: w.out });
    const where = layout(w.out);
    const slot = path.basename(fs.readlinkSync(w.out)) as 'a' | 'b';
    const text = fs.readFileSync(where.manifest(slot), 'utf8');
    fs.writeFileSync(where.manifest(slot), text.replace('"format":"manifest 3"', '"format":"manifest 2"').replace(/^r\t.*\n/gm, ''));
    fs.writeFileSync(path.join(where.root, `${slot}.records`), '{"format":"records 1"}\n');
    edit(path.join(w.data, 'move/quick-strike.yaml'), /^type: normal$/m, 'type: fire');
    await buildWorld({ dataDir: w.data, outDir: w.out });
    edit(path.join(w.data, 'move/quick-strike.yaml'), /^type: fire$/m, 'type: water');
    await buildWorld({ dataDir: w.data, outDir: w.out });
    // A tree discarded is removed in the background (slots.ts, `discard`): its trash may still be there.
    const kept = fs.readdirSync(where.root).filter((name) => !name.startsWith('trash-'));
    expect(kept.sort()).toEqual(['a', 'a.manifest', 'b', 'b.manifest']);
    expect(await snapshot(w.out)).toEqual(await clean(w.data));
  });

  it('take the first edit after a tree is filled beside the live one as a later edit, and finish a fill that was stopped', async () => {
    const w = await fixtureWorld();
    await buildWorld({ dataDir: w.data, outDir: w.out });
    const live = fs.readlinkSync(w.out);
    const before = await snapshot(w.out);
    const inodes = async (dir: string) => new Map((await listFiles(dir)).map((rel) => [rel, fs.statSync(path.join(dir, rel)).ino]));
    const liveInodes = await inodes(w.out);
    const where = layout(w.out);
    const other = path.basename(live) === 'a' ? 'b' : 'a';

    // Asked at the start and after each step of 50 files, stopped at the second step: the tree is
    // recorded as far as it got, and the next fill finishes it.
    let asked = 0;
    expect(await (await openTree(w.out)).fill(() => ++asked > 2, 50)).toBe(false);
    expect(await listFiles(where.tree(other))).toHaveLength(100);
    expect(await treesMatchManifests(w.out)).toBe(2);
    expect(await (await openTree(w.out)).fill(() => false)).toBe(true);
    // The live tree is as it was, and the other holds each of its files, as links.
    expect(fs.readlinkSync(w.out)).toBe(live);
    expect(await snapshot(w.out)).toEqual(before);
    expect(await inodes(where.tree(other))).toEqual(liveInodes);
    expect(await treesMatchManifests(w.out)).toBe(2);
    // Filled already, it is left as it is.
    expect(await (await openTree(w.out)).fill(() => false)).toBe(true);

    edit(path.join(w.data, 'move/quick-strike.yaml'), /^type: normal$/m, 'type: fire');
    const first = await buildWorld({ dataDir: w.data, outDir: w.out });
    // Without the fill, every file of the tree would be linked now.
    expect(first.written + first.linked).toBeLessThan(20);
    expect(first.files).toBeGreaterThan(200);
    const built: { out?: string } = {};
    expect(await snapshot(w.out)).toEqual(await clean(w.data, built));
    expect(remembered(w.out)).toEqual(remembered(built.out!));
    expect(await treesMatchManifests(w.out)).toBe(2);
    // The next edit is built beside the live tree too: the files the first changed come from it.
    edit(path.join(w.data, 'move/ember-bite.yaml'), /^power: 75$/m, 'power: 80');
    const second = await buildWorld({ dataDir: w.data, outDir: w.out });
    expect(second.written).toBeLessThan(6);
    expect(await snapshot(w.out)).toEqual(await clean(w.data));
    expect(await treesMatchManifests(w.out)).toBe(2);
  });

  it('writes nothing when nothing changed', async () => {
    const w = await fixtureWorld();
    await buildWorld({ dataDir: w.data, outDir: w.out });
    const before = await snapshot(w.out);
    const again = await buildWorld({ dataDir: w.data, outDir: w.out });
    expect(again).toMatchObject({ files: 0, written: 0, linked: 0, removed: 0 });
    expect(again.unchanged).toBe(before.size);
    expect(await snapshot(w.out)).toEqual(before);
  });

  it('rebuilds a tree whose build was stopped, and replaces a plain output folder', async () => {
    const w = await fixtureWorld();
    // A plain output the build made, with a file a host left in it.
    await buildWorld({ dataDir: w.data, outDir: w.out, plain: true });
    fs.writeFileSync(path.join(w.out, 'stale.txt'), 'left from elsewhere');
    await buildWorld({ dataDir: w.data, outDir: w.out });
    expect(fs.existsSync(path.join(w.out, 'stale.txt'))).toBe(false);
    edit(path.join(w.data, 'move/quick-strike.yaml'), /^type: normal$/m, 'type: fire');
    await buildWorld({ dataDir: w.data, outDir: w.out });
    // A stopped build leaves its tree without a manifest and with damage; the next one starts it over.
    const where = layout(w.out);
    const live = path.basename(fs.readlinkSync(w.out));
    const other = live === 'a' ? 'b' : 'a';
    fs.rmSync(where.manifest(other));
    const damaged = path.join(where.tree(other), 'api/v2/index.json');
    fs.rmSync(damaged); // a build replaces files, never writes into them: the live tree shares them
    fs.writeFileSync(damaged, 'damaged');
    edit(path.join(w.data, 'move/quick-strike.yaml'), /^type: fire$/m, 'type: water');
    await buildWorld({ dataDir: w.data, outDir: w.out });
    expect(await snapshot(w.out)).toEqual(await clean(w.data));
    // A manifest cut short is no manifest: its tree is built again from nothing.
    const now = path.basename(fs.readlinkSync(w.out)) === 'a' ? 'b' : 'a';
    const cut = where.manifest(now);
    const text = fs.readFileSync(cut, 'utf8');
    fs.writeFileSync(cut, text.slice(0, text.lastIndexOf('\nf\t') + 4));
    edit(path.join(w.data, 'move/quick-strike.yaml'), /^type: water$/m, 'type: fire');
    await buildWorld({ dataDir: w.data, outDir: w.out });
    expect(await snapshot(w.out)).toEqual(await clean(w.data));
    expect(await treesMatchManifests(w.out)).toBe(2);
  });
});

describe('a plain output folder', () => {
  it('holds the same files as a linked build, as a real folder', async () => {
    const w = await fixtureWorld();
    const result = await buildWorld({ dataDir: w.data, outDir: w.out, plain: true });
    expect(result.written).toBeGreaterThan(100);
    expect(fs.lstatSync(w.out).isDirectory()).toBe(true);
    // The same files, and the mark that tells the next build the folder is its own.
    const plain = await snapshot(w.out);
    expect(plain.get(PLAIN_MARK)).toBe(PLAIN_MARK_TEXT);
    plain.delete(PLAIN_MARK);
    expect(plain).toEqual(await clean(w.data));
    // The next build starts over beside it and swaps a linked tree in.
    await buildWorld({ dataDir: w.data, outDir: w.out });
    expect(fs.lstatSync(w.out).isSymbolicLink()).toBe(true);
    expect(await snapshot(w.out)).toEqual(await clean(w.data));
  });
});

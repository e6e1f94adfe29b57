// The importer as a hostile or careless user finds it, through the real command: a record's name
// becomes a file name only if the build would take it, a file is read only if it is a regular file
// inside --from under the size limit, a malformed record is refused and reported, --out and --from
// are refused before anything is read, and a stopped import leaves nothing. Each time, what the
// user had is as it was, byte for byte, and nothing is written outside --out but its report.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSlug } from '../build/guard.mjs';
import { projectRoot } from '../build/paths.ts';
import { command, editRecord, expectNoTrace, outsideOut, pokeWorld, readReport, recordFile, said, tree, type Ran } from './import-run.ts';
import { until } from './helpers.ts';

/** Every file an import wrote, relative to `out`. */
const written = (out: string) => [...tree(out).entries()].filter(([, what]) => what !== 'folder').map(([rel]) => rel);

/** The refusals of an import's report, as `file: why`. */
const refusals = (out: string): string[] => readReport(out).refused.map((r: { file: string; why: string }) => `${r.file}: ${r.why}`);

/** An import that refused what it was given record by record: exit code 1, one line, no trace. */
function expectRecordsRefused(ran: Ran): void {
  expectNoTrace(ran);
  expect(said(ran.stderr)).toHaveLength(1);
  expect(said(ran.stderr)[0]).toMatch(/were not imported: each is in .*\.import-report\.json, with why$/);
  expect(ran.code).toBe(1);
}

/** The build takes what the import wrote, with no problem. */
async function expectBuilds(out: string): Promise<void> {
  const built = await command('build', ['--data', out, '--check']);
  expect(built.stderr + built.stdout).toMatch(/no problems/);
  expect(built.code).toBe(0);
}

describe('the importer’s boundary', () => {
  it('writes a record only under a name the build takes, and says which it refused', async () => {
    const { dir, from, out } = await pokeWorld();
    // The user's own file, where `../../home/victim` reaches from `<out>/language/`.
    fs.mkdirSync(path.join(dir, 'home'));
    fs.writeFileSync(path.join(dir, 'home', 'victim.yaml'), 'mine: true\n');
    const names: Array<[string, number, string]> = [
      ['language', 9, '../../home/victim'],
      ['language', 5, ''],
      ['type', 10, '.hidden'],
      ['gender', 1, 'a/b'],
      ['gender', 2, 'x\u0000y'],
      ['ability', 1, 'FIRE!'],
      ['stat', 6, '12'],
    ];
    for (const [kind, id, name] of names) editRecord(from, kind, id, (r) => void (r.name = name));
    const before = outsideOut(dir, out);

    const ran = await command('import', ['--from', from, '--out', out]);
    expectRecordsRefused(ran);
    expect(outsideOut(dir, out)).toEqual(before);
    expect(fs.readFileSync(path.join(dir, 'home', 'victim.yaml'), 'utf8')).toBe('mine: true\n');
    for (const rel of written(out)) expect(isSlug(path.basename(rel, '.yaml')) && rel.split('/').length === 2).toBe(true);
    expect(refusals(out)).toEqual(
      expect.arrayContaining(
        names.map(([kind, id, name]) =>
          expect.stringMatching(`^${kind}/${id}/index.json: its name ${JSON.stringify(JSON.stringify(name)).slice(1, -1)} is no name`),
        ),
      ),
    );
    expect(ran.stdout).toContain('language/9/index.json: its name "../../home/victim" is no name the build takes');
    await expectBuilds(out);
  }, 60_000);

  it('prints what the folder names as seen, never obeyed: a kind folder it skips, a generation named in a fact', async () => {
    const { from, out } = await pokeWorld();
    const kind = 'evil\u001b]0;title\u0007\n::warning::kind';
    fs.mkdirSync(path.join(from, kind, '1'), { recursive: true });
    fs.writeFileSync(path.join(from, kind, '1', 'index.json'), '{"id":1,"name":"x"}');
    // PokeAPI against itself (ghost's past row no longer taking double damage from ghost), the fact
    // naming the generation as the record names it.
    const generation = 'gen\u001b]0;title\u0007\u009b2K\u202e\n::notice::fact';
    editRecord(from, 'type', 8, (r) => {
      r.past_damage_relations[0].generation.name = generation;
      r.past_damage_relations[0].damage_relations.double_damage_from = [];
    });
    const ran = await command('import', ['--from', from, '--out', out]);
    // Any control character but the line breaks the output is made of, or a bidirectional mark.
    const unshowable = /[^\P{Cc}\n]|[\u202a-\u202e\u2066-\u2069]/u;
    for (const printed of [ran.stdout, ran.stderr]) {
      expect(printed).not.toMatch(unshowable);
      expect(printed.split('\n').filter((line) => line.trimStart().startsWith('::'))).toEqual([]);
    }
    expect(ran.stdout).toContain('evil\\x1b]0;title\\x07\\x0a::warning::kind');
    expect(ran.stdout).toContain('gen\\x1b]0;title\\x07\\x9b2K\\u202e\\x0a::notice::fact');
    expect(fs.readFileSync(`${out}.import-report.json`, 'utf8')).not.toMatch(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });

  it('reads a file only if it is a regular file inside --from, under the size limit, one for each record', async () => {
    const { dir, from, out } = await pokeWorld();
    const outside = path.join(dir, 'outside');
    fs.mkdirSync(path.join(outside, 'kind', '1'), { recursive: true });
    const secret = (id: number) =>
      JSON.stringify({ ...JSON.parse(fs.readFileSync(recordFile(from, 'type', 17), 'utf8')), id, name: 'secret' });
    fs.writeFileSync(path.join(outside, 'secret.json'), secret(17));
    fs.writeFileSync(path.join(outside, 'kind', '1', 'index.json'), secret(1));
    const replace = (kind: string, id: number, make: (file: string) => void) => {
      fs.rmSync(recordFile(from, kind, id));
      make(recordFile(from, kind, id));
    };
    replace('type', 17, (file) => fs.symlinkSync(path.join(outside, 'secret.json'), file));
    replace('type', 18, (file) => fs.symlinkSync('/dev/zero', file));
    replace('type', 14, (file) => expect(spawnSync('mkfifo', [file]).status).toBe(0));
    replace('type', 9, (file) => fs.symlinkSync(path.join(dir, 'nowhere.json'), file));
    // Far over the limit, and sparse: nothing of it is on the disk, or to be read.
    replace('language', 5, (file) => {
      fs.writeFileSync(file, '');
      fs.truncateSync(file, 200 * 1024 * 1024);
    });
    // A link inside --from to a file inside it is read as the file.
    fs.renameSync(recordFile(from, 'type', 8), path.join(from, 'type-8.json'));
    fs.symlinkSync(path.join(from, 'type-8.json'), recordFile(from, 'type', 8));
    // Folders: a kind and a record's folder that lead out of --from.
    fs.rmSync(path.join(from, 'berry'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'kind'), path.join(from, 'berry'));
    fs.symlinkSync(path.join(outside, 'kind', '1'), path.join(from, 'type', '99'));
    // Two folders of one id: the one written as the number holds it.
    fs.cpSync(path.join(from, 'type', '10'), path.join(from, 'type', '010'), { recursive: true });
    const before = outsideOut(dir, out);

    const ran = await command('import', ['--from', from, '--out', out], 30_000);
    expectRecordsRefused(ran);
    expect(outsideOut(dir, out)).toEqual(before);
    // Records that must name a type refused go too (a move's type), each said.
    const [own, named] = partition(refusals(out), (line) => !line.endsWith('(a reference to a record not imported is left out)'));
    expect(named.length).toBeGreaterThan(0);
    expect(own).toEqual([
      `berry: is a link to ${path.join(outside, 'kind')}, outside --from: not followed`,
      `language/5/index.json: is 209715200 bytes, over the limit of 4194304`,
      `type/9/index.json: is a link to ${path.join(dir, 'nowhere.json')}, which does not exist`,
      `type/010: names the id 10, as type/10 does`,
      `type/14/index.json: is a FIFO (a named pipe), not a regular file`,
      `type/17/index.json: leads to ${path.join(outside, 'secret.json')}, outside ${from}: only what is inside it is read`,
      `type/18/index.json: leads to /dev/zero, outside ${from}: only what is inside it is read`,
      `type/99: is a link to ${path.join(outside, 'kind', '1')}, outside --from: not followed`,
    ]);
    expect(fs.existsSync(path.join(out, 'type', 'ghost.yaml'))).toBe(true); // type 8, read through its link
    for (const rel of written(out)) expect(fs.readFileSync(path.join(out, rel), 'utf8')).not.toContain('secret');
  }, 60_000);

  it('gives a name PokeAPI gives twice a new one that no record has, and imports every record', async () => {
    const { from, out } = await pokeWorld();
    const first = JSON.parse(fs.readFileSync(recordFile(from, 'type', 1), 'utf8')).name as string;
    // The later of two records named alike becomes <name>-<id>, which another record has already.
    editRecord(from, 'type', 8, (r) => void (r.name = `${first}-10`));
    editRecord(from, 'type', 10, (r) => void (r.name = first));
    const ran = await command('import', ['--from', from, '--out', out]);
    expectNoTrace(ran);
    expect(ran.code, ran.stderr).toBe(0);
    expect(fs.readdirSync(path.join(out, 'type'))).toEqual(
      expect.arrayContaining([`${first}.yaml`, `${first}-10.yaml`, `${first}-10-2.yaml`]),
    );
    expect(fs.readFileSync(path.join(out, 'type', `${first}-10-2.yaml`), 'utf8')).toMatch(/^id: 10$/m);
    await expectBuilds(out);
  }, 60_000);

  it('refuses a malformed record, and says why, with no stack trace', async () => {
    const { dir, from, out } = await pokeWorld();
    const raw = (kind: string, id: number, text: string | Buffer) => fs.writeFileSync(recordFile(from, kind, id), text);
    editRecord(from, 'type', 9, (r) => void (r.damage_relations = 'x'));
    editRecord(from, 'stat', 1, (r) => void (r.affecting_items = {}));
    editRecord(from, 'stat', 2, (r) => void (r.names = [null]));
    editRecord(from, 'item', 1, (r) => void (r.names[0].language = 7));
    raw(
      'type',
      10,
      fs.readFileSync(recordFile(from, 'type', 10), 'utf8').replace('{', `{"deep": ${'['.repeat(200_000)}${']'.repeat(200_000)},`),
    );
    raw('type', 14, fs.readFileSync(recordFile(from, 'type', 14), 'utf8').replace('{', '{"__proto__": {"polluted": "yes"},'));
    editRecord(from, 'nature', 1, (r) => void (r.names[0].constructor = { polluted: 'yes' }));
    raw('move', 1, '{"id": 1, "name": ');
    raw('move', 2, '[1, 2]');
    raw('move', 4, Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
    editRecord(from, 'move', 5, (r) => void (r.id = 6));
    editRecord(from, 'ability', 1, (r) => void (r.names[0].name = 'x'.repeat(5 * 1024 * 1024)));
    // A chain's link below its first, where the shape holds itself: it had gone unchecked, and crashed the import.
    editRecord(from, 'evolution-chain', 1, (r) => void (r.chain.evolves_to[0].evolves_to = 5));
    editRecord(from, 'evolution-chain', 2, (r) => void (r.chain.evolves_to[0].evolution_details = [null]));
    // Two keys that are one field once renamed: the last had been kept and the first lost without a word.
    editRecord(from, 'location-area', 1, (r) => void (r.creature_encounters = []));
    raw('type', 17, fs.readFileSync(recordFile(from, 'type', 17), 'utf8').replace('{', '{"name": "blaze",'));
    fs.mkdirSync(path.join(from, 'type', 'fire'));
    fs.copyFileSync(recordFile(from, 'type', 18), path.join(from, 'type', 'fire', 'index.json'));
    const before = outsideOut(dir, out);

    const ran = await command('import', ['--from', from, '--out', out]);
    expectRecordsRefused(ran);
    expect(outsideOut(dir, out)).toEqual(before);
    expect(refusals(out)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ability\/1\/index.json: is \d+ bytes, over the limit of 4194304$/),
        'item/1/index.json: /names/0/language is 7 where the specification has a mapping',
        expect.stringMatching(/^move\/1\/index.json: is not JSON: /),
        'move/2/index.json: is not a record (a JSON object)',
        'move/4/index.json: is not UTF-8 text',
        'move/5/index.json: holds the id 6, where its folder says 5',
        'nature/1/index.json: holds the key "constructor", which names an object\'s machinery in JavaScript',
        'stat/1/index.json: /affecting_items is a mapping where the specification has a list',
        'stat/2/index.json: /names/0 is null where the specification has a mapping',
        'type/9/index.json: /damage_relations is "x" where the specification has a mapping',
        'type/10/index.json: nests more than 32 levels deep, as no record does',
        'type/14/index.json: holds the key "__proto__", which names an object\'s machinery in JavaScript',
        'evolution-chain/1/index.json: /chain/evolves_to/0/evolves_to is 5 where the specification has a list',
        'evolution-chain/2/index.json: /chain/evolves_to/0/evolution_details/0 is null where the specification has a mapping',
        'location-area/1/index.json: holds both "pokemon_encounters" and "creature_encounters", which are one field here',
        'type/17/index.json: writes the key "name" twice in one object: JSON would keep the last',
        'type/fire: is a folder not named by an id, so holds no record PokeAPI would serve',
      ]),
    );
    for (const rel of written(out)) expect(fs.readFileSync(path.join(out, rel), 'utf8')).not.toContain('polluted');
    await expectBuilds(out);
  }, 60_000);
});

describe('the folders it is given', () => {
  it('refuses an --out it must not write, and a --from it cannot read, in one line with exit code 2, before reading', async () => {
    const { dir, from } = await pokeWorld();
    fs.writeFileSync(path.join(dir, 'a-file'), 'mine');
    fs.mkdirSync(path.join(dir, 'empty'));
    fs.symlinkSync(path.join(dir, 'empty'), path.join(dir, 'link'));
    const cases: Array<[string, string[], RegExp]> = [
      [
        '--out under a file',
        ['--from', from, '--out', path.join(dir, 'a-file', 'out')],
        /a-file is a file, so nothing can be made under it$/,
      ],
      ['--out in /proc', ['--from', from, '--out', '/proc/crs-import'], /is under \/proc, which holds no real files$/],
      ['--out in /dev', ['--from', from, '--out', '/dev/crs-import'], /is under \/dev, which holds no real files$/],
      ['--out that is --from', ['--from', from, '--out', from], /is --from; choose another folder$/],
      ['--out inside --from', ['--from', from, '--out', path.join(from, 'type', 'out')], /is inside --from; choose another folder$/],
      ['--out that holds --from', ['--from', path.join(from, 'type'), '--out', from], /holds --from; choose another folder$/],
      [
        '--out that is the project',
        ['--from', from, '--out', projectRoot],
        /the project; choose another folder$|is inside the output folder/,
      ],
      [
        '--out inside the data folder',
        ['--from', from, '--out', path.join(projectRoot, 'data', 'crs-import')],
        /is inside the data folder/,
      ],
      ['--out that is the data folder, not empty', ['--from', from], /exists and is not empty/],
      ['--out that is a link', ['--from', from, '--out', path.join(dir, 'link')], /is a link; name the folder it leads to$/],
      ['--out too long a name', ['--from', from, '--out', path.join(dir, 'x'.repeat(300))], /ENAMETOOLONG/],
      ['--from missing', ['--from', path.join(dir, 'nowhere'), '--out', path.join(dir, 'out')], /no such folder$/],
      ['--from a file', ['--from', path.join(dir, 'a-file'), '--out', path.join(dir, 'out')], /is a file, not a folder$/],
    ];
    const before = tree(dir);
    const data = tree(path.join(projectRoot, 'data'));
    for (const [label, args, message] of cases) {
      const ran = await command('import', args);
      expectNoTrace(ran);
      // One line, and no progress line: nothing was read.
      expect(ran.stderr.trim().split('\n'), label).toEqual([expect.stringMatching(message)]);
      expect(ran.code, label).toBe(2);
      expect(tree(dir), label).toEqual(before);
    }
    expect(tree(path.join(projectRoot, 'data'))).toEqual(data);
  }, 120_000);
});

describe('/dev/shm', () => {
  // The folder under /dev made to hold files (in memory): `npm test` keeps its temp folders there.
  it.skipIf(!fs.existsSync('/dev/shm'))('is a folder an --out may be in', async () => {
    const { from } = await pokeWorld();
    const out = fs.mkdtempSync('/dev/shm/crs-import-');
    try {
      const ran = await command('import', ['--from', from, '--out', path.join(out, 'data')]);
      expect(ran.code, ran.stderr).toBe(0);
      expect(fs.readdirSync(path.join(out, 'data'))).toContain('type');
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});

describe('a full disk', () => {
  // A file system of 700 kB (tmpfs, where this process may mount one) holds the records but not a
  // report of 3,000 refusals: the import fails, and leaves nothing there, not even a cut-off report
  // that would refuse the next import, nor the folders it made above --out.
  it('leaves nothing where it could not write its report', async (ctx) => {
    const { dir, from } = await pokeWorld('crs-import-full-');
    for (let id = 100_000; id < 103_000; id++) fs.writeFileSync(path.join(from, 'gender', String(id)), '');
    const disk = path.join(dir, 'disk');
    fs.mkdirSync(disk);
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=700k', 'tmpfs', disk]).status !== 0) return ctx.skip();
    try {
      const ran = await command('import', ['--from', from, '--out', path.join(disk, 'made', 'data')]);
      expectNoTrace(ran);
      expect(said(ran.stderr)).toEqual([
        expect.stringMatching(/data\.import-report\.json: could not be written \(ENOSPC\); nothing was imported$/),
      ]);
      expect(ran.code).toBe(3);
      expect(fs.readdirSync(disk)).toEqual([]);
    } finally {
      spawnSync('umount', [disk]);
    }
  }, 60_000);
});

describe('a stopped import', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    'removes its folder and exits, on %s, with %i',
    async (signal, code) => {
      const world = await pokeWorld('crs-import-stop-');
      const { dir, from } = world;
      // Folders above --out that the import makes are its own too, and go with it.
      const out = path.join(path.dirname(world.out), 'made', 'for', 'it', path.basename(world.out));
      // Records enough that the write takes a while: the signal comes while its folder is there.
      const language = JSON.parse(fs.readFileSync(recordFile(from, 'language', 9), 'utf8'));
      for (let id = 1000; id < 4000; id++) {
        fs.mkdirSync(path.join(from, 'language', String(id)));
        fs.writeFileSync(recordFile(from, 'language', id), JSON.stringify({ ...language, id, name: `tongue-${id}`, names: [] }));
      }
      const before = outsideOut(dir, out);
      const child = spawn(process.execPath, ['build/launch.mjs', 'import', '--from', from, '--out', out], {
        cwd: projectRoot,
        env: { ...process.env, CI: '1' },
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.stdout.resume();
      const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
      const temp = `${out}.importing-${child.pid}`;
      await until(
        async () => fs.existsSync(temp),
        60_000,
        () => stderr,
      );
      child.kill(signal);
      expect(await exited).toBe(code);
      expect(fs.existsSync(temp)).toBe(false);
      expect(fs.existsSync(out)).toBe(false);
      expect(fs.existsSync(`${out}.import-report.json`)).toBe(false);
      expect(outsideOut(dir, out)).toEqual(before);
      expect(said(stderr)).toEqual(['the import was stopped: nothing was written']);
    },
    90_000,
  );
});

/** The items of `list` that pass `test`, and the others. */
function partition<T>(list: T[], test: (item: T) => boolean): [T[], T[]] {
  return [list.filter(test), list.filter((item) => !test(item))];
}

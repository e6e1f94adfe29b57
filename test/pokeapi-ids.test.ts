// Ids as PokeAPI has them: its move ailments "unknown" (-1) and "none" (0), its move category
// "damage" (0). A kind whose schema's `id` states a lower `minimum` takes those ids from an author
// and from the importer, publishes them at their paths, resolves references to them by name and by
// id, and keeps them in the cache of checked records; every other guard holds (a kind without such a
// minimum still starts at 1, an id is an integer, a name a slug). Through the real commands: the
// build and the import as child processes, the output served by the real server on loopback.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BASE, fixtureWorld, serve } from './helpers.ts';
import { command, pokeWorld, readReport, recordFile } from './import-run.ts';

const exec = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `node build/launch.mjs build --data … --out … --plain --report json`, with the records' cache in `cache`. */
async function build(data: string, out: string, cache: string): Promise<Run> {
  const args = ['build/launch.mjs', 'build', '--data', data, '--out', out, '--plain', '--report', 'json'];
  try {
    const { stdout, stderr } = await exec(process.execPath, args, {
      cwd: root,
      env: { ...process.env, BASE_URL: BASE, CRS_CACHE_DIR: cache },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const { code, stdout, stderr } = err as Run;
    return { code, stdout, stderr };
  }
}

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));
const api = (out: string, ...parts: Array<string | number>) => path.join(out, 'api', 'v2', ...parts.map(String), 'index.json');
/** The problems a failed build reported, as `file pointer: message`. */
const problemsOf = (run: Run): string[] =>
  (JSON.parse(run.stdout).problems as Array<{ file: string; pointer: string; message: string }>).map(
    (p) => `${p.file} ${p.pointer}: ${p.message}`,
  );

describe('ids 0 and -1 in a world', () => {
  it('publishes them at their paths, lists them first, resolves references to them by name and id, and takes them from the cache', async () => {
    const world = await fixtureWorld();
    const cache = path.join(world.root, 'cache');
    const first = await build(world.data, world.out, cache);
    expect(first.code, first.stderr).toBe(0);

    const unknown = readJson(api(world.out, 'move-ailment', -1));
    expect(unknown).toMatchObject({ id: -1, name: 'unknown' });
    expect(fs.readFileSync(api(world.out, 'move-ailment', 'unknown'), 'utf8')).toBe(
      fs.readFileSync(api(world.out, 'move-ailment', -1), 'utf8'),
    );
    expect(readJson(api(world.out, 'move-ailment', 0))).toMatchObject({ id: 0, name: 'none' });
    expect(readJson(api(world.out, 'move-category', 0))).toMatchObject({ id: 0, name: 'damage' });
    const list = readJson(path.join(world.out, 'api', 'v2', 'move-ailment', 'index.json'));
    expect(list.results.slice(0, 2)).toEqual([
      { name: 'unknown', url: `${BASE}/api/v2/move-ailment/-1/` },
      { name: 'none', url: `${BASE}/api/v2/move-ailment/0/` },
    ]);
    // The starter's blaze-awakening names its ailment by the id -1, iron-wall its ailment by the id 0:
    // each reference becomes the record's, and each record lists the move that names it.
    const blaze = readJson(api(world.out, 'move', 'blaze-awakening'));
    expect(blaze.meta.ailment).toEqual({ name: 'unknown', url: `${BASE}/api/v2/move-ailment/-1/` });
    expect(unknown.moves).toEqual([{ name: 'blaze-awakening', url: `${BASE}/api/v2/move/${blaze.id}/` }]);
    expect(readJson(api(world.out, 'move', 'iron-wall')).meta.ailment.url).toBe(`${BASE}/api/v2/move-ailment/0/`);
    expect(readJson(api(world.out, 'move-ailment', 0)).moves.map((m: { name: string }) => m.name)).toContain('iron-wall');

    // A second build over the plain output takes every record from the cache of checked records, those of ids -1 and 0 too.
    const again = await build(world.data, world.out, cache);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ parsed: 0 });

    const server = await serve(world.out);
    try {
      for (const key of ['-1', '0', 'unknown', 'none']) {
        const res = await fetch(`${server.url}/api/v2/move-ailment/${key}/`);
        expect(res.status, key).toBe(200);
        expect(((await res.json()) as { name: string }).name).toBe(key === '-1' || key === 'unknown' ? 'unknown' : 'none');
      }
      expect((await fetch(`${server.url}/api/v2/move-ailment/-2/`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('still refuses an id below the kind’s first (−2 for an ailment, 0 for a gender), a reference to one, and a name of digits', async () => {
    const world = await fixtureWorld();
    const data = world.data;
    const edit = (rel: string, from: RegExp, to: string) => {
      const file = path.join(data, rel);
      const text = fs.readFileSync(file, 'utf8');
      expect(text).toMatch(from);
      fs.writeFileSync(file, text.replace(from, to));
    };
    edit('move-ailment/burn.yaml', /^id: 4$/m, 'id: -2');
    edit('gender/female.yaml', /^id: 1$/m, 'id: 0');
    edit('move/ember-bite.yaml', /^ {2}ailment: burn$/m, '  ailment: -3');
    fs.writeFileSync(path.join(data, 'move-category', '-1.yaml'), 'id: -1\nname: "-1"\n');
    const run = await build(data, world.out, path.join(world.root, 'cache'));
    expect(run.code).toBe(1);
    expect(problemsOf(run).sort()).toEqual([
      'data/gender/female.yaml /id: must be >= 1 (got 0)',
      'data/move-ailment/burn.yaml /id: must be >= -1 (got -2)',
      'data/move-category/-1.yaml /id: must be >= 0 (got -1)',
      'data/move-category/-1.yaml /name: "-1" is not a valid name',
      'data/move/ember-bite.yaml /meta/ailment: must be >= -1 (got -3)',
    ]);
    expect(fs.existsSync(world.out)).toBe(false);
  });
});

describe('ids 0 and -1 imported from PokeAPI', () => {
  it('imports them as written, builds them at their paths, and refuses an id the kind does not take, in the report', async () => {
    const { dir, from, out } = await pokeWorld();
    // A currency numbered 0, where the kind starts at 1 (PokeAPI's do), is refused by the build's own rule, and said in the report.
    fs.mkdirSync(path.join(from, 'currency', '0'));
    fs.writeFileSync(recordFile(from, 'currency', 0), JSON.stringify({ id: 0, name: 'zero-coin', names: [] }));
    const imported = await command('import', ['--from', from, '--out', out]);
    expect(imported.code, imported.stderr).toBe(1);
    const report = readReport(out);
    expect(report.refused.filter((r: { file: string }) => r.file.startsWith('currency/'))).toEqual([
      { file: 'currency/0/index.json', why: 'the build would refuse it: /id must be >= 1' },
    ]);
    expect(report.records).toMatchObject({ 'move-ailment': 3, 'move-category': 3 });
    expect(fs.readFileSync(path.join(out, 'move-ailment', 'unknown.yaml'), 'utf8')).toMatch(/^id: -1\nname: unknown\n/);
    expect(fs.readFileSync(path.join(out, 'move-ailment', 'none.yaml'), 'utf8')).toMatch(/^id: 0\nname: none\n/);
    expect(fs.readFileSync(path.join(out, 'move', 'iron-wall.yaml'), 'utf8')).toContain('  ailment: unknown\n');

    const built = await build(out, path.join(dir, 'dist'), path.join(dir, 'cache'));
    expect(built.code, built.stderr).toBe(0);
    const dist = path.join(dir, 'dist');
    expect(readJson(api(dist, 'move-ailment', -1))).toMatchObject({ id: -1, name: 'unknown', moves: [{ name: 'iron-wall' }] });
    expect(readJson(api(dist, 'move-ailment', 0))).toMatchObject({ id: 0, name: 'none' });
    expect(readJson(api(dist, 'move-category', 0))).toMatchObject({ id: 0, name: 'damage', moves: [{ name: 'night-rush' }] });
    expect(readJson(api(dist, 'move', 4)).meta.ailment).toEqual({ name: 'unknown', url: `${BASE}/api/v2/move-ailment/-1/` });
  });
});

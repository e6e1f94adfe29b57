// `/api/v2/meta/` and a creature's encounters (`/api/v2/creature/<id>/encounters`), as PokeAPI gives
// them, through the real build command and the real server on loopback: meta is in the index, the
// same across a rebuild that changes nothing, dated by SOURCE_DATE_EPOCH alone; a creature's
// encounters are what the location areas say of it, every condition value among them.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { diffFolders } from '../build/diff/compare.ts';
import { BASE, fixtureWorld, rawRequest, serve, snapshot, tempDir } from './helpers.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');

type Json = Record<string, any>;

/** `npm run build` of `data` into `out`, as its own process: its exit code, output and the files it wrote. */
async function build(data: string, out: string, env: Record<string, string> = {}, options: string[] = []) {
  const args = ['build/launch.mjs', 'build', '--data', data, '--out', out, ...options];
  try {
    // SOURCE_DATE_EPOCH empty is unset, as for BASE_URL.
    const { stdout, stderr } = await run(process.execPath, args, {
      cwd: root,
      env: { ...process.env, BASE_URL: BASE, CI: '1', SOURCE_DATE_EPOCH: '', ...env },
    });
    const said = stdout + stderr;
    // A build that finds nothing changed says so, and writes nothing.
    const written = /^nothing changed: /m.test(said) ? 0 : Number(/^\s*written\s+(\d+)$/m.exec(said)?.[1]);
    return { code: 0, stderr, written };
  } catch (err) {
    const e = err as { code: number; stderr: string };
    return { code: e.code, stderr: e.stderr, written: Number.NaN };
  }
}

const servers: Array<() => Promise<void>> = [];
afterAll(() => Promise.all(servers.map((close) => close())));

/** The starter world, built by the command and served by the local server. */
async function servedWorld() {
  const w = await fixtureWorld();
  expect((await build(w.data, w.out)).code).toBe(0);
  const server = await serve(w.out);
  servers.push(server.close);
  const get = async (pathname: string) => {
    const answer = await rawRequest(server.url, pathname);
    return { ...answer, json: JSON.parse(answer.body) };
  };
  return { ...w, get };
}

/** A url of the API as the path the server is asked. */
const pathOf = (url: string) => url.slice(BASE.length);

describe('/api/v2/meta/', () => {
  it('is in the index and answers as PokeAPI’s, the same after a rebuild that changes nothing', async () => {
    const w = await servedWorld();
    const index = await w.get('/api/v2/');
    expect(index.json.meta).toBe(`${BASE}/api/v2/meta/`);
    expect(Object.keys(index.json)).toEqual(Object.keys(index.json).sort());
    const meta = await w.get('/api/v2/meta/');
    expect(meta.status).toBe(200);
    expect(meta.headers['content-type']).toMatch(/^application\/json/);
    expect(meta.json).toEqual({ deploy_date: '0', hash: expect.stringMatching(/^[0-9a-f]{40}$/), tag: null });
    // Without the slash, and with a query, which pages nothing: it is no list.
    for (const p of ['/api/v2/meta', '/api/v2/meta/?offset=0&limit=1']) expect((await w.get(p)).body, p).toBe(meta.body);
    // The dumps' folder lists its files, and is no kind's list either: a query there had been a 500.
    const dumps = await w.get('/api/v2/ndjson/');
    expect(dumps.status).toBe(200);
    for (const p of ['/api/v2/ndjson/?limit=2', '/api/v2/ndjson/?offset=0'])
      expect(await w.get(p), p).toMatchObject({ status: 200, body: dumps.body });

    const again = await build(w.data, w.out);
    expect(again.code).toBe(0);
    expect(again.written).toBe(0);
    expect((await w.get('/api/v2/meta/')).body).toBe(meta.body);

    // Another source, another hash; the date is still the one it is given.
    const fire = path.join(w.data, 'type', 'fire.yaml');
    fs.writeFileSync(fire, `${fs.readFileSync(fire, 'utf8')}# a comment changes the source, not its records\n`);
    expect((await build(w.data, w.out)).code).toBe(0);
    const edited = (await w.get('/api/v2/meta/')).json;
    expect(edited.hash).not.toBe(meta.json.hash);
    expect(edited.deploy_date).toBe('0');
  });

  it('takes its date from SOURCE_DATE_EPOCH, and a clean build of the same sources states the same', async () => {
    const w = await servedWorld();
    const before = (await w.get('/api/v2/meta/')).json;
    const dated = await build(w.data, w.out, { SOURCE_DATE_EPOCH: '1700000000' });
    expect(dated.code).toBe(0);
    expect(dated.written).toBe(1); // the date is in meta alone
    const meta = await w.get('/api/v2/meta/');
    expect(meta.json).toEqual({ deploy_date: '1700000000', hash: before.hash, tag: null });
    const clean = path.join(await tempDir(), 'dist');
    expect((await build(w.data, clean, { SOURCE_DATE_EPOCH: '1700000000' })).code).toBe(0);
    expect(fs.readFileSync(path.join(clean, 'api/v2/meta/index.json'), 'utf8')).toBe(meta.body);

    const wrong = await build(w.data, w.out, { SOURCE_DATE_EPOCH: 'yesterday' });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('SOURCE_DATE_EPOCH must be whole seconds since 1970, got "yesterday"');
    expect((await w.get('/api/v2/meta/')).body).toBe(meta.body);
  });
});

/**
 * A creature's encounters as its areas publish them: per area listing it, by id, each version once
 * with its ways of meeting it, their chances summed; an area holds one condition value of each.
 */
function fromAreas(areas: Json[], creatureUrl: string): Json[] {
  return areas.flatMap((area) =>
    area.creature_encounters
      .filter((encounter: Json) => encounter.creature.url === creatureUrl)
      .map((encounter: Json) => {
        const versions = new Map<string, Json>();
        for (const { version, encounter_details: detail } of encounter.version_details) {
          const at = versions.get(version.url) ?? { version, max_chance: 0, encounter_details: [] };
          versions.set(version.url, at);
          const { condition_values: value, ...rest } = detail;
          at.encounter_details.push({ ...rest, condition_values: value ? [value] : [] });
          at.max_chance += detail.chance;
        }
        return {
          location_area: { name: area.name, url: `${BASE}/api/v2/location-area/${area.id}/` },
          version_details: [...versions.values()],
        };
      }),
  );
}

describe('a creature’s encounters', () => {
  it('are what its location areas say of it, at the url the creature gives, by id and by name', async () => {
    const w = await servedWorld();
    const areaList = (await w.get('/api/v2/location-area/')).json.results;
    const areas = await Promise.all(areaList.map(async (ref: Json) => (await w.get(pathOf(ref.url))).json));
    const creatures = (await w.get('/api/v2/creature/')).json.results;
    let met = 0;
    let nowhere = 0;
    for (const ref of creatures) {
      const creature = (await w.get(pathOf(ref.url))).json;
      expect(creature.location_area_encounters).toBe(`${BASE}/api/v2/creature/${creature.id}/encounters`);
      const answer = await w.get(pathOf(creature.location_area_encounters));
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(answer.json, creature.name).toEqual(fromAreas(areas, ref.url));
      for (const p of [`/api/v2/creature/${creature.id}/encounters/`, `/api/v2/creature/${creature.name}/encounters`])
        expect((await w.get(p)).body, p).toBe(answer.body);
      if (answer.json.length > 0) met++;
      else nowhere++;
    }
    // A creature met nowhere has an empty list, as PokeAPI gives it.
    expect(met).toBeGreaterThan(0);
    expect(nowhere).toBeGreaterThan(0);
    const missing = await w.get('/api/v2/creature/9999/encounters');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ detail: 'Not found.' });
  });

  it('hold every condition value an area lists, where the area publishes the first, and a rebuild gives a clean build’s bytes', async () => {
    const w = await servedWorld();
    const file = path.join(w.data, 'location-area', 'tide-cove-shore.yaml');
    const text = fs.readFileSync(file, 'utf8');
    const one = '          method: walk\n          condition_values: time-day\n';
    expect(text).toContain(one);
    const details = '          creature_details: { always_shiny: false, is_alpha: true, min_perfect_ivs: 3, never_shiny: false }\n';
    fs.writeFileSync(file, text.replace(one, `          method: walk\n          condition_values: [time-day, time-night]\n${details}`));
    const rebuilt = await build(w.data, w.out);
    expect(rebuilt.code).toBe(0);

    const area = (await w.get('/api/v2/location-area/3/')).json;
    const inArea = area.creature_encounters.find((e: Json) => e.creature.name === 'sproutle').version_details[0].encounter_details;
    expect(inArea.condition_values).toEqual({ name: 'time-day', url: `${BASE}/api/v2/encounter-condition-value/1/` });
    expect(inArea.creature_details).toEqual({ always_shiny: false, is_alpha: true, min_perfect_ivs: 3, never_shiny: false });
    const sproutle = (await w.get('/api/v2/creature/sproutle/')).json;
    const encounters = (await w.get(pathOf(sproutle.location_area_encounters))).json;
    const there = encounters.find((e: Json) => e.location_area.name === 'tide-cove-shore').version_details[0].encounter_details[0];
    expect(there.condition_values.map((ref: Json) => ref.name)).toEqual(['time-day', 'time-night']);
    expect(there.creature_details).toEqual(inArea.creature_details);

    const clean = path.join(await tempDir(), 'dist');
    expect((await build(w.data, clean)).code).toBe(0);
    expect(await snapshot(w.out)).toEqual(await snapshot(clean));
  });

  it('are named in the API diff when their record goes, and meta is no kind there', async () => {
    const w = await fixtureWorld();
    const before = path.join(await tempDir(), 'dist');
    expect((await build(w.data, before, { SOURCE_DATE_EPOCH: '1' }, ['--plain'])).code).toBe(0);
    // The creature tidefin is renamed finray: its name's urls go, its encounters' among them.
    fs.renameSync(path.join(w.data, 'creature', 'tidefin.yaml'), path.join(w.data, 'creature', 'finray.yaml'));
    const renamed = path.join(w.data, 'creature', 'finray.yaml');
    fs.writeFileSync(renamed, fs.readFileSync(renamed, 'utf8').replace(/^name: tidefin$/m, 'name: finray'));
    for (const rel of ['location-area/tide-cove-shore.yaml', 'creature-form/tidefin.yaml', 'creature-form/tidefin-coral.yaml']) {
      const file = path.join(w.data, rel);
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/creature: tidefin$/m, 'creature: finray'));
    }
    const after = path.join(await tempDir(), 'dist');
    expect((await build(w.data, after, { SOURCE_DATE_EPOCH: '2' }, ['--plain'])).code).toBe(0);
    const diff = diffFolders(before, after);
    expect(diff.kinds.map((k) => k.kind)).not.toContain('meta');
    const creature = diff.kinds.find((k) => k.kind === 'creature')!;
    expect(creature.renamed).toEqual([{ id: 2, from: 'tidefin', to: 'finray' }]);
    const why = 'creature 2 was renamed tidefin → finray';
    expect(diff.breaking.urls.filter((u) => u.kind === 'creature')).toEqual(
      ['/api/v2/creature/tidefin/', '/api/v2/creature/tidefin/encounters/'].map((p) => ({
        path: p,
        url: `${BASE}${p}`,
        kind: 'creature',
        why,
      })),
    );
  });
});

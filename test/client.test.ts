// An existing PokeAPI client, pokenode-ts, pointed at a built world on the real server: records by
// id and by name, a link followed from one record to another, and a list walked page by page.
// Only endpoints whose paths the two APIs share are used: type, stat, gender, location-area.
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { MainClient, PokenodeError, type Type } from 'pokenode-ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../build/pipeline/build.ts';
import { fixtureWorld, serve } from './helpers.ts';

let world: { root: string; data: string; out: string };
let server: { url: string; close: () => Promise<void> };
/** Every url the client asked for, in order. */
const requested: string[] = [];
let api: MainClient;

/** The record as the build wrote it. */
const built = (kind: string, key: string | number) =>
  JSON.parse(readFileSync(path.join(world.out, 'api', 'v2', kind, String(key), 'index.json'), 'utf8'));

beforeAll(async () => {
  world = await fixtureWorld('starter');
  await fs.mkdir(world.out, { recursive: true });
  // The server serves whatever is in the folder, so it can start first and tell the build its url.
  server = await serve(world.out);
  await build({ dataDir: world.data, outDir: world.out, baseUrl: server.url });
  api = new MainClient({
    baseURL: `${server.url}/api/v2`,
    cache: false,
    fetch: (input, init) => {
      requested.push(input);
      return fetch(input, init);
    },
  });
});

afterAll(async () => {
  await server?.close();
  if (world) await fs.rm(world.root, { recursive: true, force: true });
});

describe('pokenode-ts against the built API', () => {
  it('fetches a type by id and by name', async () => {
    const byId = await api.pokemon.getTypeById(2);
    const byName = await api.pokemon.getTypeByName('fire');
    expect(byId.name).toBe('fire');
    expect(byId).toEqual(byName);
    expect(byId).toEqual(built('type', 2));
    expect(requested).toContain(`${server.url}/api/v2/type/2`);
    expect(requested).toContain(`${server.url}/api/v2/type/fire`);
  });

  it('fetches a stat by id and by name', async () => {
    const attack = await api.pokemon.getStatByName('attack');
    expect(attack.id).toBe(2);
    expect(await api.pokemon.getStatById(attack.id)).toEqual(attack);
    expect(attack).toEqual(built('stat', 'attack'));
    expect(attack.move_damage_class?.name).toBe('physical');
  });

  it('fetches a gender by id and by name', async () => {
    const list = JSON.parse(readFileSync(path.join(world.out, 'api/v2/gender/index.json'), 'utf8'));
    const first = list.results[0] as { name: string };
    const byName = await api.pokemon.getGenderByName(first.name);
    expect(await api.pokemon.getGenderById(byName.id)).toEqual(byName);
    expect(byName).toEqual(built('gender', first.name));
  });

  it('fetches a location area by id, and gets a 404 by name', async () => {
    const area = await api.location.getLocationAreaById(1);
    expect(area).toEqual(built('location-area', 1));
    const failure = await api.location.getLocationAreaByName(area.name).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(PokenodeError.isPokenodeError(failure)).toBe(true);
    expect((failure as PokenodeError).status).toBe(404);
    expect((failure as PokenodeError).body).toEqual({ detail: 'Not found.' });
  });

  it('follows a link from one record to another', async () => {
    const fire = await api.pokemon.getTypeByName('fire');
    const link = fire.damage_relations.double_damage_to[0]!;
    expect(link.url.startsWith(`${server.url}/api/v2/type/`)).toBe(true);
    const target = await api.resolve(link);
    expect(target.name).toBe(link.name);
    expect(target).toEqual(built('type', link.name));
    // The same link, given as a bare url.
    expect(await api.resolve<Type>(link.url)).toEqual(target);
    // And on to a record of another kind.
    const generation = await api.resolve(fire.generation);
    expect(generation.name).toBe(fire.generation.name);
  });

  it('lists with offset and limit, and walks a whole list', async () => {
    const page = await api.pokemon.listTypes(0, 20);
    expect(requested).toContain(`${server.url}/api/v2/type?offset=0&limit=20`);
    const onDisk = JSON.parse(readFileSync(path.join(world.out, 'api/v2/type/index.json'), 'utf8'));
    expect(page).toEqual(onDisk);
    expect(page.count).toBe(6);

    const walked: string[] = [];
    for await (const ref of api.pokemon.paginate('listStats', { pageSize: 3 })) walked.push(ref.name);
    const stats = JSON.parse(readFileSync(path.join(world.out, 'api/v2/stat/index.json'), 'utf8'));
    expect(walked).toEqual(stats.results.map((r: { name: string }) => r.name));
    expect(walked).toHaveLength(8);

    // Every entry of a list resolves to its record.
    const genders = await api.pokemon.listGenders();
    const records = await api.resolveAll(genders.results);
    expect(records.map((g) => g.name)).toEqual(genders.results.map((r) => r.name));
  });
});

// An existing PokeAPI client, pokenode-ts, pointed at a built world on the real server: records by
// id and by name, a link followed from one record to another, and a list walked page by page.
// Only endpoints whose paths the two APIs share are used: type, stat, gender, location-area. And a
// second client that pages by offset, pokedex-promise-v2, walking lists by their `next` links. Every
// other endpoint, through a fetch renaming this API's words: clients-every-endpoint.test.ts.
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import Pokedex from 'pokedex-promise-v2';
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

  it('lists a page at an offset: the first, a middle, the last and past the end', async () => {
    const onDisk = JSON.parse(readFileSync(path.join(world.out, 'api/v2/type/index.json'), 'utf8'));
    const listUrl = `${server.url}/api/v2/type/`;
    expect(onDisk.count).toBe(6);
    const first = await api.pokemon.listTypes(0, 2);
    expect(requested).toContain(`${server.url}/api/v2/type?offset=0&limit=2`);
    expect(first).toEqual({ count: 6, next: `${listUrl}?offset=2&limit=2`, previous: null, results: onDisk.results.slice(0, 2) });
    const middle = await api.pokemon.listTypes(3, 2);
    expect(middle).toEqual({
      count: 6,
      next: `${listUrl}?offset=5&limit=2`,
      previous: `${listUrl}?offset=1&limit=2`,
      results: onDisk.results.slice(3, 5),
    });
    const last = await api.pokemon.listTypes(4, 2);
    expect(last).toEqual({ count: 6, next: null, previous: `${listUrl}?offset=2&limit=2`, results: onDisk.results.slice(4, 6) });
    const past = await api.pokemon.listTypes(10, 2);
    expect(past).toEqual({ count: 6, next: null, previous: `${listUrl}?offset=8&limit=2`, results: [] });
    // Without paging parameters the whole list, as a host without code answers it.
    expect(await api.pokemon.listTypes()).toEqual(await api.pokemon.listTypes(0, 20));
  });

  it('walks a whole list page by page, and resolves every entry', async () => {
    const before = requested.length;
    const walked: string[] = [];
    for await (const ref of api.pokemon.paginate('listStats', { pageSize: 3 })) walked.push(ref.name);
    const stats = JSON.parse(readFileSync(path.join(world.out, 'api/v2/stat/index.json'), 'utf8'));
    expect(walked).toEqual(stats.results.map((r: { name: string }) => r.name));
    expect(walked).toHaveLength(8);
    expect(requested.slice(before)).toEqual([0, 3, 6].map((offset) => `${server.url}/api/v2/stat?offset=${offset}&limit=3`));

    const genders = await api.pokemon.listGenders();
    const records = await api.resolveAll(genders.results);
    expect(records.map((g) => g.name)).toEqual(genders.results.map((r) => r.name));
  });
});

describe('pokedex-promise-v2 against the built API', () => {
  let pokedex: Pokedex;
  beforeAll(() => {
    const { host } = new URL(server.url);
    pokedex = new Pokedex({ protocol: 'http', hostName: host, versionPath: '/api/v2/', cacheLimit: 1 });
  });

  it('pages a list by offset and limit, and follows next to its end', async () => {
    const onDisk = JSON.parse(readFileSync(path.join(world.out, 'api/v2/creature-form/index.json'), 'utf8'));
    const first = await pokedex.getTypesList({ offset: 0, limit: 4 });
    expect(first.results).toHaveLength(4);
    expect(first.next).toBe(`${server.url}/api/v2/type/?offset=4&limit=4`);
    const walked: string[] = [];
    let url: string | null = `${server.url}/api/v2/creature-form/?offset=0&limit=3`;
    for (let pages = 0; url; pages++) {
      expect(pages, 'the walk ends').toBeLessThan(10);
      const page: { count: number; next: string | null; results: { name: string }[] } = await pokedex.getResource(url);
      expect(page.count).toBe(onDisk.count);
      walked.push(...page.results.map((r) => r.name));
      url = page.next;
    }
    expect(walked).toEqual(onDisk.results.map((r: { name: string }) => r.name));
  });

  it('gets the whole list from its default interval (offset 0, limit 100000)', async () => {
    const stats = JSON.parse(readFileSync(path.join(world.out, 'api/v2/stat/index.json'), 'utf8'));
    expect(await pokedex.getStatsList()).toEqual(stats);
  });
});

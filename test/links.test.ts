// Every reference is a url of the exact form {base}/api/v2/<kind>/<id>/, every url in the output
// answers a file, and what the API states twice agrees with itself.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiPaths } from '../build/paths.ts';
import { loadSchemas } from '../build/schemas/schemas.ts';
import { BASE, buildWorld, fixtureWorld, listFiles } from './helpers.ts';

/** The API description and the published schemas hold urls that are not record links. */
const isDescription = (f: string) => f === apiPaths.openapi || f.startsWith(`${apiPaths.schemaDir}/`);

const kinds = loadSchemas().kinds;
/** Kinds whose records publish no name (a characteristic's is its source's alone): their lists still name them. */
const unnamed = new Set([...kinds.values()].filter((info) => info.unpublished.includes('name')).map((info) => info.kind));

let out: string;
const read = (rel: string) => JSON.parse(fs.readFileSync(path.join(out, rel), 'utf8'));
const record = (kind: string, key: string | number) => read(`api/v2/${kind}/${key}/index.json`);
const all = (kind: string): any[] => read(`api/v2/${kind}/index.json`).results.map((r: any) => record(kind, r.name));
const names = (refs: { name: string }[]) => refs.map((r) => r.name);

/** Every {name, url} object and every url string inside a value. */
function collect(value: unknown, refs: { name?: string; url: string }[] = []) {
  if (Array.isArray(value)) value.forEach((v) => collect(v, refs));
  else if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (typeof o.url === 'string') refs.push({ name: typeof o.name === 'string' ? o.name : undefined, url: o.url });
    for (const [k, v] of Object.entries(o)) if (k !== 'url') collect(v, refs);
  } else if (typeof value === 'string' && value.startsWith('http')) refs.push({ url: value });
  return refs;
}

beforeAll(async () => {
  const world = await fixtureWorld();
  out = world.out;
  await buildWorld({ dataDir: world.data, outDir: world.out, baseUrl: BASE });
});

/** The kinds the index maps to their lists: all its keys but meta, the build's own date and hash. */
const kindsOfIndex = () => Object.keys(read('api/v2/index.json')).filter((key) => key !== 'meta');

describe('references', () => {
  it('give every url the exact form and point at the record they name', async () => {
    const files = (await listFiles(out)).filter((f) => f.endsWith('.json') && !isDescription(f));
    let count = 0;
    for (const file of files) {
      for (const ref of collect(read(file))) {
        count++;
        if (/\.(svg|png|ogg)$/.test(ref.url)) {
          expect(ref.url, ref.url).toMatch(new RegExp(`^${BASE}/(sprites|media)/`));
          continue;
        }
        // A creature's encounters, a sub-resource of its record: a url without the slash, as PokeAPI writes it.
        const sub = new RegExp(`^${BASE}/api/v2/creature/(-?[0-9]+)/encounters$`).exec(ref.url);
        if (sub) {
          expect(read(file).id).toBe(Number(sub[1]));
          continue;
        }
        if (file === 'api/v2/ndjson/index.json') {
          expect(ref.url).toBe(`${BASE}/api/v2/${ref.name}/all.ndjson`);
          continue;
        }
        if (file === 'api/v2/index.json') {
          expect(ref.url).toMatch(new RegExp(`^${BASE}/api/v2/[a-z][a-z-]*/$`));
          continue;
        }
        const m = new RegExp(`^${BASE}/api/v2/([a-z][a-z-]*)/(-?[0-9]+)/$`).exec(ref.url);
        expect(m, `${file}: ${ref.url}`).not.toBeNull();
        const target = record(m![1]!, m![2]!);
        expect(target.id).toBe(Number(m![2]));
        if (ref.name !== undefined && !unnamed.has(m![1]!)) expect(target.name).toBe(ref.name);
        if (unnamed.has(m![1]!)) expect(target.name).toBeUndefined();
      }
    }
    expect(count).toBeGreaterThan(1000);
  });

  it('resolve every url in the output to a file', async () => {
    const files = new Set(await listFiles(out));
    const missing: string[] = [];
    for (const file of [...files].filter((f) => f.endsWith('.json') && !isDescription(f))) {
      for (const { url } of collect(read(file))) {
        const rel = url.slice(BASE.length + 1);
        // A folder's url, with its slash or (a creature's encounters) without it, is its index.json.
        const target = rel.endsWith('/') ? `${rel}index.json` : /\.[a-z]+$/.test(rel) ? rel : `${rel}/index.json`;
        if (!files.has(target)) missing.push(`${file} → ${url}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('publish each record by id and by name with the same bytes, the kinds with no names and location-area by id only', async () => {
    expect([...kinds.values()].filter((info) => !info.byName).map((info) => info.kind)).toEqual([
      'characteristic',
      'contest-effect',
      'evolution-chain',
      'location-area',
      'machine',
      'super-contest-effect',
    ]);
    const files = await listFiles(out);
    for (const kind of kindsOfIndex()) {
      for (const ref of read(`api/v2/${kind}/index.json`).results) {
        const id = ref.url.split('/').at(-2);
        const byId = fs.readFileSync(path.join(out, `api/v2/${kind}/${id}/index.json`), 'utf8');
        if (unnamed.has(kind)) {
          // PokeAPI lists a kind whose records publish no name by url alone: no name to look up.
          expect(Object.keys(ref), kind).toEqual(['url']);
          expect(
            files.filter((f) => f.startsWith(`api/v2/${kind}/`) && !/^api\/v2\/[a-z-]+\/(\d+\/)?index\.json$|all\.ndjson$/.test(f)),
          ).toEqual([]);
        } else if (!kinds.get(kind)!.byName) {
          expect(files).not.toContain(`api/v2/${kind}/${ref.name}/index.json`);
        } else {
          expect(fs.readFileSync(path.join(out, `api/v2/${kind}/${ref.name}/index.json`), 'utf8')).toBe(byId);
        }
      }
    }
  });

  it('lists every kind ordered by id, and the index maps every kind to its list', () => {
    const index = read('api/v2/index.json');
    expect(Object.keys(index)).toEqual(
      expect.arrayContaining(['type', 'creature-form', 'location-area', 'athlon-stat', 'gender', 'stat', 'language']),
    );
    expect(index.meta).toBe(`${BASE}/api/v2/meta/`); // the build's date and hash, not a list of records
    for (const [kind, url] of Object.entries(index).filter(([key]) => key !== 'meta')) {
      expect(url).toBe(`${BASE}/api/v2/${kind}/`);
      const list = read(`api/v2/${kind}/index.json`);
      expect(list).toMatchObject({ count: list.results.length, next: null, previous: null });
      const ids = list.results.map((r: any) => Number(r.url.split('/').at(-2)));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    }
  });
});

describe('derived relations', () => {
  it('make the damage chart mutual', () => {
    const types = all('type');
    const pairs = [
      ['no_damage_to', 'no_damage_from'],
      ['half_damage_to', 'half_damage_from'],
      ['double_damage_to', 'double_damage_from'],
    ];
    let checked = 0;
    for (const a of types) {
      for (const [to, from] of pairs) {
        for (const b of types) {
          const forward = names(a.damage_relations[to!]).includes(b.name);
          const backward = names(b.damage_relations[from!]).includes(a.name);
          expect(forward, `${a.name} ${to} ${b.name}`).toBe(backward);
          if (forward) checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(5);
    // Every list is used somewhere in the starter world.
    for (const [to, from] of pairs) {
      expect(types.some((t) => t.damage_relations[to!].length > 0)).toBe(true);
      expect(types.some((t) => t.damage_relations[from!].length > 0)).toBe(true);
    }
  });

  it('derive past relations on both sides of a change, among the types that existed then', () => {
    const ghost = record('type', 'ghost');
    const fire = record('type', 'fire');
    expect(ghost.past_damage_relations).toHaveLength(1);
    expect(ghost.past_damage_relations[0].generation.name).toBe('generation-i');
    expect(names(ghost.past_damage_relations[0].damage_relations.half_damage_to)).toEqual(['fire']);
    expect(names(ghost.damage_relations.half_damage_to)).toEqual([]);
    expect(names(fire.past_damage_relations[0].damage_relations.half_damage_from)).toContain('ghost');
    expect(record('type', 'water').past_damage_relations).toEqual([]);
    // Steel comes in generation ii: it has no generation-i entry, and no generation-i entry names it
    // (steel → fire is half damage today).
    expect(names(fire.damage_relations.half_damage_from)).toContain('steel');
    expect(record('type', 'steel').past_damage_relations).toEqual([]);
    for (const type of all('type')) {
      for (const past of type.past_damage_relations) {
        const listed = Object.values(past.damage_relations).flatMap((refs: any) => names(refs));
        expect(listed, `${type.name} in ${past.generation.name}`).not.toContain('steel');
      }
    }
  });

  it('derive type.creature and type.moves from the creatures and the moves', () => {
    for (const type of all('type')) {
      const fromCreatures = all('creature').flatMap((c) =>
        c.types
          .filter((t: any) => t.type.name === type.name)
          .map((t: any) => ({ slot: t.slot, creature: { name: c.name, url: `${BASE}/api/v2/creature/${c.id}/` } })),
      );
      expect(type.creature).toEqual(fromCreatures);
      expect(names(type.moves)).toEqual(
        all('move')
          .filter((m) => m.type.name === type.name)
          .map((m) => m.name),
      );
    }
  });

  it('derive stat and athlon-stat effects from moves, natures, items and characteristics', () => {
    const attack = record('stat', 'attack');
    expect(attack.affecting_moves.increase).toEqual([{ change: 1, move: { name: 'growth-song', url: `${BASE}/api/v2/move/4/` } }]);
    expect(names(attack.affecting_natures.increase)).toEqual(['brave']);
    expect(names(attack.affecting_natures.decrease)).toEqual(['calm', 'timid']);
    expect(names(attack.affecting_items)).toEqual(['power-band']);
    expect(record('stat', 'speed').affecting_moves.decrease).toEqual([
      { change: -1, move: { name: 'tide-pulse', url: `${BASE}/api/v2/move/3/` } },
    ]);
    expect(record('stat', 'hp').characteristics).toHaveLength(2);
    const power = record('athlon-stat', 'power');
    expect(power.affecting_natures.increase).toEqual([{ max_change: 2, nature: { name: 'brave', url: `${BASE}/api/v2/nature/2/` } }]);
    expect(power.affecting_natures.decrease.map((c: any) => [c.max_change, c.nature.name])).toEqual([[-2, 'calm']]);
    // A neutral nature affects no stat.
    expect(all('stat').flatMap((s) => [...names(s.affecting_natures.increase), ...names(s.affecting_natures.decrease)])).not.toContain(
      'hardy',
    );
  });

  it('derive gender lists from species gender rates', () => {
    const female = record('gender', 'female');
    const male = record('gender', 'male');
    const genderless = record('gender', 'genderless');
    const rate = (g: any) => Object.fromEntries(g.creature_species_details.map((d: any) => [d.creature_species.name, d.rate]));
    expect(rate(female)).toEqual({ emberpup: 4, sproutle: 8, shadewisp: 2 });
    expect(rate(male)).toEqual({ emberpup: 4, shadewisp: 2, ironshell: 0 });
    expect(rate(genderless)).toEqual({ tidefin: -1 });
    expect(names(female.required_for_evolution)).toEqual(['sproutle']);
  });

  it('derive max_chance and form types and sprites', () => {
    const base = record('location-area', 1);
    const details = base.creature_encounters[0].version_details;
    expect(details.map((d: any) => [d.version.name, d.encounter_details.chance, d.max_chance])).toEqual([
      ['dawn', 30, 40],
      ['dawn', 10, 40],
      ['dusk', 25, 25],
    ]);
    expect(base.creature_encounters[1].version_details[0].encounter_details.condition_values.name).toBe('time-night');
    expect(record('creature-form', 'tidefin-coral').types).toEqual(record('creature', 'tidefin').types);
    expect(names(record('creature-form', 'shadewisp-ember').types.map((t: any) => t.type))).toEqual(['ghost']);
    const sprites = record('creature-form', 'emberpup').sprites;
    expect(sprites.front_female).toMatch(/\/sprites\/creature-form\/female\/1\.svg$/);
    expect(record('creature-form', 'tidefin').sprites.front_female).toBeNull();
    const steel = record('type', 'steel');
    expect(Object.keys(steel.sprites)).toEqual(['generation-ii']);
  });

  it("give a creature PokeAPI's other and versions sprites, drawn from its default form's", () => {
    const emberpup = record('creature', 'emberpup');
    const form = record('creature-form', 'emberpup');
    const { other, versions } = emberpup.sprites;
    expect(Object.keys(other).sort()).toEqual(['dream_world', 'home', 'official-artwork', 'showdown']);
    expect(other['official-artwork']).toEqual({ front_default: form.sprites.front_default, front_shiny: form.sprites.front_shiny });
    expect(other.dream_world).toEqual({ front_default: form.sprites.front_default, front_female: form.sprites.front_female });
    expect(other.home.front_shiny_female).toBe(form.sprites.front_shiny_female);
    expect(other.showdown.back_shiny_female).toBeNull(); // PokeAPI has none, for any creature
    expect(other.showdown.front_female).toBe(form.sprites.front_female);
    // The version group the form came in, under its generation, holds the form's eight sprites.
    const group = record('version-group', form.version_group.name);
    expect(versions).toEqual({ [group.generation.name]: { [group.name]: form.sprites } });
    // Each url answers a file the build drew.
    for (const url of Object.values(other['official-artwork']) as string[])
      expect(fs.existsSync(path.join(out, url.slice(BASE.length + 1)))).toBe(true);
    // A species whose look does not change by gender: null there, as PokeAPI has it.
    expect(record('creature', 'tidefin').sprites.other.home.front_female).toBeNull();
    expect(Object.keys(record('type', 'fire').sprites)).toEqual(['generation-i', 'generation-ii']);
  });
});

// The shipped world in data/: built once into a temp folder, then held to what the build promises
// of every world it accepts — lists that agree with their records, a chart both sides of which
// agree, derived fields that match what they are derived from, links that answer, and the rules
// the world states in data/world.yaml. It holds data/ to no rule of its own: a rule about the data
// is the build's, so a record that `npm run build -- --check` accepts never fails here.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type BuildResult } from '../build/pipeline/build.ts';
import { apiPaths, defaultDataDir } from '../build/paths.ts';
import { DEFAULT_WORLD, WORLD_FILE } from '../build/pipeline/world.ts';
import { listFiles, tempDir } from './helpers.ts';

type Rec = Record<string, any>;

const BASE = 'http://localhost:3000';
const RELATIONS = [
  ['no_damage_to', 'no_damage_from'],
  ['half_damage_to', 'half_damage_from'],
  ['double_damage_to', 'double_damage_from'],
] as const;

let root: string;
let out: string;
let result: BuildResult;
let files: Set<string>;
const byKind = new Map<string, Rec[]>();

/**
 * The dist-relative file behind a url the build wrote: a folder's index.json (a record's, or a
 * creature's encounters, whose url has no slash, as PokeAPI's), or a sprite or other media file.
 */
function fileOf(url: string): string | undefined {
  if (!url.startsWith(`${BASE}/`)) return undefined;
  const rel = url.slice(BASE.length + 1);
  if (rel.endsWith('/') || rel === '') return `${rel}index.json`;
  return /\.[a-z]+$/.test(rel) ? rel : `${rel}/index.json`;
}
function readJson(rel: string): any {
  return JSON.parse(fs.readFileSync(path.join(out, rel), 'utf8'));
}
function records(kind: string): Rec[] {
  let list = byKind.get(kind);
  if (!list) {
    list = (readJson(apiPaths.list(kind)).results as Rec[]).map((ref) => readJson(fileOf(ref.url)!));
    byKind.set(kind, list);
  }
  return list;
}
function named(kind: string): Map<string, Rec> {
  return new Map(records(kind).map((r) => [r.name, r]));
}
const names = (refs: Rec[] | undefined) => (refs ?? []).map((r) => r.name as string);

/** Every value in a JSON tree, with the key it sits under. */
function* walk(value: unknown, key = ''): Generator<[string, unknown]> {
  yield [key, value];
  if (Array.isArray(value)) for (const v of value) yield* walk(v, key);
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) yield* walk(v, k);
}

/** Source records by kind, as written in data/ (a kind's folder may be missing: it has none; a record's folder holds its media). */
function sources(kind: string): Array<{ file: string; data: Rec }> {
  const dir = path.join(defaultDataDir, kind);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name)
    .sort()
    .map((file) => ({ file, data: parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Rec }));
}

const html = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** What data/world.yaml states, if anything. */
function worldSettings(): Rec {
  const file = path.join(defaultDataDir, WORLD_FILE);
  return fs.existsSync(file) ? ((parse(fs.readFileSync(file, 'utf8')) as Rec | null) ?? {}) : {};
}

beforeAll(async () => {
  root = await tempDir('crs-world-');
  out = path.join(root, 'dist');
  result = await build({ dataDir: defaultDataDir, outDir: out, baseUrl: BASE });
  files = new Set(await listFiles(out));
});

afterAll(async () => {
  if (root) await fs.promises.rm(root, { recursive: true, force: true });
});

describe('the shipped world: lists and names', () => {
  it('lists every record of each kind, by id, and gives no two the same id or name', () => {
    for (const [kind, count] of Object.entries(result.records)) {
      const list = readJson(apiPaths.list(kind));
      expect(list.count, kind).toBe(count);
      expect(list.results, kind).toHaveLength(count);
      const all = records(kind);
      expect(
        all.map((r) => r.id),
        kind,
      ).toEqual(all.map((r) => r.id).sort((a, b) => a - b));
      expect(new Set(all.map((r) => r.id)).size, kind).toBe(count);
      const named = all.filter((r) => typeof r.name === 'string'); // a characteristic publishes no name
      expect(new Set(names(named)).size, kind).toBe(named.length);
    }
  });

  it('gives, in each list of names, each of the languages data/world.yaml states once, as the build holds it to', () => {
    const stated = (worldSettings().languages ?? []) as Array<string | number>;
    const languages = stated.map((key) => records('language').find((l) => l.name === key || l.id === key)!.name).sort();
    if (languages.length === 0) return; // a world that states none is held to none
    for (const kind of Object.keys(result.records)) {
      for (const record of records(kind)) {
        for (const [key, value] of walk(record)) {
          if (!['names', 'form_names', 'descriptions'].includes(key) || !Array.isArray(value)) continue;
          const given = value.map((n: Rec) => n.language.name).filter((l: string) => languages.includes(l));
          expect(given.sort(), `${kind} ${record.name} ${key}`).toEqual(languages);
        }
      }
    }
  });

  it('shows the title and description data/world.yaml gives in the explorer and the OpenAPI document', () => {
    const { title = DEFAULT_WORLD.title, description = DEFAULT_WORLD.description } = worldSettings();
    const doc = readJson(apiPaths.openapi);
    expect(doc.info.title).toBe(title);
    expect(doc.info.description.startsWith(`${description}\n`)).toBe(true);
    const page = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
    expect(page).toContain(`<title>${html(title)} · API explorer</title>`);
    expect(page).toContain(`<meta name="description" content="${html(description)}" />`);
    expect(page).not.toContain('__WORLD_');
  });

  it('puts every version in its version group and every version group in its generation, both ways', () => {
    const groups = named('version-group');
    const generations = named('generation');
    for (const version of records('version'))
      expect(names(groups.get(version.version_group.name)!.versions), version.name).toContain(version.name);
    for (const group of records('version-group')) {
      expect(names(generations.get(group.generation.name)!.version_groups), group.name).toContain(group.name);
      for (const v of group.versions) expect(named('version').get(v.name)!.version_group.name, group.name).toBe(group.name);
    }
  });
});

describe('types', () => {
  it('has a chart whose two sides agree, each pair of types in one relation at most', () => {
    const types = records('type');
    const byName = new Map(types.map((t) => [t.name, t]));
    for (const a of types) {
      for (const b of types) {
        const holds = RELATIONS.filter(([to]) => names(a.damage_relations[to]).includes(b.name));
        expect(holds.length, `${a.name} → ${b.name}`).toBeLessThanOrEqual(1);
        for (const [to, from] of RELATIONS) {
          expect(names(a.damage_relations[to]).includes(b.name), `${a.name} ${to} ${b.name}`).toBe(
            names(byName.get(b.name)!.damage_relations[from]).includes(a.name),
          );
        }
      }
    }
  });

  it('names in a past generation only the types that existed then, and gives a type no entry before its own', () => {
    const since = new Map(records('type').map((t) => [t.name, named('generation').get(t.generation.name)!.id]));
    const idOfGen = (name: string) => named('generation').get(name)!.id;
    for (const type of records('type')) {
      for (const past of type.past_damage_relations) {
        const then = idOfGen(past.generation.name);
        expect(then, `${type.name} in ${past.generation.name}`).toBeGreaterThanOrEqual(since.get(type.name)!);
        for (const refs of Object.values(past.damage_relations) as Rec[][])
          for (const ref of refs)
            expect(since.get(ref.name)!, `${type.name} in ${past.generation.name} names ${ref.name}`).toBeLessThanOrEqual(then);
      }
    }
  });

  it('draws a name icon for each version group from the type’s generation on', () => {
    const genId = new Map(records('generation').map((g) => [g.name, g.id]));
    for (const type of records('type')) {
      const since = genId.get(type.generation.name)!;
      for (const vg of records('version-group').filter((g) => genId.get(g.generation.name)! >= since)) {
        const icon = type.sprites[vg.generation.name]?.[vg.name]?.name_icon;
        expect(icon, `${type.name} ${vg.name}`).toMatch(/\.svg$/);
        expect(files.has(fileOf(icon)!), icon).toBe(true);
      }
    }
  });

  it('lists every move under its type, and every creature under each of its types with its slot', () => {
    const moves = records('move');
    expect(records('type').reduce((n, t) => n + t.moves.length, 0)).toBe(moves.length);
    for (const move of moves) expect(names(named('type').get(move.type.name)!.moves), move.name).toContain(move.name);
    for (const creature of records('creature'))
      for (const { slot, type } of creature.types)
        expect(named('type').get(type.name)!.creature, creature.name).toContainEqual({
          slot,
          creature: { name: creature.name, url: `${BASE}/api/v2/creature/${creature.id}/` },
        });
  });
});

describe('creatures and their forms', () => {
  it('lists every creature among its species’ varieties and every form under its creature', () => {
    const species = named('creature-species');
    const formsOf = new Map<string, Rec[]>();
    for (const form of records('creature-form')) formsOf.set(form.creature.name, [...(formsOf.get(form.creature.name) ?? []), form]);
    for (const creature of records('creature')) {
      expect(species.get(creature.species.name)!.varieties, creature.name).toContainEqual({
        is_default: creature.is_default,
        creature: { name: creature.name, url: `${BASE}/api/v2/creature/${creature.id}/` },
      });
      expect(names(creature.forms).sort(), creature.name).toEqual(names(formsOf.get(creature.name) ?? []).sort());
    }
  });

  it('gives a creature its default form’s images, again under other and versions, where it gives none of its own', () => {
    const forms = named('creature-form');
    const given = new Map(sources('creature').map(({ data }) => [data.name, data.sprites ?? {}]));
    for (const creature of records('creature')) {
      const form = creature.forms.map((f: Rec) => forms.get(f.name)!).find((f: Rec) => f.is_default);
      if (!form) continue;
      const { other, versions, ...flat } = creature.sprites;
      expect(flat, creature.name).toEqual(form.sprites);
      const artwork = given.get(creature.name)!.other?.['official-artwork']?.front_default;
      const expected = artwork === undefined ? form.sprites.front_default : `${BASE}/media/creature/${creature.id}/${artwork}`;
      expect(other['official-artwork'].front_default, creature.name).toBe(expected);
      expect(
        Object.values(versions).flatMap((groups) => Object.values(groups as Rec)),
        creature.name,
      ).toEqual([form.sprites]);
    }
  });

  it('gives a form its creature’s types unless it lists its own', () => {
    const creatures = named('creature');
    const forms = named('creature-form');
    for (const { data } of sources('creature-form')) {
      const form = forms.get(data.name)!;
      if (data.types === undefined) expect(form.types, data.name).toEqual(creatures.get(form.creature.name)!.types);
    }
  });

  it('links each trigger of a form to the record its word names', () => {
    const kindOf: Record<string, string> = {
      'held-item': 'item',
      'key-item': 'item',
      'consumed-item': 'item',
      move: 'move',
      ability: 'ability',
    };
    for (const form of records('creature-form')) {
      for (const t of form.trigger_conditions) {
        const target = named(kindOf[t.trigger]!).get(t.name);
        expect(target, `${form.name} ${t.trigger} ${t.name}`).toBeDefined();
        expect(fileOf(t.url), form.name).toBe(apiPaths.record(kindOf[t.trigger]!, target!.id));
      }
    }
  });

  it('draws female images only where the species looks different and can be female or male', () => {
    const creatures = named('creature');
    const species = named('creature-species');
    for (const form of records('creature-form')) {
      const sp = species.get(creatures.get(form.creature.name)!.species.name)!;
      const differs = sp.has_gender_differences && sp.gender_rate >= 1 && sp.gender_rate <= 7;
      for (const [key, url] of Object.entries(form.sprites)) {
        if (key.includes('female')) expect(url !== null, `${form.name} ${key}`).toBe(differs);
        else expect(url, `${form.name} ${key}`).not.toBeNull();
      }
    }
  });
});

describe('moves, natures, items and stats', () => {
  it('lists each stat change of a move under the stat, with its change', () => {
    const stats = named('stat');
    const moves = records('move');
    for (const move of moves) {
      for (const c of move.stat_changes) {
        const side = c.change > 0 ? 'increase' : 'decrease';
        expect(stats.get(c.stat.name)!.affecting_moves[side], move.name).toContainEqual({
          change: c.change,
          move: { name: move.name, url: `${BASE}/api/v2/move/${move.id}/` },
        });
      }
    }
    const listed = records('stat').reduce((n, s) => n + s.affecting_moves.increase.length + s.affecting_moves.decrease.length, 0);
    expect(listed).toBe(moves.reduce((n, m) => n + m.stat_changes.filter((c: Rec) => c.change !== 0).length, 0));
  });

  it('lists a nature under the stats it raises and lowers, and a neutral one under none', () => {
    for (const n of records('nature')) {
      const neutral = n.increased_stat?.name === n.decreased_stat?.name;
      for (const s of records('stat')) {
        expect(names(s.affecting_natures.increase).includes(n.name), `${n.name} raises ${s.name}`).toBe(
          !neutral && n.increased_stat?.name === s.name,
        );
        expect(names(s.affecting_natures.decrease).includes(n.name), `${n.name} lowers ${s.name}`).toBe(
          !neutral && n.decreased_stat?.name === s.name,
        );
      }
    }
  });

  it('lists each nature change under its athlon stat, with its own max_change', () => {
    const athlon = named('athlon-stat');
    for (const nature of records('nature')) {
      for (const c of nature.athlon_stat_changes) {
        if (c.max_change === 0) continue;
        const side = c.max_change > 0 ? 'increase' : 'decrease';
        expect(athlon.get(c.athlon_stat.name)!.affecting_natures[side], nature.name).toContainEqual({
          max_change: c.max_change,
          nature: { name: nature.name, url: `${BASE}/api/v2/nature/${nature.id}/` },
        });
      }
    }
  });

  it('lists the items that affect a stat under that stat, and publishes the list on the stat alone', () => {
    const stats = named('stat');
    // An item's affected_stats is written in its source only: the stats publish it.
    for (const { data: item } of sources('item'))
      for (const s of item.affected_stats ?? []) expect(names(stats.get(s)!.affecting_items), item.name).toContain(item.name);
    for (const item of records('item')) expect(item.affected_stats, item.name).toBeUndefined();
  });

  it('lists each characteristic under its highest stat', () => {
    const stats = named('stat');
    for (const c of records('characteristic')) {
      expect(
        stats.get(c.highest_stat.name)!.characteristics.map((x: Rec) => x.url),
        String(c.id),
      ).toContain(`${BASE}/api/v2/characteristic/${c.id}/`);
    }
  });

  it('gives a move as used after the moves whose use_before name it, and null where it has no combo at all', () => {
    const moves = records('move');
    let combos = 0;
    for (const move of moves) {
      if (move.contest_combos === null) continue;
      for (const set of ['normal', 'super']) {
        const naming = moves.filter((m) => names(m.contest_combos?.[set].use_before).includes(move.name)).map((m) => m.name);
        const after = move.contest_combos[set].use_after;
        expect(after === null ? [] : names(after), `${move.name} ${set}`).toEqual(naming);
        expect(after === null, `${move.name} ${set}: none is null`).toBe(naming.length === 0);
        combos += naming.length;
      }
      const sides = [move.contest_combos.normal, move.contest_combos.super];
      expect(
        sides.some((side) => side.use_before !== null || side.use_after !== null),
        move.name,
      ).toBe(true);
    }
    expect(combos).toBeGreaterThan(0);
  });

  it('lists under each flavor the berries that have some of it, with their potency, and each flavor under its contest type', () => {
    const flavors = records('berry-flavor');
    for (const flavor of flavors) {
      const some = records('berry').flatMap((b) =>
        b.flavors.filter((f: Rec) => f.flavor.name === flavor.name && f.potency > 0).map((f: Rec) => [f.potency, b.name]),
      );
      expect(some.length, flavor.name).toBeGreaterThan(0);
      expect(
        flavor.berries.map((b: Rec) => [b.potency, b.berry.name]),
        flavor.name,
      ).toEqual(some);
      expect(named('contest-type').get(flavor.contest_type.name)!.berry_flavor.name, flavor.name).toBe(flavor.name);
    }
  });
});

describe('genders', () => {
  it('lists under each gender the species that can have it, with their rate', () => {
    const rule: Record<string, (rate: number) => boolean> = {
      female: (r) => r >= 1,
      male: (r) => r >= 0 && r <= 7,
      genderless: (r) => r === -1,
    };
    for (const g of records('gender')) {
      const listed = new Map(g.creature_species_details.map((d: Rec) => [d.creature_species.name, d.rate]));
      for (const s of records('creature-species')) {
        expect(listed.has(s.name), `${g.name} ${s.name}`).toBe(rule[g.name]?.(s.gender_rate) ?? false);
        if (listed.has(s.name)) expect(listed.get(s.name), s.name).toBe(s.gender_rate);
      }
    }
  });

  it('lists under required_for_evolution the species whose source names that gender, and publishes it on the gender alone', () => {
    // The gender a species needs is written in its source only: the genders publish it.
    const needing = sources('creature-species')
      .map(({ data }) => data)
      .filter((s) => s.gender_required_to_evolve);
    for (const g of records('gender')) {
      expect(names(g.required_for_evolution).sort(), g.name).toEqual(
        names(needing.filter((s) => s.gender_required_to_evolve === g.name)).sort(),
      );
    }
    for (const s of records('creature-species')) expect(s.gender_required_to_evolve, s.name).toBeUndefined();
  });
});

describe('locations and encounters', () => {
  it('lists every area under its location', () => {
    const locations = named('location');
    for (const area of records('location-area')) expect(names(locations.get(area.location.name)!.areas), area.name).toContain(area.name);
    expect(records('location').reduce((n, l) => n + l.areas.length, 0)).toBe(records('location-area').length);
  });

  it("gives each encounter a max_chance that sums its creature's chances in that version, and levels in order", () => {
    for (const area of records('location-area')) {
      for (const enc of area.creature_encounters) {
        // PokeAPI's max_chance: the chances of every way the creature is met in that version, summed.
        const total = new Map<string, number>();
        for (const vd of enc.version_details) total.set(vd.version.name, (total.get(vd.version.name) ?? 0) + vd.encounter_details.chance);
        for (const vd of enc.version_details) {
          const where = `${area.name} ${enc.creature.name} ${vd.version.name}`;
          expect(vd.max_chance, where).toBe(total.get(vd.version.name));
          expect(vd.encounter_details.min_level, where).toBeLessThanOrEqual(vd.encounter_details.max_level);
        }
      }
    }
  });
});

describe('the built folder', () => {
  it('resolves every url in every published file to a file: records to their index.json, sprites to their .svg', () => {
    const missing = new Set<string>();
    for (const rel of files) {
      // The API description and published schemas name the base and the JSON Schema dialect too.
      if (!rel.endsWith('.json') || rel === apiPaths.openapi || rel.startsWith(`${apiPaths.schemaDir}/`)) continue;
      for (const [, value] of walk(readJson(rel))) {
        if (typeof value !== 'string' || !value.startsWith('http')) continue;
        const target = fileOf(value);
        if (!target || !files.has(target)) missing.add(`${rel}: ${value}`);
      }
    }
    expect([...missing].slice(0, 20)).toEqual([]);
  });
});

describe('the source files', () => {
  it('are named after their records, in their kinds’ folders', () => {
    for (const kind of Object.keys(result.records)) {
      const list = sources(kind);
      expect(list.length, kind).toBe(result.records[kind]);
      for (const { file, data } of list) expect(file.slice(0, file.lastIndexOf('.')), kind).toBe(data.name);
    }
  });
});

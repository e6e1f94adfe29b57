// The shipped world in data/: built once into a temp folder, then held to the invariants the
// service promises about its content (sizes, a complete chart, languages, encounter numbers,
// links) on the published records themselves, and to "each fact written once" on the sources.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type BuildResult } from '../build/pipeline/build.ts';
import { apiPaths, defaultDataDir } from '../build/paths.ts';
import { listFiles, tempDir } from './helpers.ts';

type Rec = Record<string, any>;

const BASE = 'http://localhost:3000';
const SPECIAL_TYPES = ['unknown', 'shadow'];
const STAT_NAMES = ['hp', 'attack', 'defense', 'special-attack', 'special-defense', 'speed', 'accuracy', 'evasion'];
const NATURE_STATS = ['attack', 'defense', 'special-attack', 'special-defense', 'speed'];
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

/** The dist-relative file behind a url the build wrote: a record folder's index.json, or a sprite. */
function fileOf(url: string): string | undefined {
  if (!url.startsWith(`${BASE}/`)) return undefined;
  const rel = url.slice(BASE.length + 1);
  return rel.endsWith('/') || rel === '' ? `${rel}index.json` : rel;
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

/** Source records by kind, as written in data/. */
function sources(kind: string): Array<{ file: string; data: Rec }> {
  const dir = path.join(defaultDataDir, kind);
  return fs
    .readdirSync(dir)
    .sort()
    .map((file) => ({ file, data: parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Rec }));
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

describe('the shipped world: size and shape', () => {
  it('has at least the records of each kind the world promises', () => {
    const minimums: Record<string, number> = {
      language: 3,
      generation: 5,
      'version-group': 8,
      version: 12,
      creature: 250,
      'creature-form': 320,
      move: 150,
      item: 60,
      location: 40,
      'location-area': 150,
    };
    for (const [kind, min] of Object.entries(minimums)) expect(result.records[kind], kind).toBeGreaterThanOrEqual(min);
    expect(result.records).toMatchObject({ type: 20, nature: 25, 'athlon-stat': 5, gender: 3, stat: 8 });
    for (const [kind, count] of Object.entries(result.records)) {
      const list = readJson(apiPaths.list(kind));
      expect(list.count, kind).toBe(count);
      expect(list.results, kind).toHaveLength(count);
    }
  });

  it('gives no two records of a kind the same name, nor the same English name', () => {
    for (const kind of Object.keys(result.records)) {
      const list = records(kind);
      const named = list.filter((r) => typeof r.name === 'string'); // a characteristic publishes no name
      expect(new Set(names(named)).size, kind).toBe(named.length);
      expect(new Set(list.map((r) => r.id)).size, kind).toBe(list.length);
      const english = list.map((r) => (r.names as Rec[] | undefined)?.find((n) => n.language.name === 'en')?.name).filter(Boolean);
      expect(new Set(english).size, `${kind} English names`).toBe(english.length);
    }
  });

  it('names everything in every language: each names, form_names and descriptions list has each language once', () => {
    const languages = records('language')
      .map((l) => l.name)
      .sort();
    let lists = 0;
    for (const kind of Object.keys(result.records)) {
      for (const record of records(kind)) {
        for (const [key, value] of walk(record)) {
          if (!['names', 'form_names', 'descriptions'].includes(key) || !Array.isArray(value)) continue;
          lists++;
          const langs = value.map((n: Rec) => n.language.name).sort();
          expect(langs, `${kind} ${record.name} ${key}`).toEqual(languages);
          for (const n of value) expect(String(n.name ?? n.description).trim(), `${kind} ${record.name} ${key}`).not.toBe('');
        }
      }
    }
    expect(lists).toBeGreaterThan(1000);
    // Default forms are named too, not only the alternates.
    for (const form of records('creature-form')) {
      expect(form.names.length, form.name).toBe(languages.length);
      expect(form.form_names.length, form.name).toBe(languages.length);
    }
  });

  it('puts every version in a version group and every version group in a generation, both ways', () => {
    const groups = named('version-group');
    const generations = named('generation');
    for (const version of records('version')) {
      const group = groups.get(version.version_group.name);
      expect(group, version.name).toBeDefined();
      expect(names(group!.versions), version.name).toContain(version.name);
    }
    for (const group of records('version-group')) {
      expect(group.versions.length, group.name).toBeGreaterThan(0);
      const generation = generations.get(group.generation.name);
      expect(generation, group.name).toBeDefined();
      expect(names(generation!.version_groups), group.name).toContain(group.name);
    }
  });
});

describe('types', () => {
  const battle = () => records('type').filter((t) => !SPECIAL_TYPES.includes(t.name));

  it('has 18 battle types and the two special ones, outside the chart', () => {
    expect(battle()).toHaveLength(18);
    const types = named('type');
    for (const name of SPECIAL_TYPES) {
      const type = types.get(name)!;
      expect(type, name).toBeDefined();
      for (const list of Object.values(type.damage_relations)) expect(list, name).toEqual([]);
      expect(type.creature, name).toEqual([]);
    }
  });

  it('has a complete 18×18 chart: each pair is double, half, none or normal, and both sides agree', () => {
    const types = battle();
    const battleNames = new Set(types.map((t) => t.name));
    const byName = new Map(types.map((t) => [t.name, t]));
    const cells = { double: 0, half: 0, none: 0, normal: 0 };
    for (const a of types) {
      for (const b of types) {
        const holds = RELATIONS.filter(([to]) => names(a.damage_relations[to]).includes(b.name));
        expect(holds.length, `${a.name} → ${b.name}`).toBeLessThanOrEqual(1);
        const [to] = holds[0] ?? ['normal'];
        cells[to === 'normal' ? 'normal' : to === 'no_damage_to' ? 'none' : to === 'half_damage_to' ? 'half' : 'double']++;
        for (const [to2, from2] of RELATIONS) {
          expect(names(a.damage_relations[to2]).includes(b.name), `${a.name} ${to2} ${b.name}`).toBe(
            names(byName.get(b.name)!.damage_relations[from2]).includes(a.name),
          );
        }
      }
      for (const list of Object.values(a.damage_relations) as Rec[][])
        for (const ref of list) expect(battleNames.has(ref.name), `${a.name} lists ${ref.name}`).toBe(true);
    }
    expect(cells.double + cells.half + cells.none + cells.normal).toBe(18 * 18);
    for (const kind of ['double', 'half', 'none'] as const) expect(cells[kind], kind).toBeGreaterThan(0);
  });

  it('has at least 3 types whose relations changed in an earlier generation', () => {
    const generations = named('generation');
    const changed = battle().filter((t) => t.past_damage_relations.length > 0);
    expect(changed.length).toBeGreaterThanOrEqual(3);
    const latest = Math.max(...records('generation').map((g) => g.id));
    for (const type of changed) {
      for (const past of type.past_damage_relations) {
        expect(generations.get(past.generation.name)!.id, type.name).toBeLessThan(latest);
        expect(past.damage_relations, type.name).not.toEqual(type.damage_relations);
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

  it('gives each type a damage class, game indices per generation from its own on, and a name icon per version group', () => {
    const generations = records('generation');
    const groups = records('version-group');
    const genId = new Map(generations.map((g) => [g.name, g.id]));
    for (const type of records('type')) {
      expect(type.move_damage_class?.name, type.name).toBeTruthy();
      const since = genId.get(type.generation.name)!;
      expect(names(type.game_indices.map((g: Rec) => g.generation)).sort(), type.name).toEqual(
        generations
          .filter((g) => g.id >= since)
          .map((g) => g.name)
          .sort(),
      );
      const shown = groups.filter((vg) => genId.get(vg.generation.name)! >= since);
      expect(shown.length, type.name).toBeGreaterThan(0);
      for (const vg of shown) {
        const icon = type.sprites[vg.generation.name]?.[vg.name]?.name_icon;
        expect(icon, `${type.name} ${vg.name}`).toMatch(/\.svg$/);
        expect(files.has(fileOf(icon)!), icon).toBe(true);
      }
    }
  });

  it('lists every move under its type and every creature under its types', () => {
    const moves = records('move');
    const types = battle();
    expect(types.reduce((n, t) => n + t.moves.length, 0) + named('type').get('shadow')!.moves.length).toBe(moves.length);
    for (const type of types) {
      expect(type.moves.length, type.name).toBeGreaterThan(0);
      expect(type.creature.length, type.name).toBeGreaterThan(0);
    }
  });
});

describe('creatures and their forms', () => {
  it('gives every creature its species and exactly one default form', () => {
    const species = named('creature-species');
    const formsOf = new Map<string, Rec[]>();
    for (const form of records('creature-form')) formsOf.set(form.creature.name, [...(formsOf.get(form.creature.name) ?? []), form]);
    for (const creature of records('creature')) {
      const sp = species.get(creature.species.name);
      expect(sp, creature.name).toBeDefined();
      expect(sp!.varieties, creature.name).toContainEqual({
        is_default: creature.is_default,
        creature: { name: creature.name, url: `${BASE}/api/v2/creature/${creature.id}/` },
      });
      const forms = formsOf.get(creature.name) ?? [];
      expect(
        forms.filter((f) => f.is_default),
        creature.name,
      ).toHaveLength(1);
      expect(names(creature.forms).sort(), creature.name).toEqual(names(forms).sort());
    }
  });

  it('gives every species one default variety, whose images are its default form’s', () => {
    const forms = named('creature-form');
    const creatures = named('creature');
    for (const species of records('creature-species')) {
      const defaults = species.varieties.filter((v: Rec) => v.is_default);
      expect(defaults, species.name).toHaveLength(1);
      const creature = creatures.get(defaults[0].creature.name)!;
      expect(creature.id, species.name).toBe(species.id);
      const form = forms.get(creature.forms.find((f: Rec) => forms.get(f.name)!.is_default).name)!;
      const { other, versions, ...flat } = creature.sprites;
      expect(flat, creature.name).toEqual(form.sprites);
      expect(other['official-artwork'].front_default, creature.name).toBe(form.sprites.front_default);
      expect(
        Object.values(versions).flatMap((groups) => Object.values(groups as Rec)),
        creature.name,
      ).toEqual([form.sprites]);
    }
  });

  it('gives every creature a base stat and effort for each of the six stats that are not battle-only', () => {
    const stats = records('stat').filter((s) => !s.is_battle_only);
    for (const creature of records('creature')) {
      expect(names(creature.stats.map((s: Rec) => s.stat)).sort(), creature.name).toEqual(names(stats).sort());
      for (const s of creature.stats) expect(s.base_stat > 0 && s.effort >= 0 && s.effort <= 3, creature.name).toBe(true);
      expect(
        creature.stats.some((s: Rec) => s.effort > 0),
        creature.name,
      ).toBe(true);
    }
  });

  it('has baby, legendary and mythical species, none two of those at once', () => {
    const species = records('creature-species');
    for (const flag of ['is_baby', 'is_legendary', 'is_mythical', 'forms_switchable'])
      expect(species.filter((s) => s[flag] === true).length, flag).toBeGreaterThan(0);
    for (const s of species) expect([s.is_baby, s.is_legendary, s.is_mythical].filter(Boolean).length, s.name).toBeLessThanOrEqual(1);
  });

  it('has cosmetic, battle-only and mega forms, each with one or two typed slots', () => {
    const forms = records('creature-form');
    const cosmetic = forms.filter((f) => !f.is_default && !f.is_battle_only);
    const battleOnly = forms.filter((f) => f.is_battle_only && !f.is_mega);
    const megas = forms.filter((f) => f.is_mega);
    expect(cosmetic.length).toBeGreaterThanOrEqual(20);
    expect(battleOnly.length).toBeGreaterThanOrEqual(5);
    expect(megas.length).toBeGreaterThanOrEqual(5);
    for (const form of forms) {
      expect(form.types.length, form.name).toBeGreaterThanOrEqual(1);
      expect(form.types.length, form.name).toBeLessThanOrEqual(2);
      expect(
        form.types.map((t: Rec) => t.slot),
        form.name,
      ).toEqual(form.types.map((_: Rec, i: number) => i + 1));
      expect(new Set(names(form.types.map((t: Rec) => t.type))).size, form.name).toBe(form.types.length);
    }
  });

  it("names the item, move or ability that triggers each mega form, in PokeAPI's words", () => {
    // PokeAPI's trigger words, each naming a record of one kind.
    const kindOf: Record<string, string> = {
      'held-item': 'item',
      'key-item': 'item',
      'consumed-item': 'item',
      move: 'move',
      ability: 'ability',
    };
    const words = new Set<string>();
    for (const form of records('creature-form').filter((f) => f.trigger_conditions.length > 0)) {
      if (form.is_mega) expect(form.is_battle_only, form.name).toBe(true);
      for (const t of form.trigger_conditions) {
        const kind = kindOf[t.trigger];
        expect(kind, `${form.name}: ${t.trigger}`).toBeDefined();
        const target = named(kind!).get(t.name);
        expect(target, `${form.name} ${t.trigger} ${t.name}`).toBeDefined();
        expect(fileOf(t.url), form.name).toBe(apiPaths.record(kind!, target!.id));
        words.add(t.trigger);
      }
    }
    for (const form of records('creature-form').filter((f) => f.is_mega))
      expect(form.trigger_conditions.length, form.name).toBeGreaterThan(0);
    expect([...words].sort()).toEqual(['ability', 'held-item', 'key-item', 'move']);
  });

  // `order` numbers all forms 1..N; the forms of one species sit together in it; within one
  // creature, form_order numbers its forms 1..k, the default first, in the same order as `order`.
  it('keeps order and form_order consistent', () => {
    const forms = records('creature-form');
    const creatures = named('creature');
    const orders = forms.map((f) => f.order).sort((a, b) => a - b);
    expect(orders).toEqual(forms.map((_, i) => i + 1));
    const bySpecies = new Map<string, number[]>();
    const byCreature = new Map<string, Rec[]>();
    for (const form of forms) {
      const sp = creatures.get(form.creature.name)!.species.name;
      bySpecies.set(sp, [...(bySpecies.get(sp) ?? []), form.order]);
      byCreature.set(form.creature.name, [...(byCreature.get(form.creature.name) ?? []), form]);
    }
    for (const [sp, list] of bySpecies) {
      expect(Math.max(...list) - Math.min(...list) + 1, sp).toBe(list.length);
    }
    for (const [creature, list] of byCreature) {
      const byFormOrder = [...list].sort((a, b) => a.form_order - b.form_order);
      expect(
        byFormOrder.map((f) => f.form_order),
        creature,
      ).toEqual(list.map((_, i) => i + 1));
      expect(byFormOrder[0]!.is_default, creature).toBe(true);
      const byOrder = [...list].sort((a, b) => a.order - b.order);
      expect(names(byOrder), creature).toEqual(names(byFormOrder));
    }
  });

  it('only uses types that exist in the generation a form appears in', () => {
    const genId = new Map(records('generation').map((g) => [g.name, g.id]));
    const groupGen = new Map(records('version-group').map((vg) => [vg.name, genId.get(vg.generation.name)!]));
    const typeGen = new Map(records('type').map((t) => [t.name, genId.get(t.generation.name)!]));
    for (const form of records('creature-form')) {
      for (const t of form.types)
        expect(typeGen.get(t.type.name)!, `${form.name} ${t.type.name}`).toBeLessThanOrEqual(groupGen.get(form.version_group.name)!);
    }
  });

  it('draws female sprites only where the species looks different and can be female or male', () => {
    const creatures = named('creature');
    const species = named('creature-species');
    let female = 0;
    for (const form of records('creature-form')) {
      const sp = species.get(creatures.get(form.creature.name)!.species.name)!;
      const differs = sp.has_gender_differences && sp.gender_rate >= 1 && sp.gender_rate <= 7;
      for (const [key, url] of Object.entries(form.sprites)) {
        if (key.includes('female')) expect(url !== null, `${form.name} ${key}`).toBe(differs);
        else expect(url, `${form.name} ${key}`).not.toBeNull();
      }
      if (differs) female++;
    }
    expect(female).toBeGreaterThan(0);
  });
});

describe('moves, natures, items and stats', () => {
  it('gives each move a type and a damage class, and lists stat changes under the stat', () => {
    const stats = named('stat');
    const moves = records('move');
    const changing = moves.filter((m) => m.stat_changes.length > 0);
    expect(changing.some((m) => m.stat_changes.some((c: Rec) => c.change > 0))).toBe(true);
    expect(changing.some((m) => m.stat_changes.some((c: Rec) => c.change < 0))).toBe(true);
    for (const move of moves) {
      expect(move.type?.name, move.name).toBeTruthy();
      expect(move.damage_class?.name, move.name).toBeTruthy();
      expect(move.power === null, move.name).toBe(move.damage_class.name === 'status');
      expect(move.pp, move.name).toBeGreaterThan(0);
      for (const c of move.stat_changes) {
        const side = c.change > 0 ? 'increase' : 'decrease';
        expect(stats.get(c.stat.name)!.affecting_moves[side], move.name).toContainEqual({
          change: c.change,
          move: { name: move.name, url: `${BASE}/api/v2/move/${move.id}/` },
        });
      }
    }
    const listed = records('stat').reduce((n, s) => n + s.affecting_moves.increase.length + s.affecting_moves.decrease.length, 0);
    expect(listed).toBe(changing.reduce((n, m) => n + m.stat_changes.length, 0));
  });

  it('has 25 natures: 5 neutral, and each other pair of stats raised and lowered by exactly one', () => {
    const natures = records('nature');
    const neutral = natures.filter((n) => n.increased_stat === null && n.decreased_stat === null);
    expect(neutral).toHaveLength(5);
    const pairs = natures.filter((n) => n.increased_stat !== null).map((n) => `${n.increased_stat.name}>${n.decreased_stat.name}`);
    const expected = NATURE_STATS.flatMap((a) => NATURE_STATS.filter((b) => b !== a).map((b) => `${a}>${b}`));
    expect(pairs.sort()).toEqual(expected.sort());
    const stats = named('stat');
    for (const n of natures.filter((x) => x.increased_stat !== null)) {
      expect(names(stats.get(n.increased_stat.name)!.affecting_natures.increase), n.name).toContain(n.name);
      expect(names(stats.get(n.decreased_stat.name)!.affecting_natures.decrease), n.name).toContain(n.name);
    }
    for (const n of neutral) {
      for (const s of records('stat')) {
        expect([...names(s.affecting_natures.increase), ...names(s.affecting_natures.decrease)], n.name).not.toContain(n.name);
      }
    }
  });

  it('has 5 athlon stats listing each nature change with its own max_change', () => {
    const athlon = named('athlon-stat');
    let changes = 0;
    for (const nature of records('nature')) {
      for (const c of nature.athlon_stat_changes) {
        changes++;
        const side = c.max_change > 0 ? 'increase' : 'decrease';
        expect(athlon.get(c.athlon_stat.name)!.affecting_natures[side], nature.name).toContainEqual({
          max_change: c.max_change,
          nature: { name: nature.name, url: `${BASE}/api/v2/nature/${nature.id}/` },
        });
      }
    }
    expect(changes).toBeGreaterThan(25);
    for (const a of records('athlon-stat')) {
      expect(a.affecting_natures.increase.length, a.name).toBeGreaterThan(0);
      expect(a.affecting_natures.decrease.length, a.name).toBeGreaterThan(0);
    }
  });

  it('lists the items that affect a stat under that stat', () => {
    const stats = named('stat');
    // An item's affected_stats is written in its source only: the stats publish it.
    const affecting = sources('item').filter(({ data }) => (data.affected_stats ?? []).length > 0);
    expect(affecting.length).toBeGreaterThanOrEqual(5);
    for (const { data: item } of affecting)
      for (const s of item.affected_stats) expect(names(stats.get(s)!.affecting_items), item.name).toContain(item.name);
    for (const item of records('item')) expect(item.affected_stats, item.name).toBeUndefined();
  });

  it('has the 8 stats, the last two battle-only, the others with their characteristics', () => {
    const stats = records('stat');
    expect(names(stats).sort()).toEqual([...STAT_NAMES].sort());
    for (const stat of stats) {
      const battleOnly = stat.name === 'accuracy' || stat.name === 'evasion';
      expect(stat.is_battle_only === true, stat.name).toBe(battleOnly);
      if (battleOnly) expect(stat.characteristics, stat.name).toEqual([]);
      else expect(stat.characteristics.length, stat.name).toBeGreaterThan(0);
    }
    const characteristics = named('characteristic');
    for (const c of characteristics.values()) {
      const stat = stats.find((s) => s.name === c.highest_stat.name)!;
      expect(
        stat.characteristics.map((x: Rec) => x.url),
        c.name,
      ).toContain(`${BASE}/api/v2/characteristic/${c.id}/`);
    }
  });
});

describe('genders', () => {
  it('has female, male and genderless, with species rates from -1 to 8 in eighths female', () => {
    const genders = named('gender');
    expect([...genders.keys()].sort()).toEqual(['female', 'genderless', 'male']);
    const species = records('creature-species');
    const rates = new Set(species.map((s) => s.gender_rate));
    for (const r of rates) expect(r >= -1 && r <= 8, String(r)).toBe(true);
    for (const r of [-1, 0, 8]) expect(rates.has(r), `rate ${r}`).toBe(true);
    expect([...rates].some((r) => r >= 1 && r <= 7)).toBe(true);
    const listed = (g: string) => new Map(genders.get(g)!.creature_species_details.map((d: Rec) => [d.creature_species.name, d.rate]));
    const [female, male, genderless] = ['female', 'male', 'genderless'].map(listed) as Array<Map<string, number>>;
    for (const s of species) {
      expect(female!.has(s.name), s.name).toBe(s.gender_rate >= 1);
      expect(male!.has(s.name), s.name).toBe(s.gender_rate >= 0 && s.gender_rate <= 7);
      expect(genderless!.has(s.name), s.name).toBe(s.gender_rate === -1);
      for (const map of [female, male, genderless]) if (map!.has(s.name)) expect(map!.get(s.name), s.name).toBe(s.gender_rate);
    }
  });

  it('lists under required_for_evolution the species that need that gender, which the family can have', () => {
    const genders = named('gender');
    // The gender a species needs is written in its source only: the genders publish it.
    const needing = sources('creature-species')
      .map(({ data }) => data)
      .filter((s) => s.gender_required_to_evolve);
    expect(needing.length).toBeGreaterThan(0);
    for (const g of genders.values()) {
      expect(names(g.required_for_evolution).sort(), g.name).toEqual(
        names(needing.filter((s) => s.gender_required_to_evolve === g.name)).sort(),
      );
    }
    for (const s of needing) {
      const g = s.gender_required_to_evolve;
      expect(
        g === 'female' ? s.gender_rate >= 1 : g === 'male' ? s.gender_rate >= 0 && s.gender_rate <= 7 : s.gender_rate === -1,
        s.name,
      ).toBe(true);
    }
    for (const s of records('creature-species')) expect(s.gender_required_to_evolve, s.name).toBeUndefined();
  });
});

describe('locations and encounters', () => {
  it('splits every location into areas named after it', () => {
    const locations = named('location');
    for (const location of locations.values()) expect(location.areas.length, location.name).toBeGreaterThan(0);
    for (const area of records('location-area')) {
      expect(area.name.startsWith(`${area.location.name}-`), area.name).toBe(true);
      expect(names(locations.get(area.location.name)!.areas), area.name).toContain(area.name);
    }
  });

  it('gives each area its encounter methods with a rate per version, and encounters whose numbers make sense', () => {
    let conditioned = 0;
    let rows = 0;
    for (const area of records('location-area')) {
      expect(area.encounter_method_rates.length, area.name).toBeGreaterThan(0);
      const rated = new Set<string>();
      for (const m of area.encounter_method_rates) {
        expect(m.version_details.length, area.name).toBeGreaterThan(0);
        for (const v of m.version_details) {
          expect(v.rate, area.name).toBeGreaterThan(0);
          expect(v.rate, area.name).toBeLessThanOrEqual(100);
          rated.add(`${m.encounter_method.name}@${v.version.name}`);
        }
      }
      expect(area.creature_encounters.length, area.name).toBeGreaterThan(0);
      for (const enc of area.creature_encounters) {
        // PokeAPI's max_chance: the chances of every way the creature is met in that version, summed.
        const total = new Map<string, number>();
        for (const vd of enc.version_details) total.set(vd.version.name, (total.get(vd.version.name) ?? 0) + vd.encounter_details.chance);
        for (const vd of enc.version_details) {
          const d = vd.encounter_details;
          const where = `${area.name} ${enc.creature.name} ${vd.version.name}`;
          rows++;
          expect(d.min_level, where).toBeGreaterThanOrEqual(1);
          expect(d.min_level, where).toBeLessThanOrEqual(d.max_level);
          expect(d.max_level, where).toBeLessThanOrEqual(100);
          expect(d.chance, where).toBeGreaterThanOrEqual(1);
          expect(d.chance, where).toBeLessThanOrEqual(100);
          expect(vd.max_chance, where).toBe(total.get(vd.version.name));
          expect(rated.has(`${d.method.name}@${vd.version.name}`), `${where}: ${d.method.name} has no rate in this version`).toBe(true);
          if (d.condition_values) conditioned++;
        }
      }
    }
    expect(rows).toBeGreaterThan(1000);
    expect(conditioned).toBeGreaterThan(0);
    // max_chance is not just the row's own chance everywhere: some creature meets two rows in a version.
    const differs = records('location-area').some((a) =>
      a.creature_encounters.some((e: Rec) => e.version_details.some((vd: Rec) => vd.max_chance > vd.encounter_details.chance)),
    );
    expect(differs).toBe(true);
  });
});

describe('the built folder', () => {
  it('resolves every url in every published file to a file: records to their index.json, sprites to their .svg', () => {
    const missing = new Set<string>();
    let urls = 0;
    for (const rel of files) {
      // The API description and published schemas name the base and the JSON Schema dialect too.
      if (!rel.endsWith('.json') || rel === apiPaths.openapi || rel.startsWith(`${apiPaths.schemaDir}/`)) continue;
      for (const [, value] of walk(readJson(rel))) {
        if (typeof value !== 'string' || !value.startsWith('http')) continue;
        urls++;
        const target = fileOf(value);
        if (!target || !files.has(target)) missing.add(`${rel}: ${value}`);
      }
    }
    expect([...missing].slice(0, 20)).toEqual([]);
    expect(urls).toBeGreaterThan(10_000);
  });
});

describe('the source files', () => {
  it('are laid out by kind and name: data/<kind>/<name>.yaml', () => {
    for (const kind of Object.keys(result.records)) {
      const list = sources(kind);
      expect(list.length, kind).toBe(result.records[kind]);
      for (const { file, data } of list) expect(file, kind).toBe(`${data.name}.yaml`);
    }
  });

  it('state each pair of the chart once', () => {
    const stated = new Map<string, string>();
    for (const { data } of sources('type')) {
      for (const [to, from] of RELATIONS) {
        for (const other of data.damage_relations?.[to] ?? []) {
          const key = `${data.name}>${other}`;
          expect(stated.get(key), key).toBeUndefined();
          stated.set(key, to);
        }
        for (const other of data.damage_relations?.[from] ?? []) {
          const key = `${other}>${data.name}`;
          expect(stated.get(key), key).toBeUndefined();
          stated.set(key, from);
        }
      }
    }
    expect(stated.size).toBeGreaterThan(50);
  });

  it('write a form’s types only where they differ from its creature’s', () => {
    const creatures = new Map(sources('creature').map(({ data }) => [data.name, data]));
    let written = 0;
    for (const { data } of sources('creature-form')) {
      if (data.types === undefined) continue;
      written++;
      expect(data.types, data.name).not.toEqual(creatures.get(data.creature)!.types);
    }
    expect(written).toBeGreaterThan(0);
  });
});

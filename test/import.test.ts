// The importer, end to end: a PokeAPI-shaped world (test/fixtures/pokeapi-world/, written for this
// project in PokeAPI's exact shape) is imported and built by the real commands, and every record of
// every kind PokeAPI has is compared with the one built. They are equal but for the differences the
// specification forces, each named in `FORCED` with its reason, and for what is not carried yet,
// which `GAPS` lists exactly. With CRS_POKEAPI_DATA naming a real api-data folder (data/api/v2), the
// same comparison runs on all of it and prints, per kind, PokeAPI's records, those built, those
// equal and the fields most often missing.

import fs from 'node:fs';
import path from 'node:path';
import diff from 'microdiff';
import { describe, expect, it } from 'vitest';
import { checkAgreements } from '../build/import/agree.ts';
import { placesInChains } from '../build/import/evolution.ts';
import { ourName, type Poke, type World } from '../build/import/kinds.ts';
import { readSource } from '../build/import/read.ts';
import { loadSchemas } from '../build/schemas/schemas.ts';
import { BASE, fixturesDir, launched, snapshot, tempDir } from './helpers.ts';

const FIXTURE = path.join(fixturesDir, 'pokeapi-world');
const schemas = loadSchemas();

/** Imports `from` and builds the result: the data folder, the built API, and the import's report. */
async function importAndBuild(from: string) {
  const dir = await tempDir('crs-import-');
  const data = path.join(dir, 'data');
  const imported = await launched('import', ['--from', from, '--out', data]);
  expect(imported.stderr + imported.stdout).toContain('records written');
  expect(imported.code).toBe(0);
  const built = await launched('build', ['--data', data, '--out', path.join(dir, 'dist'), '--plain']);
  expect(built.stderr).not.toMatch(/problems? in/);
  expect(built.code).toBe(0);
  const report = JSON.parse(fs.readFileSync(`${data}.import-report.json`, 'utf8'));
  return { data, api: path.join(dir, 'dist', 'api', 'v2'), report };
}

// --- PokeAPI's record as this API must publish it ------------------------------------------------

/** The first record of a kind by id: what a required reference PokeAPI leaves null becomes. */
const firstOf = (world: World, kind: string) => [...world.get(kind)!.values()].sort((a, b) => a.id - b.id)[0]!;

/** A PokeAPI url, as this API's: the base in front, the kind renamed. */
const url = (value: string) => value.replace(/^\/api\/v2\/([a-z-]+)\//, (_, kind: string) => `${BASE}/api/v2/${ourName(kind)}/`);

/** What a forced difference is given: PokeAPI's record (renamed), the built one, and PokeAPI's world as read. */
interface Pair {
  kind: string;
  expected: Poke;
  built: Poke;
  world: World;
}

/**
 * Every difference the specification forces between PokeAPI's record and the one built, each with
 * its reason, in the order applied. This list is the only place the comparison takes anything away:
 * never a field because a schema lacks it (a field not carried is a gap, below).
 */
const FORCED: Array<{ why: string; apply: (pair: Pair) => void }> = [
  {
    why: 'the build fills each place of a sprite tree its record leaves out (a set, a version group): drawn, or the default form’s. The places PokeAPI’s tree has are compared, each url as it is',
    apply: ({ expected, built }) => {
      if (expected.sprites !== undefined && built.sprites !== undefined) built.sprites = within(built.sprites, expected.sprites);
    },
  },
  {
    why: 'a form’s sprite values are urls: PokeAPI’s images of a form by version group are not published',
    apply: ({ kind, expected }) => {
      if (kind === 'creature-form') delete expected.sprites?.versions;
    },
  },
  {
    why: 'a type’s name icon is a url where it is given: one PokeAPI gives as null is left out',
    apply: ({ kind, expected }) => {
      if (kind !== 'type') return;
      for (const groups of Object.values(expected.sprites ?? {}) as Poke[])
        for (const icons of Object.values(groups) as Poke[]) if (icons.name_icon === null) delete icons.name_icon;
    },
  },
  {
    why: 'the specification’s type and stat require a move damage class: a null one is the first class by id',
    apply: ({ kind, expected, world }) => {
      if ((kind === 'type' || kind === 'stat') && expected.move_damage_class === null)
        expected.move_damage_class = refTo(world, 'move-damage-class');
    },
  },
  {
    why: 'the specification’s version detail holds one encounter, and an encounter one condition value',
    apply: (pair) => {
      if (pair.kind === 'location-area') pair.expected = oneEncounterPerDetail(pair.expected);
    },
  },
  {
    why: 'a creature’s encounters give each version’s ways of meeting it in its area’s order: PokeAPI’s two endpoints order them by database rows neither gives',
    apply: ({ kind, expected, world }) => {
      if (kind === 'creature/encounters') for (const encounter of expected.encounters) inAreaOrder(encounter, expected.id, world);
    },
  },
  {
    why: 'a form’s trigger condition is {trigger, name, url}: one that names no record of a published kind is left out of the form (its trigger-conditions sub-resource, compared whole, gives it)',
    apply: ({ kind, expected }) => {
      if (kind === 'creature-form') expected.trigger_conditions = expected.trigger_conditions.filter((t: Poke) => knownTrigger(t));
    },
  },
  {
    why: 'the build lists every derived list by id (PokeAPI: a gender’s species, a past relation’s types, a flavor’s berries in its database’s order)',
    apply: ({ kind, expected }) => {
      if (kind === 'gender') expected.creature_species_details.sort((a: Poke, b: Poke) => byUrl(a.creature_species, b.creature_species));
      if (kind === 'berry-flavor') expected.berries.sort((a: Poke, b: Poke) => byUrl(a.berry, b.berry));
      if (kind === 'type')
        for (const past of expected.past_damage_relations)
          for (const list of Object.values(past.damage_relations) as Poke[][]) list.sort(byUrl);
    },
  },
  {
    why: 'a list the schema declares the inverse of a reference (x-inverse) is derived by the build, by id; PokeAPI lists some in its database’s order',
    apply: ({ kind, expected }) => {
      for (const { field, as } of schemas.kinds.get(kind)?.inverses ?? []) {
        if (!Array.isArray(expected[field])) continue;
        if (as === undefined && expected[field].every((ref: Poke) => typeof ref?.url === 'string')) expected[field].sort(byUrl);
        if (as !== undefined) expected[field].sort((a: Poke, b: Poke) => byUrl(a[as], b[as]));
      }
    },
  },
  {
    why: 'the build makes a chain’s tree from its species: a species whose chain, evolves_from_species or is_baby PokeAPI states otherwise than the tree takes the tree’s (listed in the import report)',
    apply: ({ kind, expected, world }) => {
      const place = kind === 'creature-species' ? placesIn(world).get(expected.id) : undefined;
      if (place)
        for (const field of ['evolution_chain', 'evolves_from_species', 'is_baby'] as const) expected[field] = renamed(place[field]);
    },
  },
  {
    why: 'a name is unique within its kind: of a name PokeAPI gives twice, the later record’s is <name>-<id>, wherever it is named',
    apply: (pair) => {
      pair.expected = uniquelyNamed(pair.expected, pair.world) as Poke;
      const name = renamedTo(pair.world, pair.kind, pair.expected.id);
      if (name) pair.expected.name = name;
    },
  },
];

/** Each species' place in its chain's tree, by id, as the import takes it (once per world read). */
function placesIn(world: World): ReturnType<typeof placesInChains> {
  let places = placesOf.get(world);
  if (!places) placesOf.set(world, (places = placesInChains(world)));
  return places;
}
const placesOf = new WeakMap<World, ReturnType<typeof placesInChains>>();

function refTo(world: World, kind: string) {
  const first = firstOf(world, kind);
  return { name: first.name, url: `${BASE}/api/v2/${kind}/${first.id}/` };
}

/** The name the import gives a record whose name another of its kind with a lower id has, or undefined. */
function renamedTo(world: World, kind: string, id: number): string | undefined {
  let renamed = renamedIn.get(world);
  if (!renamed) {
    renamed = new Map();
    for (const [k, records] of world) {
      const taken = new Set<string>();
      for (const record of [...records.values()].sort((a, b) => a.id - b.id)) {
        if (record.name !== undefined && taken.has(record.name)) renamed.set(`${k}/${record.id}`, `${record.name}-${record.id}`);
        taken.add(record.name);
      }
    }
    renamedIn.set(world, renamed);
  }
  return renamed.get(`${kind}/${id}`);
}
const renamedIn = new WeakMap<World, Map<string, string>>();

/** Every reference in `value` (this API's urls) to a record the import renamed, with its new name. */
function uniquelyNamed(value: unknown, world: World): unknown {
  if (Array.isArray(value)) return value.map((item) => uniquelyNamed(item, world));
  if (!value || typeof value !== 'object') return value;
  const out = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, uniquelyNamed(v, world)]));
  const target = typeof out.url === 'string' ? /\/api\/v2\/([a-z-]+)\/(-?\d+)\/$/.exec(out.url) : null;
  const name = target && typeof out.name === 'string' ? renamedTo(world, target[1]!, Number(target[2])) : undefined;
  return name ? { ...out, name } : out;
}

/** Records' references by the id in their urls. */
const byUrl = (a: Poke, b: Poke) => Number(a.url.split('/').at(-2)) - Number(b.url.split('/').at(-2));

/** `value` with only the keys `shape` has, at every level. */
function within(value: unknown, shape: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value) || !shape || typeof shape !== 'object') return value;
  const keys = shape as Poke;
  return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (k in keys ? [[k, within(v, keys[k])]] : [])));
}

/** Keys and urls with "pokemon" as "creature", "pokeathlon" as "athlon", the base in front. */
function renamed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(renamed);
  if (typeof value === 'string') return value.startsWith('/api/v2/') ? url(value) : value;
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [ourName(k), renamed(v)]));
}

/**
 * The specification's version detail holds one encounter (and an encounter one condition value):
 * PokeAPI's version detail with several is published as one per encounter, each with the version's
 * max_chance, the first condition value kept.
 */
function oneEncounterPerDetail(area: Poke): Poke {
  const detail = (vd: Poke) =>
    vd.encounter_details.map((one: Poke) => {
      const { condition_values: values, ...rest } = one;
      return { ...vd, encounter_details: values.length ? { ...rest, condition_values: values[0] } : rest };
    });
  return {
    ...area,
    creature_encounters: area.creature_encounters.map((e: Poke) => ({ ...e, version_details: e.version_details.flatMap(detail) })),
  };
}

/** A creature's encounter in an area (PokeAPI's sub-resource, renamed), each version's details in the order the area gives them. */
function inAreaOrder(encounter: Poke, creature: number, world: World): void {
  const idOf = (url: string) => Number(url.split('/').at(-2));
  const area = world.get('location-area')?.get(idOf(encounter.location_area.url));
  const inArea = area?.pokemon_encounters?.find((one: Poke) => idOf(one.pokemon.url) === creature);
  for (const detail of encounter.version_details) {
    const stated = inArea?.version_details.find((one: Poke) => one.version.name === detail.version.name);
    if (!stated) continue;
    // Each detail takes the place of one the area states alike: the same one may be stated twice, apart.
    const places = new Map<string, number[]>();
    stated.encounter_details.forEach((one: Poke, i: number) => {
      const key = JSON.stringify(renamed(one));
      places.set(key, [...(places.get(key) ?? []), i]);
    });
    const placed = detail.encounter_details.map((one: Poke) => ({ one, at: places.get(JSON.stringify(one))?.shift() ?? -1 }));
    detail.encounter_details = placed.sort((a: { at: number }, b: { at: number }) => a.at - b.at).map((p: { one: Poke }) => p.one);
  }
}

/** A trigger condition the specification can state: it names a record (`gigantamax-factor` names none) of a kind published. */
const knownTrigger = (t: Poke) => typeof t.url === 'string' && schemas.kinds.has(t.url.split('/').at(-3)!);

// --- the comparison ------------------------------------------------------------------------------

/** One PokeAPI record against the built one: equal, or the fields not carried and the values that differ. */
interface Compared {
  kind: string;
  id: number;
  built: boolean;
  /** Fields PokeAPI's record has and the built one lacks, as paths (`[]` for any item of a list). */
  missing: string[];
  /** Every other difference, as `<type> <path>`. */
  other: string[];
}

/** A path as a field's place, a list's items as `[]`. */
const place = (at: Array<string | number>) =>
  at
    .map((step) => (typeof step === 'number' ? '[]' : step))
    .join('.')
    .replace(/\.\[\]/g, '[]');

function compare(kind: string, record: Poke, builtFile: string, world: World): Compared {
  const found: Compared = { kind, id: record.id, built: fs.existsSync(builtFile), missing: [], other: [] };
  if (!found.built) return found;
  const read = JSON.parse(fs.readFileSync(builtFile, 'utf8'));
  // A sub-resource is a list: under the one field beside the id its PokeAPI side has.
  const built = Array.isArray(read) ? { id: record.id, [Object.keys(record).find((key) => key !== 'id')!]: read } : read;
  const pair: Pair = { kind, expected: renamed(record) as Poke, built, world };
  for (const step of FORCED) step.apply(pair);
  const missing = new Set<string>();
  for (const change of diff(pair.expected, pair.built)) {
    const last = change.path.at(-1);
    if (change.type === 'REMOVE' && typeof last === 'string') missing.add(place(change.path));
    else found.other.push(`${change.type} /${change.path.join('/')}`);
  }
  found.missing = [...missing].sort();
  return found;
}

/** PokeAPI's kinds in `from` (its names), each with its record ids, in name order. */
function pokeKinds(from: string): Array<[string, number[]]> {
  return fs
    .readdirSync(from, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((kind): [string, number[]] => [
      kind,
      fs
        .readdirSync(path.join(from, kind))
        .filter((id) => /^-?\d+$/.test(id) && fs.existsSync(path.join(from, kind, id, 'index.json')))
        .map(Number)
        .sort((a, b) => a - b),
    ])
    .filter(([, ids]) => ids.length > 0);
}

/** Every record of every kind in `from`, against what the build wrote in `api`. */
async function compareAll(from: string, api: string): Promise<Compared[]> {
  const { world } = await readSource(from, schemas);
  const out: Compared[] = [];
  for (const [pokeKind, ids] of pokeKinds(from)) {
    const kind = ourName(pokeKind);
    for (const id of ids) {
      const record = JSON.parse(fs.readFileSync(path.join(from, pokeKind, String(id), 'index.json'), 'utf8'));
      out.push(compare(kind, record, path.join(api, kind, String(id), 'index.json'), world));
      // A form's trigger conditions, whole, are a sub-resource: compared with PokeAPI's list, every condition.
      if (kind === 'creature-form') {
        const list = { id, trigger_conditions: record.trigger_conditions };
        out.push(compare(`${kind}/trigger-conditions`, list, path.join(api, kind, String(id), 'trigger-conditions', 'index.json'), world));
      }
      // A creature's encounters are a sub-resource of its own, a list: compared as one record of a kind of its own.
      const encounters = path.join(from, pokeKind, String(id), 'encounters', 'index.json');
      if (kind !== 'creature' || !fs.existsSync(encounters)) continue;
      const list = { id, encounters: JSON.parse(fs.readFileSync(encounters, 'utf8')) };
      out.push(compare(`${kind}/encounters`, list, path.join(api, kind, String(id), 'encounters', 'index.json'), world));
    }
  }
  return out;
}

/** What is not carried yet, as the fixture's GAPS states it: each kind not published, each field not carried, by kind. */
function gapsOf(list: Compared[]): { kinds: string[]; fields: Record<string, string[]> } {
  const kinds = new Set<string>();
  const fields: Record<string, Set<string>> = {};
  for (const one of list) {
    if (!one.built) kinds.add(one.kind);
    for (const field of one.missing) (fields[one.kind] ??= new Set()).add(field);
  }
  return {
    kinds: [...kinds].sort(),
    fields: Object.fromEntries(
      Object.entries(fields)
        .map(([k, v]) => [k, [...v].sort()])
        .sort(),
    ),
  };
}

/**
 * The per-kind table: PokeAPI's records, those built, those equal, the places most often missing
 * (`[]` for any item of a list), and how many built records differ otherwise, with the first such difference.
 */
function table(list: Compared[]): string {
  type Row = { records: number; built: number; equal: number; missing: Map<string, number>; other: number; first?: string };
  const rows = new Map<string, Row>();
  for (const one of list) {
    const row: Row = rows.get(one.kind) ?? { records: 0, built: 0, equal: 0, missing: new Map(), other: 0 };
    rows.set(one.kind, row);
    row.records++;
    if (one.built) row.built++;
    if (one.built && one.missing.length === 0 && one.other.length === 0) row.equal++;
    for (const field of one.missing) row.missing.set(field, (row.missing.get(field) ?? 0) + 1);
    if (one.other.length > 0) row.other++;
    if (one.other.length > 0 && !row.first) row.first = `${one.id}: ${one.other[0]}`;
  }
  const lines = ['| kind | PokeAPI | built | equal | most often missing | differ otherwise |', '| --- | ---: | ---: | ---: | --- | --- |'];
  const total = { records: 0, built: 0, equal: 0 };
  for (const [kind, row] of [...rows].sort(([a], [b]) => a.localeCompare(b))) {
    const top = [...row.missing].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 6);
    const other = row.other ? `${row.other} (${row.first})` : '';
    lines.push(`| ${kind} | ${row.records} | ${row.built} | ${row.equal} | ${top.map(([f]) => f).join(', ')} | ${other} |`);
    total.records += row.records;
    total.built += row.built;
    total.equal += row.equal;
  }
  lines.push(`| all | ${total.records} | ${total.built} | ${total.equal} | | |`);
  return lines.join('\n');
}

// --- the fixture world ---------------------------------------------------------------------------

/**
 * What the fixture shows is not carried yet: the kinds not published, and by kind the fields built
 * records lack (`[]` for any item of a list). The fixture test holds the comparison to exactly this,
 * so it fails when a new gap appears and when one listed is closed: close a gap, and take it out here.
 * It speaks only of the kinds and fields the fixture holds: PokeAPI's kinds the fixture has no record
 * of yet (pokedexes, evolution chains, machines, …) are listed by the opt-in table.
 */
const GAPS: { kinds: string[]; fields: Record<string, string[]> } = {
  kinds: [],
  fields: {},
};

describe('import of a PokeAPI-shaped world', () => {
  it('builds, and every built record is PokeAPI’s but for what the specification forces and the gaps listed', async () => {
    const { api, report } = await importAndBuild(FIXTURE);
    const list = await compareAll(FIXTURE, api);
    // The records, the creatures' encounters and the forms' trigger conditions.
    expect(list.filter((one) => one.built).length).toBe(169);
    expect(list.filter((one) => one.kind === 'creature-form/trigger-conditions' && one.built).length).toBe(10);
    expect(list.flatMap((one) => one.other.map((o) => `${one.kind}/${one.id}: ${o}`))).toEqual([]);
    expect(gapsOf(list)).toEqual(GAPS);
    // The fixture is consistent: PokeAPI's two statements of each derived fact agree.
    expect(report.disagreements).toEqual([]);
    expect(report.skipped).toEqual({});
  }, 120_000);

  it('reports each fold and drop, never silently', async () => {
    const dir = await tempDir('crs-import-');
    const out = path.join(dir, 'data');
    expect((await launched('import', ['--from', FIXTURE, '--out', out])).code).toBe(0);
    const { losses } = JSON.parse(fs.readFileSync(`${out}.import-report.json`, 'utf8'));
    const find = (category: string, field?: string) => losses.find((l: Poke) => l.category === category && (!field || l.field === field));
    expect(find('encounter-details')).toMatchObject({ action: 'folded', count: 3, records: ['ember-cave-1f', 'misty-bay--pier-area'] });
    // Several condition values are a list in the source: nothing is lost (the creature's encounters give them all).
    expect(find('condition-values')).toBeUndefined();
    expect(fs.readFileSync(path.join(out, 'location-area', 'ember-cave-1f.yaml'), 'utf8')).toMatch(
      /condition_values:\n\s+- time-night\n\s+- swarm-no\n/,
    );
    expect(find('null-reference', 'move_damage_class')).toBeTruthy();
    expect(
      losses
        .filter((l: Poke) => l.category === 'null-reference')
        .flatMap((l: Poke) => l.records)
        .sort(),
    ).toEqual(['fairy', 'hp', 'speed']);
    expect(find('trigger-condition-unnamed', 'trigger_conditions[](gigantamax-factor)')).toMatchObject({
      action: 'folded',
      records: ['shifter-gmax'],
    });
    expect(find('trigger-condition', 'trigger_conditions[](gigantamax-factor)')).toBeUndefined();
    expect(losses.find((l: Poke) => l.kind === 'creature' && l.field === 'moves')).toBeUndefined(); // an empty list loses nothing
    expect(find('field-not-in-schema', 'location_area_encounters')).toBeUndefined(); // derived by the build
    // The source holds a pair once: the item names its stats, the species the gender it needs.
    expect(fs.readFileSync(path.join(out, 'item', 'vital-drop.yaml'), 'utf8')).toContain('affected_stats:\n  - hp\n  - attack\n');
    expect(fs.readFileSync(path.join(out, 'creature-species', 'pixiemoth.yaml'), 'utf8')).toContain('gender_required_to_evolve: female\n');
    expect(fs.readFileSync(path.join(out, 'characteristic', 'loves-to-eat.yaml'), 'utf8')).toContain('highest_stat: hp\n');
    // A move states the moves that follow it in a combo; those it follows are derived, never written.
    const growl = fs.readFileSync(path.join(out, 'move', 'growl-song.yaml'), 'utf8');
    expect(growl).toContain('contest_combos:\n  normal:\n    use_before:\n      - ember\n      - night-rush\n');
    expect(fs.readFileSync(path.join(out, 'move', 'ember.yaml'), 'utf8')).not.toContain('use_after');
    expect(fs.readdirSync(path.join(out, 'contest-effect'))).toContain('startles-the-pokemon-that-appealed-just-before-the-user.yaml');
  });

  it('writes the same bytes from the same input', async () => {
    const dir = await tempDir('crs-import-');
    for (const name of ['a', 'b']) expect((await launched('import', ['--from', FIXTURE, '--out', path.join(dir, name)])).code).toBe(0);
    const [a, b] = [await snapshot(path.join(dir, 'a')), await snapshot(path.join(dir, 'b'))];
    expect(a.size).toBe(154);
    expect(b).toEqual(a);
  });

  it('refuses an --out that holds anything, and a missing --from, in one line with exit code 2', async () => {
    const dir = await tempDir('crs-import-');
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'mine');
    const full = await launched('import', ['--from', FIXTURE, '--out', dir]);
    expect(full.code).toBe(2);
    expect(full.stderr.trim().split('\n')).toEqual([`--out ${dir} exists and is not empty: the import writes only a new or empty folder`]);
    expect(fs.readdirSync(dir)).toEqual(['notes.txt']);
    const none = await launched('import', ['--out', path.join(dir, 'data')]);
    expect(none.code).toBe(2);
    expect(none.stderr.trim().split('\n')).toHaveLength(1);
    const missing = await launched('import', ['--from', path.join(dir, 'nowhere'), '--out', path.join(dir, 'data')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe(`--from ${path.join(dir, 'nowhere')}: no such folder`);
    expect(fs.existsSync(path.join(dir, 'data'))).toBe(false);
  });

  it('finds where PokeAPI’s two statements of a derived fact disagree', async () => {
    const { world } = await readSource(FIXTURE, schemas);
    const record = (kind: string, id: number) => world.get(kind)!.get(id)!;
    record('type', 10).damage_relations.double_damage_to = []; // fire no longer says it hits steel double
    record('stat', 3).affecting_natures.increase = []; // defense forgets bold
    record('location-area', 1).pokemon_encounters[0].version_details[0].max_chance = 30;
    record('creature-form', 10002).pokemon = { name: 'flarecub', url: '/api/v2/pokemon/1/' };
    record('move', 1).contest_combos.normal.use_after = null; // ember forgets it follows growl-song
    record('berry-flavor', 5).berries = []; // sour forgets pecha
    record('move-ailment', -1).moves = []; // "unknown" forgets iron-wall
    record('machine', 3).version_group = { name: 'gold-silver', url: '/api/v2/version-group/3/' }; // ember's and tm01's machine 3 say x-y
    record('stat', 3).names[0].language = { ...record('stat', 3).names[0].language, name: 'xx' }; // its url still names the language
    const found = checkAgreements(world).map((d) => `${d.record}: ${d.detail}`);
    expect(found).toEqual([
      // A reference's name beside its url: the source writes the name of the record the url names.
      'stat/defense: /names/0/language names "xx", where language 5 is "fr"',
      'berry/pecha: flavors gives sour 10; berry-flavor.berries does not',
      'creature-form/shifter-crest: pokemon is flarecub; creature.forms does not',
      'creature/shifter: forms lists shifter-crest; creature-form.pokemon does not',
      'item/tm01: machines lists machine 3 in x-y; machine.item does not',
      'machine/3: item is tm01 in gold-silver; item.machines does not',
      'location-area/ember-cave-1f: flarecub in red: max_chance 30, chances sum to 35',
      'move/iron-wall: meta.ailment is unknown; move-ailment.moves does not',
      'move/growl-song: normal.use_before lists ember; move.contest_combos.*.use_after does not',
      'machine/3: move is ember in gold-silver; move.machines does not',
      'move/ember: machines lists machine 3 in x-y; machine.move does not',
      'nature/bold: increased_stat is defense; stat.affecting_natures does not',
      'type/steel: double_damage_from lists fire; type.damage_relations.*_to does not',
      // Fire's row stands for generation V too, where steel's past entry still says fire hits it double.
      "type/steel: fire → steel: 2× here, normal damage by fire's row",
    ]);
  });
});

// --- a subset of PokeAPI's own data --------------------------------------------------------------

/**
 * test/fixtures/pokeapi-subset/ holds PokeAPI's own records (test/pokeapi-subset.ts wrote it from
 * api-data): every kind, and every top-level field at least once where PokeAPI's records give it,
 * with the list items that name a record outside the subset taken away. What it shows is not
 * carried yet, exactly as GAPS does for the fixture world.
 */
const SUBSET = path.join(fixturesDir, 'pokeapi-subset');
const SUBSET_GAPS: { kinds: string[]; fields: Record<string, string[]> } = { kinds: [], fields: {} };

describe('import of a subset of PokeAPI’s own data', () => {
  it('builds, and every built record is PokeAPI’s but for what the specification forces and the gaps listed', async () => {
    const { api } = await importAndBuild(SUBSET);
    const list = await compareAll(SUBSET, api);
    expect(list.flatMap((one) => one.other.map((o) => `${one.kind}/${one.id}: ${o}`))).toEqual([]);
    expect(gapsOf(list)).toEqual(SUBSET_GAPS);
  }, 120_000);
});

// --- a real api-data folder, opt-in --------------------------------------------------------------

const REAL = process.env.CRS_POKEAPI_DATA;
if (!REAL) console.log('import.test.ts: the real-data round trip is skipped; set CRS_POKEAPI_DATA to api-data’s data/api/v2 to run it');

describe.skipIf(!REAL)('import of a real PokeAPI folder (CRS_POKEAPI_DATA)', () => {
  // All of it is imported, so that every reference resolves and every derived list is whole; then
  // every record of every kind is compared, and the table of what is carried printed.
  it('builds, and prints per kind PokeAPI’s records, those built and those equal', async () => {
    const { api, report } = await importAndBuild(REAL!);
    const list = await compareAll(REAL!, api);
    console.log(`${table(list)}\n\n${report.disagreements.length} disagreements in PokeAPI`);
    expect(list.some((one) => one.built)).toBe(true);
  }, 900_000);
});

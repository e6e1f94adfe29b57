// `npm run gen:world -- --scale N --out DIR [--seed S]`: writes a synthetic world in the source
// format, with PokeAPI's proportions at scale 1, for benchmarks and load tests. The same seed and
// scale give the same files. Closed vocabularies (languages, generations, versions, types, stats,
// athlon stats, genders, natures, damage classes, encounter methods and conditions,
// characteristics) keep their size; creatures, species, forms, moves, items, locations and
// location areas (with their encounters) grow with the scale.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { stringify } from 'yaml';
import { folderToWrite, ownFolder, UsageError } from '../guard.mjs';
import { defaultDataDir, projectRoot } from '../paths.ts';
import { commandOptions } from './command.ts';

type Rec = Record<string, unknown> & { id: number; name: string };

/** A small seeded PRNG (mulberry32). */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  return { next, int, pick };
}

const pad = (n: number) => String(n).padStart(5, '0');
const LANGS = ['en', 'es', 'de'];
const names = (label: string) => LANGS.map((language) => ({ name: `${label} (${language})`, language }));
const TYPE_NAMES = [
  'normal',
  'fighting',
  'flying',
  'poison',
  'ground',
  'rock',
  'bug',
  'ghost',
  'steel',
  'fire',
  'water',
  'grass',
  'electric',
  'psychic',
  'ice',
  'dragon',
  'dark',
  'fairy',
];
const STATS = ['hp', 'attack', 'defense', 'special-attack', 'special-defense', 'speed', 'accuracy', 'evasion'];

type Random = ReturnType<typeof random>;
/** Appends a record to its kind's list and hands it back, so a stage can keep what later stages link to. */
type Add = (kind: string, rec: Rec) => Rec;

/** The closed vocabularies: the records every other kind links to, whose count never scales. */
interface Vocabulary {
  groups: Rec[];
  versions: Rec[];
  classes: Rec[];
  battleTypes: Rec[];
  stats: Rec[];
  methods: Rec[];
  conditions: Rec[];
}

/**
 * Every record of a world at `scale`, by kind. The stages run in a fixed order because they draw
 * from one seeded sequence: reordering them would change every world a seed gives.
 */
export function generateWorld(scale: number, seed = 1): Map<string, Rec[]> {
  const r = random(seed);
  const { world, add } = recordStore();
  const n = (base: number) => Math.max(1, Math.round(base * scale));

  const vocab = addVocabulary(add, r);
  addMoves(add, r, n(900), vocab);
  const items = addItems(add, r, n(2000), vocab.stats);
  const creatures = addCreatures(add, r, n(1000), vocab.battleTypes);
  addForms(add, r, n(1580), creatures, vocab.groups, items);
  const locations = addLocations(add, n(800));
  addLocationAreas(add, r, n(1530), locations, creatures, vocab);
  return world;
}

/** An empty world and the function that fills it, kinds kept in the order they first appear. */
function recordStore(): { world: Map<string, Rec[]>; add: Add } {
  const world = new Map<string, Rec[]>();
  const add: Add = (kind, rec) => {
    const list = world.get(kind) ?? [];
    list.push(rec);
    world.set(kind, list);
    return rec;
  };
  return { world, add };
}

function addVocabulary(add: Add, r: Random): Vocabulary {
  LANGS.forEach((name, i) => add('language', { id: i + 1, name, names: names(`Language ${name}`) }));
  const { generations, groups, versions } = addGameVersions(add);
  const classes = ['status', 'physical', 'special'].map((name, i) => add('move-damage-class', { id: i + 1, name, names: names(name) }));
  const battleTypes = addTypes(add, r, generations, classes);
  const stats = addStats(add, classes);
  const athlon = ['speed', 'power', 'skill', 'stamina', 'jump'].map((name, i) =>
    add('athlon-stat', { id: i + 1, name, names: names(name) }),
  );
  ['female', 'male', 'genderless'].forEach((name, i) => add('gender', { id: i + 1, name }));
  addNatures(add, stats, athlon);
  addCharacteristics(add, stats);
  const methods = Array.from({ length: 30 }, (_, i) =>
    add('encounter-method', { id: i + 1, name: `method-${i + 1}`, names: names(`Method ${i + 1}`) }),
  );
  const conditions = Array.from({ length: 70 }, (_, i) =>
    add('encounter-condition-value', { id: i + 1, name: `condition-${i + 1}`, names: names(`Condition ${i + 1}`) }),
  );
  return { groups, versions, classes, battleTypes, stats, methods, conditions };
}

/** Nine generations, three version groups to each, and forty versions spread over the groups. */
function addGameVersions(add: Add): { generations: Rec[]; groups: Rec[]; versions: Rec[] } {
  const generations = Array.from({ length: 9 }, (_, i) =>
    add('generation', { id: i + 1, name: `generation-${i + 1}`, names: names(`Generation ${i + 1}`) }),
  );
  const groups = Array.from({ length: 27 }, (_, i) =>
    add('version-group', { id: i + 1, name: `version-group-${i + 1}`, generation: generations[Math.floor(i / 3)]!.name }),
  );
  const versions = Array.from({ length: 40 }, (_, i) =>
    add('version', {
      id: i + 1,
      name: `version-${i + 1}`,
      names: names(`Version ${i + 1}`),
      version_group: groups[Math.min(26, Math.floor(i / 1.5))]!.name,
    }),
  );
  return { generations, groups, versions };
}

/** The 18 battle types and three special ones; returns the battle types, the ones records may hold. */
function addTypes(add: Add, r: Random, generations: Rec[], classes: Rec[]): Rec[] {
  const typeNames = [...TYPE_NAMES, 'unknown', 'shadow', 'stellar'];
  const types = typeNames.map((name, i) => {
    const battle = i < 18;
    const rel = damageRelations(r, battle);
    return add('type', {
      id: i < 18 ? i + 1 : 10001 + (i - 18),
      name,
      generation: generations[battle ? Math.floor(i / 4) : 2]!.name,
      move_damage_class: classes[i % 3]!.name,
      game_indices: generations.slice(0, 3).map((g, k) => ({ game_index: i * 3 + k, generation: g.name })),
      names: names(name),
      damage_relations: rel,
      // Generation 5, when every battle type exists: a past row names only types of its time.
      past_damage_relations: battle && i % 6 === 0 ? pastDamageRelations(rel, generations[4]!) : [],
    });
  });
  return types.slice(0, 18);
}

type DamageRelations = { double_damage_to: string[]; half_damage_to: string[]; no_damage_to: string[] };

/** Random relations to every battle type for a battle type; a special type has none. */
function damageRelations(r: Random, battle: boolean): DamageRelations {
  const rel: DamageRelations = { double_damage_to: [], half_damage_to: [], no_damage_to: [] };
  if (!battle) return rel;
  for (const other of TYPE_NAMES) {
    const x = r.next();
    if (x < 0.12) rel.double_damage_to.push(other);
    else if (x < 0.27) rel.half_damage_to.push(other);
    else if (x < 0.3) rel.no_damage_to.push(other);
  }
  return rel;
}

/** An earlier generation's relations: the current ones partly swapped, so the past differs. */
function pastDamageRelations(rel: DamageRelations, generation: Rec) {
  return [
    {
      generation: generation.name,
      damage_relations: { double_damage_to: rel.half_damage_to.slice(0, 2), half_damage_to: rel.double_damage_to.slice(0, 2) },
    },
  ];
}

function addStats(add: Add, classes: Rec[]): Rec[] {
  return STATS.map((name, i) =>
    add('stat', {
      id: i + 1,
      name,
      game_index: i,
      is_battle_only: i >= 6,
      move_damage_class: classes[i === 1 || i === 2 ? 1 : i === 3 || i === 4 ? 2 : 0]!.name,
      names: names(name),
    }),
  );
}

/** 25 natures; every sixth is neutral, raising and lowering no stat. */
function addNatures(add: Add, stats: Rec[], athlon: Rec[]): void {
  for (let i = 0; i < 25; i++) {
    const neutral = i % 6 === 0;
    const up = stats[1 + (i % 5)]!;
    const down = stats[1 + ((i + 2) % 5)]!;
    add('nature', {
      id: i + 1,
      name: `nature-${i + 1}`,
      names: names(`Nature ${i + 1}`),
      ...(neutral ? {} : { increased_stat: up.name, decreased_stat: down.name }),
      athlon_stat_changes: [
        { max_change: 1 + (i % 2), athlon_stat: athlon[i % 5]!.name },
        { max_change: -1 - (i % 2), athlon_stat: athlon[(i + 2) % 5]!.name },
      ],
    });
  }
}

function addCharacteristics(add: Add, stats: Rec[]): void {
  for (let i = 0; i < 30; i++) {
    add('characteristic', {
      id: i + 1,
      name: `characteristic-${i + 1}`,
      highest_stat: stats[i % 6]!.name,
      gene_modulo: Math.floor(i / 6),
      descriptions: LANGS.map((language) => ({ description: `Characteristic ${i + 1}`, language })),
    });
  }
}

function addMoves(add: Add, r: Random, count: number, { battleTypes, classes, stats }: Vocabulary): void {
  for (let i = 0; i < count; i++) {
    const type = r.pick(battleTypes).name;
    const damageClass = r.pick(classes).name;
    add('move', {
      id: i + 1,
      name: `move-${pad(i + 1)}`,
      names: names(`Move ${i + 1}`),
      type,
      damage_class: damageClass,
      stat_changes: i % 7 === 0 ? [{ change: r.pick([-2, -1, 1, 2]), stat: r.pick(stats).name }] : [],
      ...moveNumbers(i, damageClass === 'status'),
    });
  }
}

/** A move's power, accuracy and pp, from its index (not the seeded sequence, which they would shift). */
function moveNumbers(i: number, status: boolean): { power: number | null; accuracy: number | null; pp: number } {
  return {
    power: status ? null : 40 + (i % 17) * 5,
    accuracy: i % 6 === 0 ? null : 100 - (i % 4) * 5,
    pp: 5 + (i % 8) * 5,
  };
}

function addItems(add: Add, r: Random, count: number, stats: Rec[]): Rec[] {
  return Array.from({ length: count }, (_, i) =>
    add('item', {
      id: i + 1,
      name: `item-${pad(i + 1)}`,
      names: names(`Item ${i + 1}`),
      affected_stats: i % 25 === 0 ? [r.pick(stats).name] : [],
    }),
  );
}

/** `count` species and one creature for each, all of the species first. */
function addCreatures(add: Add, r: Random, count: number, battleTypes: Rec[]): Rec[] {
  const species = Array.from({ length: count }, (_, i) => {
    const rate = r.pick([-1, 0, 1, 2, 4, 4, 4, 6, 8]);
    return add('creature-species', {
      id: i + 1,
      name: `species-${pad(i + 1)}`,
      names: names(`Species ${i + 1}`),
      gender_rate: rate,
      has_gender_differences: rate >= 1 && rate <= 7 && i % 5 === 0,
      ...(i % 50 === 0 && rate >= 1 && rate <= 7 ? { gender_required_to_evolve: 'female' } : {}),
      // PokeAPI's proportions, about: one species in 20 a baby, in 25 legendary, in 40 mythical.
      is_baby: i % 20 === 7,
      is_legendary: i % 25 === 11,
      is_mythical: i % 40 === 23,
    });
  });
  return species.map((s, i) => {
    const t1 = r.pick(battleTypes).name;
    const t2 = r.next() < 0.45 ? r.pick(battleTypes).name : undefined;
    return add('creature', {
      id: i + 1,
      name: `creature-${pad(i + 1)}`,
      species: s.name,
      types: [{ slot: 1, type: t1 }, ...(t2 && t2 !== t1 ? [{ slot: 2, type: t2 }] : [])],
      stats: baseStats(i),
    });
  });
}

/** A creature's six base stats and effort points, from its index (not the seeded sequence, which they would shift). */
function baseStats(i: number): Array<{ base_stat: number; effort: number; stat: string }> {
  return STATS.slice(0, 6).map((stat, k) => ({
    base_stat: 20 + ((i * 31 + k * 17) % 131),
    effort: k === i % 6 ? 1 + (i % 3) : 0,
    stat,
  }));
}

/** The default form of every creature, then extra forms of random creatures, some of them megas. */
function addForms(add: Add, r: Random, count: number, creatures: Rec[], groups: Rec[], items: Rec[]): void {
  for (let i = 0; i < count; i++) {
    const isDefault = i < creatures.length;
    const creature = isDefault ? creatures[i]! : r.pick(creatures);
    const mega = !isDefault && i % 9 === 0;
    add('creature-form', {
      id: i + 1,
      name: isDefault ? creature.name : `${creature.name}-form-${i + 1}`,
      order: i + 1,
      form_order: isDefault ? 1 : 2,
      is_default: isDefault,
      is_battle_only: mega,
      is_mega: mega,
      form_name: isDefault ? '' : `form-${i + 1}`,
      creature: creature.name,
      version_group: r.pick(groups).name,
      form_names: isDefault ? [] : names(`Form ${i + 1}`),
      names: isDefault ? [] : names(`Creature form ${i + 1}`),
      trigger_conditions: mega ? [{ trigger: 'held-item', name: r.pick(items).name }] : [],
    });
  }
}

function addLocations(add: Add, count: number): Rec[] {
  return Array.from({ length: count }, (_, i) =>
    add('location', { id: i + 1, name: `location-${pad(i + 1)}`, names: names(`Location ${i + 1}`) }),
  );
}

/** `count` areas spread over the locations, each with its encounters grouped by creature. */
function addLocationAreas(add: Add, r: Random, count: number, locations: Rec[], creatures: Rec[], vocab: Vocabulary): void {
  const { methods } = vocab;
  for (let i = 0; i < count; i++) {
    const byCreature = areaEncounters(r, creatures, vocab);
    const areaVersions = [...new Set([...byCreature.values()].flat().map((d) => d.version as string))].sort();
    add('location-area', {
      id: i + 1,
      name: `area-${pad(i + 1)}`,
      game_index: i + 1,
      location: locations[i % locations.length]!.name,
      names: names(`Area ${i + 1}`),
      encounter_method_rates: [
        { encounter_method: methods[0]!.name, version_details: areaVersions.map((version) => ({ rate: r.int(1, 50), version })) },
      ],
      creature_encounters: [...byCreature].map(([creature, version_details]) => ({ creature, version_details })),
    });
  }
}

/** One area's encounter details, by creature name in the order each creature first appears. */
function areaEncounters(r: Random, creatures: Rec[], { versions, methods, conditions }: Vocabulary): Map<string, Rec[]> {
  // Heavy-tailed: most areas hold a few dozen encounter details, the largest about a thousand.
  const total = 5 + Math.floor(995 * r.next() ** 40);
  const byCreature = new Map<string, Rec[]>();
  for (let k = 0; k < total; k++) {
    const creature = r.pick(creatures).name;
    const min = r.int(2, 60);
    const details = {
      version: r.pick(versions).name,
      encounter_details: {
        min_level: min,
        max_level: min + r.int(0, 5),
        chance: r.int(1, 100),
        method: r.pick(methods).name,
        ...(r.next() < 0.2 ? { condition_values: r.pick(conditions).name } : {}),
      },
    };
    byCreature.set(creature, [...(byCreature.get(creature) ?? []), details as unknown as Rec]);
  }
  return byCreature;
}

/** The file that marks a folder as a world this generator wrote, which it may replace whole. */
export const WORLD_MARK = { name: '.crs-gen-world', text: 'a world npm run gen:world wrote; it replaces this folder whole\n' };

export function writeWorld(world: Map<string, Rec[]>, outDir: string): number {
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  // First, so that a folder half written (the process stopped) is still known as this tool's. Hidden,
  // so that the build passes over it.
  fs.writeFileSync(path.join(outDir, WORLD_MARK.name), WORLD_MARK.text);
  let files = 0;
  for (const [kind, records] of world) {
    fs.mkdirSync(path.join(outDir, kind), { recursive: true });
    for (const rec of records) {
      fs.writeFileSync(path.join(outDir, kind, `${rec.name}.yaml`), stringify(rec, { lineWidth: 0 }));
      files++;
    }
  }
  return files;
}

/** Past this a world does not fit in the memory node gives a process by default. */
export const MAX_SCALE = 100;

const HELP = `Usage: npm run gen:world -- --scale N --out DIR [--seed S]

Writes a synthetic world in the source format, with PokeAPI's proportions at scale 1 (N times its
size at scale N); the same scale and seed give the same files.

Options:
  --scale N    the world's size against PokeAPI's, above 0 and at most ${MAX_SCALE} (default 1)
  --out DIR    the folder to write: new, empty, or a world this command wrote, replaced whole
  --seed S     a whole number (default 1)
  -h, --help   show this help

Exit codes: 0 written, 2 wrong usage (a bad number, an --out that holds other files), 3 the
folder could not be written; 130/143 stopped by Ctrl-C/SIGTERM.`;

/** The command line, checked: a scale, a seed and a folder this tool may write; or a UsageError. */
export function worldOptions(values: { scale: string; seed: string; out?: string }): { scale: number; seed: number; out: string } {
  const scale = Number(values.scale);
  if (!(scale > 0 && scale <= MAX_SCALE))
    throw new UsageError(`--scale takes a number above 0 and at most ${MAX_SCALE}; got "${values.scale}"`);
  const seed = Number(values.seed);
  if (!Number.isSafeInteger(seed)) throw new UsageError(`--seed takes a whole number; got "${values.seed}"`);
  if (!values.out) throw new UsageError('--out is needed: the folder to write the world into');
  // Written over whole, so never the project's data, and never a folder of the user's.
  const out = folderToWrite('--out', values.out, { 'the data folder': defaultDataDir, 'the project folder': projectRoot });
  ownFolder('--out', out, WORLD_MARK.name, WORLD_MARK.text);
  return { scale, seed, out };
}

export function main(argv: string[]): number {
  const options = { scale: { type: 'string', default: '1' }, out: { type: 'string' }, seed: { type: 'string', default: '1' } } as const;
  const values = commandOptions(argv, options, HELP);
  if (typeof values === 'number') return values;
  try {
    const { scale, seed, out } = worldOptions(values);
    const started = performance.now();
    const world = generateWorld(scale, seed);
    const files = writeWorld(world, out);
    const counts = [...world].map(([k, v]) => `${k} ${v.length}`).join(', ');
    console.log(`wrote ${files} records to ${values.out} in ${((performance.now() - started) / 1000).toFixed(1)}s: ${counts}`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) console.error(err.message);
    else if ((err as NodeJS.ErrnoException).code) console.error(`could not write ${values.out}: ${(err as Error).message}`);
    else throw err;
    return err instanceof UsageError ? 2 : 3;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = main(process.argv.slice(2));

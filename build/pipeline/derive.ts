// Stage 5, derive: fill in what the API states twice but an author writes once. `derivations` is the whole
// list, by kind and field: those written here, and the inverse lists the schemas declare
// (`x-inverse`), so that a kind of one's own needs no code. A test holds it to the schemas'
// annotations. Each one names the fields of records it reads (`reads`): given only those fields of
// every record, it comes out the same — which is what lets a rebuild leave unchanged records unread
// (facts.ts), and a test holds each derivation to its word.
import { pointerOf, type Problems } from '../report/problems.ts';
import { projectSchemas, singleRef, type SchemaSet } from '../schemas/schemas.ts';
import { UsageError } from '../guard.mjs';
import { creatureSpriteTree, formSpriteTree, givenPlaces, typeSpriteTree } from '../site/sprites.ts';
import type { Data, Entry, Store } from '../store.ts';
import { at } from './parse.ts';

interface Context {
  store: Store;
  problems: Problems;
}

/** What a derivation across records is given: the records of `kind` whose fields it fills in (`derive`). */
interface Across extends Context {
  filled: (kind: string) => readonly Entry[];
}

interface Derivation {
  /** The fields it reads, by kind (ids and names aside). */
  reads: Record<string, string[]>;
  /** Computed across records, once per build. */
  run?: (ctx: Across) => void;
  /** Computed from the record alone (and only its full data): it changes only when the record does. */
  own?: (entry: Entry, ctx: Context) => void;
}

/**
 * For every record, the records of `kind` whose `pick(data)` refs point at it. Lists made by going
 * through `store.valid` are in id order, as it is, here and below.
 */
function inverse(store: Store, kind: string, pick: (data: Data) => unknown[]): Map<Entry, Entry[]> {
  const out = new Map<Entry, Entry[]>();
  for (const entry of store.valid(kind)) {
    for (const target of new Set(pick(entry.data).map((ref) => store.target(ref)))) {
      if (target) push(out, target, entry);
    }
  }
  return out;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** What records claim that only one may, and how each claim reads. */
interface OneClaim {
  /** The field of a claimant that makes its claim. */
  field: (claimant: Entry) => string;
  /** The problem's words, given the claimed record and the claimants' names. */
  message: (target: Entry, names: string) => string;
  hint: string;
}

/**
 * Records that each claim what only one may (a species' default creature, a creature's default
 * form): each claimant of a record claimed twice or more is a problem at its field, naming
 * the others, in every claimant's file (a pull request's report shows only the files it changed).
 * PokeAPI's records have one each, and a client takes whichever it finds first.
 */
function claimedOnce(problems: Problems, claims: ReadonlyMap<Entry, readonly Entry[]>, claim: OneClaim): void {
  for (const [target, claimants] of claims) {
    if (claimants.length < 2) continue;
    const names = claimants.map((c) => c.name).join(' and ');
    for (const claimant of claimants) {
      const pointer = pointerOf([claim.field(claimant)]);
      const message = claim.message(target, names);
      problems.add({ ...at(claimant.file, pointer), kind: claimant.kind, record: claimant.name, pointer, message, hint: claim.hint });
    }
  }
}

/**
 * `target.field` lists, as NamedRefs, the records of `from` whose `via` points at it (`x-inverse`):
 * a top-level field, or a dotted path through its lists (`moves.move`).
 */
function simpleInverse(kind: string, field: string, from: string, via: string, one: boolean): Derivation {
  const steps = via.split('.');
  return {
    reads: { [from]: [steps[0]!] },
    run: ({ store, filled }) => {
      const map = inverse(store, from, (d) => along(d, steps));
      for (const entry of filled(kind)) {
        const refs = (map.get(entry) ?? []).map((e) => store.ref(e));
        // A field that holds one reference holds the first record by id pointing at it, or null: a
        // region's main generation is the first whose main region it is, the one that brought it in.
        entry.data[field] = one ? (refs[0] ?? null) : refs;
      }
    },
  };
}

/**
 * `target.field` lists the items of `from`'s lists at `via`'s path whose last field points at it,
 * each without that field and with the record holding it under `as` (`x-inverse` with `as`): a
 * creature's `abilities` items give each ability's `creature` list, with their slots.
 */
function itemInverse(kind: string, field: string, from: string, via: string, as: string): Derivation {
  const steps = via.split('.');
  const key = steps.at(-1)!;
  return {
    reads: { [from]: [steps[0]!] },
    run: ({ store, filled }) => {
      const items = new Map<Entry, Data[]>();
      for (const source of store.valid(from)) {
        for (const item of along(source.data, steps.slice(0, -1)) as Data[]) {
          const target = item && typeof item === 'object' ? store.target(item[key]) : undefined;
          if (!target) continue;
          const { [key]: _pointer, ...rest } = item;
          push(items, target, { ...structuredClone(rest), [as]: store.ref(source) });
        }
      }
      for (const entry of filled(kind)) entry.data[field] = items.get(entry) ?? [];
    },
  };
}

/** The values a path of fields reaches in a record, each list on the way gone through item by item. */
function along(value: unknown, steps: readonly string[]): unknown[] {
  if (Array.isArray(value)) return value.flatMap((item) => along(item, steps));
  if (steps.length === 0) return [value];
  if (!value || typeof value !== 'object') return [];
  return along((value as Data)[steps[0]!], steps.slice(1));
}

/**
 * `target.field` is {increase, decrease}: the records of `from` whose `list` items point at it by
 * `via`, each with the item's `amount` — as `{[amount], [from]: NamedRef}`, ordered by id.
 */
function changesOf(kind: string, field: string, from: string, list: string, via: string, amount: string): Derivation {
  return {
    reads: { [from]: [list] },
    run: ({ store, filled }) => {
      const changes = new Map<Entry, Array<{ by: number; source: Entry }>>();
      for (const source of store.valid(from)) {
        for (const item of source.data[list] ?? []) {
          const target = store.target(item[via]);
          if (target) push(changes, target, { by: item[amount], source });
        }
      }
      for (const target of filled(kind)) {
        const all = changes.get(target) ?? [];
        const shape = (some: typeof all) => some.map((c) => ({ [amount]: c.by, [from]: store.ref(c.source) }));
        target.data[field] = { decrease: shape(all.filter((c) => c.by < 0)), increase: shape(all.filter((c) => c.by > 0)) };
      }
    },
  };
}

// --- types: the damage chart -------------------------------------------------------------------

/** Each pair of a type's damage relations, and the factor both stand for. */
export const RELATIONS = [
  ['no_damage_to', 'no_damage_from', 0],
  ['half_damage_to', 'half_damage_from', 0.5],
  ['double_damage_to', 'double_damage_from', 2],
] as const;
/**
 * Which species each gender lists, by their gender_rate: the chance of being female in eighths,
 * -1 for genderless. Female 1–8, male 0–7.
 */
export const GENDER_RULE: Record<string, (rate: number) => boolean> = {
  female: (r) => r >= 1,
  male: (r) => r >= 0 && r <= 7,
  genderless: (r) => r === -1,
};

const WORDS: Record<number, string> = { 0: 'no damage', 0.5: 'half damage', 2: 'double damage' };

type Row = Map<Entry, number>; // defender → multiplier (absent is normal damage)

interface Fact {
  factor: number;
  entry: Entry;
  pointer: string;
}

/**
 * The chart as written: A `double_damage_to` B and B `double_damage_from` A are one fact. Either
 * side may state it; stating it on both sides with different factors is a problem.
 */
function currentChart({ store, problems }: Context): Map<Entry, Row> {
  const facts = new Map<string, Fact>();
  const chart = new Map<Entry, Row>(store.valid('type').map((t) => [t, new Map()]));
  for (const type of store.valid('type')) {
    const written = type.data.damage_relations ?? {};
    for (const [to, from, factor] of RELATIONS) {
      for (const field of [to, from]) {
        (written[field] ?? []).forEach((ref: unknown, i: number) => {
          const other = store.target(ref);
          if (!other || !chart.has(other)) return;
          const [attacker, defender] = field === to ? [type, other] : [other, type];
          const key = `${attacker.id}>${defender.id}`;
          const pointer = pointerOf(['damage_relations', field, i]);
          const seen = facts.get(key);
          if (seen && seen.factor !== factor) {
            problems.add({
              ...at(type.file, pointer),
              kind: 'type',
              record: type.name,
              pointer,
              message: `${attacker.name} → ${defender.name} is stated here as ${WORDS[factor]}, but ${seen.entry.file.rel} (${seen.pointer}) states ${WORDS[seen.factor]}`,
              hint: 'state each pair once, on either type; the other side is derived',
            });
            return;
          }
          facts.set(key, { factor, entry: type, pointer });
          chart.get(attacker)!.set(defender, factor);
        });
      }
    }
  }
  return chart;
}

/** A type's six lists, each of types in the order of the types they are among. */
type Lists = Record<string, Entry[]>;

/** Which pair of lists a factor puts a type in: the attacker's `to` and the defender's `from`. */
const LISTS_OF = new Map<number, { to: string; from: string }>(RELATIONS.map(([to, from, factor]) => [factor, { to, from }]));

/**
 * Each of `types`' six lists by the attacking rows `rowOf` gives, among `types` (the types that
 * exist then): one pass over the rows, where asking every type of every other took types² a type.
 */
function relationsAmong(types: Entry[], rowOf: (attacker: Entry) => Row): Map<Entry, Lists> {
  const order = new Map(types.map((t, i) => [t, i]));
  const lists = new Map<Entry, Lists>(
    types.map((t) => [
      t,
      Object.fromEntries(
        RELATIONS.flatMap(([to, from]) => [
          [to, []],
          [from, []],
        ]),
      ),
    ]),
  );
  // Attackers are taken in order, so each `from` list is filled in order; a row's defenders are not.
  for (const attacker of types) {
    for (const [defender, factor] of rowOf(attacker)) {
      const pair = LISTS_OF.get(factor);
      if (!pair || !order.has(defender)) continue;
      lists.get(attacker)![pair.to]!.push(defender);
      lists.get(defender)![pair.from]!.push(attacker);
    }
  }
  const byOrder = (a: Entry, b: Entry) => order.get(a)! - order.get(b)!;
  for (const own of lists.values()) for (const [to] of RELATIONS) own[to]!.sort(byOrder);
  return lists;
}

/** Lists as published: each type a reference. */
const refsOf = (lists: Lists, store: Store): Data =>
  Object.fromEntries(Object.entries(lists).map(([list, types]) => [list, types.map((t) => store.ref(t))]));

/** Whether `then` holds what `later` does among the types that existed then (`exists`): a type that came later is no change. */
const sameAmong = (then: Lists, later: Lists, exists: ReadonlySet<Entry>) =>
  Object.entries(then).every(([list, types]) => {
    const kept = later[list]!.filter((t) => exists.has(t));
    return kept.length === types.length && kept.every((t, i) => t === types[i]);
  });

interface PastRow {
  generation: Entry;
  row: Row;
}

const byGeneration = (a: PastRow, b: PastRow) => a.generation.id - b.generation.id;

/**
 * Each type's past rows as written, oldest first: a row holds the type's attacking relations up to
 * and including its generation. A row before the type's own generation, or naming a type that
 * came later, is a problem: neither existed then.
 */
function writtenPast({ store, problems }: Context, since: (type: Entry) => number): Map<Entry, PastRow[]> {
  const past = new Map<Entry, PastRow[]>();
  for (const type of store.valid('type')) {
    const list: PastRow[] = [];
    (type.data.past_damage_relations ?? []).forEach((item: Data, i: number) => {
      const generation = store.target(item.generation);
      if (!generation) return;
      const problem = (pointer: string, message: string) =>
        problems.add({ ...at(type.file, pointer), kind: 'type', record: type.name, pointer, message });
      if (generation.id < since(type)) {
        problem(
          pointerOf(['past_damage_relations', i, 'generation']),
          `${type.name} has no past relations in ${generation.name}: it comes later`,
        );
        return;
      }
      const row: Row = new Map();
      for (const [to, , factor] of RELATIONS) {
        (item.damage_relations?.[to] ?? []).forEach((ref: unknown, j: number) => {
          const d = store.target(ref);
          if (!d) return;
          if (since(d) > generation.id)
            problem(
              pointerOf(['past_damage_relations', i, 'damage_relations', to, j]),
              `${d.name} did not exist yet in ${generation.name}`,
            );
          else row.set(d, factor);
        });
      }
      list.push({ generation, row });
    });
    past.set(type, list.sort(byGeneration));
  }
  return past;
}

function damageRelations(ctx: Context): void {
  const { store } = ctx;
  const types = store.valid('type');
  const chart = currentChart(ctx);
  const current = (t: Entry) => chart.get(t)!;
  // The id of the generation that introduced a type (0, before every other, when it names none).
  const since = (t: Entry) => store.target(t.data.generation)?.id ?? 0;
  const past = writtenPast(ctx, since);
  const rowAt = (generation: Entry) => (attacker: Entry) =>
    past.get(attacker)!.find((p) => p.generation.id >= generation.id)?.row ?? current(attacker);

  // Every generation some type's row changed after, latest first.
  const eras = [...new Set([...past.values()].flatMap((rows) => rows.map((p) => p.generation)))].sort((a, b) => b.id - a.id);
  const now = relationsAmong(types, current);
  const later = new Map(now);
  const entries = new Map<Entry, Data[]>(types.map((t) => [t, []]));
  for (const generation of eras) {
    // No past entry before a type's own generation: each era lists the types that existed then.
    const existing = types.filter((t) => since(t) <= generation.id);
    const exists = new Set(existing);
    const then = relationsAmong(existing, rowAt(generation));
    for (const type of existing) {
      const lists = then.get(type)!;
      if (!sameAmong(lists, later.get(type)!, exists))
        entries.get(type)!.push({ generation: store.ref(generation), damage_relations: refsOf(lists, store) });
      later.set(type, lists);
    }
  }
  for (const type of types) {
    type.data.damage_relations = refsOf(now.get(type)!, store);
    type.data.past_damage_relations = entries.get(type)!.reverse();
  }
}

const chartReads = { type: ['damage_relations', 'past_damage_relations', 'generation'] };

// --- creatures ---------------------------------------------------------------------------------

/** As the author says; left out, the creature whose id is its species' id is the default, as PokeAPI numbers them. */
function isDefaultCreature(store: Store, creature: Entry): boolean {
  const written = creature.data.is_default;
  return typeof written === 'boolean' ? written : store.target(creature.data.species)?.id === creature.id;
}

// --- evolution chains --------------------------------------------------------------------------

/** What a chain is made of: what each species says of its own evolution. */
const chainReads = {
  'creature-species': ['evolves_from_species', 'evolution_chain', 'is_baby', 'evolution_details', 'gender_required_to_evolve'],
};

/** A problem of a species' evolution, at the field that states it. */
function speciesProblem(problems: Problems, species: Entry, field: string, message: string, hint?: string): void {
  const pointer = pointerOf([field]);
  problems.add({
    ...at(species.file, pointer),
    kind: 'creature-species',
    record: species.name,
    pointer,
    message,
    ...(hint ? { hint } : {}),
  });
}

/**
 * The species each species evolves from, where it is in the same chain; a species evolving from
 * one in another chain (or in none) is a problem (a stray, in no link of its chain), and so is a
 * loop, cut at its first species by id.
 */
function parentsInChain({ store, problems }: Context): { parents: Map<Entry, Entry>; strays: Set<Entry> } {
  const parents = new Map<Entry, Entry>();
  const strays = new Set<Entry>();
  const species = store.valid('creature-species');
  for (const one of species) {
    const parent = store.target(one.data.evolves_from_species);
    if (!parent) {
      if ((one.data.evolution_details ?? []).length > 0)
        speciesProblem(problems, one, 'evolution_details', `${one.name} states how it evolves, but evolves from no species`);
      continue;
    }
    const chain = store.target(one.data.evolution_chain);
    const theirs = store.target(parent.data.evolution_chain);
    if (chain === theirs) {
      parents.set(one, parent);
      continue;
    }
    strays.add(one);
    speciesProblem(
      problems,
      one,
      'evolves_from_species',
      `${one.name} evolves from ${parent.name}, which is in ${chainWords(theirs)}, where ${one.name} is in ${chainWords(chain)}`,
      'a species is in the evolution chain of the species it evolves from',
    );
  }
  for (const loop of loops(species, parents)) {
    const first = loop.reduce((a, b) => (b.id < a.id ? b : a));
    const path = [first, ...loop.slice(loop.indexOf(first) + 1), ...loop.slice(0, loop.indexOf(first)), first];
    const words = path.slice(1).map((e) => e.name);
    speciesProblem(
      problems,
      first,
      'evolves_from_species',
      `${first.name} evolves from ${words.join(', which evolves from ')}: an evolution cannot loop`,
    );
    parents.delete(first);
  }
  for (const one of tooDeep(species, parents)) {
    speciesProblem(
      problems,
      one,
      'evolves_from_species',
      `${one.name} is stage ${MAX_STAGES + 1} of its evolution: a chain has at most ${MAX_STAGES} stages`,
      "PokeAPI's chains have at most three",
    );
    parents.delete(one);
    strays.add(one);
  }
  return { parents, strays };
}

/**
 * Stages an evolution chain may have. Its tree is nested a level a stage, and what reads it walks it
 * level by level: a chain of 400 species ran the response validator out of stack.
 */
const MAX_STAGES = 64;

/** The species one stage past the most a chain may have (`parents` holds no loop), by id. */
function tooDeep(species: readonly Entry[], parents: ReadonlyMap<Entry, Entry>): Entry[] {
  const stage = new Map<Entry, number>();
  const stageOf = (one: Entry): number => {
    const path: Entry[] = [];
    let at: Entry | undefined = one;
    while (at && !stage.has(at)) {
      path.push(at);
      at = parents.get(at);
    }
    let n = at ? stage.get(at)! : 0;
    for (const step of path.reverse()) stage.set(step, ++n);
    return stage.get(one)!;
  };
  return species.filter((one) => stageOf(one) === MAX_STAGES + 1);
}

const chainWords = (chain: Entry | undefined) => (chain ? `evolution chain ${chain.id}` : 'no evolution chain');

/** The loops of `parents`, each as its species in the order they evolve from one another. */
function loops(species: readonly Entry[], parents: ReadonlyMap<Entry, Entry>): Entry[][] {
  const done = new Set<Entry>();
  const out: Entry[][] = [];
  for (const start of species) {
    const path: Entry[] = [];
    let at: Entry | undefined = start;
    while (at && !done.has(at) && !path.includes(at)) {
      path.push(at);
      at = parents.get(at);
    }
    if (at && path.includes(at)) out.push(path.slice(path.indexOf(at)));
    for (const one of path) done.add(one);
  }
  return out;
}

/** Each way a species evolves as published: as its author wrote it, with the gender it needs, by id. */
function detailsOf(store: Store, species: Entry): Data[] {
  const gender = store.target(species.data.gender_required_to_evolve);
  return (species.data.evolution_details ?? []).map((detail: Data) => ({ ...structuredClone(detail), gender: gender?.id ?? null }));
}

/** A species' link of its chain: how it evolves, and the links of the species evolving from it, by id. */
function linkOf(store: Store, species: Entry, children: ReadonlyMap<Entry, Entry[]>): Data {
  return {
    species: store.ref(species),
    is_baby: species.data.is_baby === true,
    evolution_details: detailsOf(store, species),
    evolves_to: (children.get(species) ?? []).map((child) => linkOf(store, child, children)),
  };
}

/**
 * Each chain's tree: its first species (the one of its species evolving from none in it), and link
 * by link the species evolving from each, by id. A chain no species names is a problem.
 */
function evolutionChains(ctx: Across): void {
  const { store, problems, filled } = ctx;
  const { parents, strays } = parentsInChain(ctx);
  const children = new Map<Entry, Entry[]>();
  for (const species of store.valid('creature-species')) {
    const parent = parents.get(species);
    if (parent) push(children, parent, species);
  }
  const members = inverse(store, 'creature-species', (d) => [d.evolution_chain]);
  for (const chain of filled('evolution-chain')) {
    const species = members.get(chain) ?? [];
    const firsts = species.filter((one) => !parents.has(one) && !strays.has(one));
    if (species.length === 0) {
      const pointer = pointerOf(['id']);
      problems.add({
        ...at(chain.file, pointer),
        kind: 'evolution-chain',
        record: chain.name,
        pointer,
        message: `no species is in evolution chain ${chain.id}`,
        hint: "name it in a species' evolution_chain",
      });
      continue;
    }
    for (const other of firsts.slice(1))
      speciesProblem(
        problems,
        other,
        'evolution_chain',
        `${other.name} and ${firsts[0]!.name} both begin evolution chain ${chain.id}: it has one first species`,
        'give the one that evolves its evolves_from_species, or a chain of its own',
      );
    chain.data.chain = linkOf(store, firsts[0] ?? species[0]!, children);
  }
}

// --- berries and contests ----------------------------------------------------------------------

/**
 * A flavor's berries: those that taste of it at all (a potency above zero), each with its potency,
 * by berry id. A berry states every flavor's potency, zero included, as PokeAPI's do; its flavors
 * list only the berries with some.
 */
function flavorBerries({ store, filled }: Across): void {
  const berries = new Map<Entry, Data[]>();
  for (const berry of store.valid('berry')) {
    for (const { potency, flavor } of berry.data.flavors ?? []) {
      const target = store.target(flavor);
      if (target && potency > 0) push(berries, target, { potency, berry: store.ref(berry) });
    }
  }
  for (const flavor of filled('berry-flavor')) flavor.data.berries = berries.get(flavor) ?? [];
}

/** The two sets of contest combos a move has: in contests and in super contests. */
const COMBO_SETS = ['normal', 'super'] as const;

/**
 * A move's contest combos. The author writes, per set, the moves that follow it in a combo
 * (`use_before`); the moves it follows (`use_after`) are the moves naming it so, by id. A side with
 * none is null, and so is the whole of a move with no combo in either set, as PokeAPI gives them.
 */
function contestCombos({ store, filled }: Across): void {
  const combos = COMBO_SETS.map((set) => ({ set, before: new Map<Entry, Entry[]>(), after: new Map<Entry, Entry[]>() }));
  for (const move of store.valid('move')) {
    for (const { set, before, after } of combos) {
      for (const next of comboTargets(store, move, set)) {
        push(before, move, next);
        push(after, next, move);
      }
    }
  }
  const refs = (moves: Entry[] | undefined) => (moves ? moves.map((m) => store.ref(m)) : null);
  for (const move of filled('move')) {
    const sides = combos.map(
      ({ set, before, after }) => [set, { use_before: refs(before.get(move)), use_after: refs(after.get(move)) }] as const,
    );
    const none = sides.every(([, side]) => side.use_before === null && side.use_after === null);
    move.data.contest_combos = none ? null : Object.fromEntries(sides);
  }
}

/** The moves a move names as following it in a combo of `set`, once each, as written. */
function comboTargets(store: Store, move: Entry, set: string): Entry[] {
  const named = (move.data.contest_combos?.[set]?.use_before ?? []).map((ref: unknown) => store.target(ref));
  return [...new Set<Entry | undefined>(named)].filter((entry): entry is Entry => entry !== undefined);
}

// --- machines ----------------------------------------------------------------------------------

/**
 * A move's or an item's `machines`: each machine whose `move` (or `item`) names it, with the
 * machine's version group, by machine id. The machine states the fact once; the move and the item
 * repeat it, as PokeAPI's do.
 */
function machinesOf(kind: 'move' | 'item'): Derivation {
  return {
    reads: { machine: [kind, 'version_group'] },
    run: ({ store, filled }) => {
      const details = new Map<Entry, Data[]>();
      for (const machine of store.valid('machine')) {
        const target = store.target(machine.data[kind]);
        const group = store.target(machine.data.version_group);
        if (target && group) push(details, target, { machine: store.ref(machine), version_group: store.ref(group) });
      }
      for (const entry of filled(kind)) entry.data.machines = details.get(entry) ?? [];
    },
  };
}

// --- a creature's encounters ------------------------------------------------------------------

/**
 * Where and how a creature is met, in PokeAPI's shape of its encounters (`/creature/<id>/encounters`):
 * per area that lists it, by area id, its versions in the order the area gives them, each with all the
 * ways it is met there (each its own version detail in the area), their chances summed as
 * `max_chance`, and every condition value an author wrote (the area publishes the first alone).
 */
function encountersByCreature(store: Store): Map<Entry, Data[]> {
  const out = new Map<Entry, Data[]>();
  for (const area of store.valid('location-area')) {
    for (const encounter of area.data.creature_encounters ?? []) {
      const creature = store.target(encounter.creature);
      if (creature) push(out, creature, { location_area: store.ref(area), version_details: byVersion(encounter.version_details ?? []) });
    }
  }
  return out;
}

function byVersion(details: Data[]): Data[] {
  const versions = new Map<string, Data>();
  for (const { version, encounter_details: one } of details) {
    const key = version?.url ?? String(version);
    // Keys in the order they are published: serialise.ts copies an object whose keys are not.
    const at = versions.get(key) ?? { encounter_details: [] as Data[], max_chance: 0, version };
    versions.set(key, at);
    if (!one) continue;
    const { chance, condition_values: values, creature_details: creature = null, ...rest } = one;
    at.encounter_details.push({
      chance,
      condition_values: values === undefined ? [] : [values].flat(),
      creature_details: creature,
      ...rest,
    });
    at.max_chance += one.chance ?? 0;
  }
  return [...versions.values()];
}

// --- the derivations, by kind and field --------------------------------------------------------

/** The derivations written here: those that are more than a list of the records pointing at one. */
const written: Record<string, Derivation> = {
  'move.machines': machinesOf('move'),
  'item.machines': machinesOf('item'),
  'type.damage_relations': { reads: chartReads, run: damageRelations },
  'type.past_damage_relations': { reads: chartReads }, // computed with damage_relations: one chart, one pass
  'type.creature': {
    reads: { creature: ['types'] },
    run: ({ store, filled }) => {
      const slots = new Map<Entry, Array<{ slot: number; creature: Entry }>>();
      for (const creature of store.valid('creature')) {
        for (const t of creature.data.types ?? []) {
          const type = store.target(t.type);
          if (type) push(slots, type, { slot: t.slot, creature });
        }
      }
      for (const type of filled('type')) {
        type.data.creature = (slots.get(type) ?? []).map(({ slot, creature }) => ({ slot, creature: store.ref(creature) }));
      }
    },
  },
  'type.sprites': {
    reads: { type: ['generation', 'sprites'], 'version-group': ['generation'] },
    run: ({ store, filled }) => {
      for (const type of filled('type')) type.data.sprites = typeSpriteTree(store, type);
    },
  },
  'creature-form.types': {
    reads: { 'creature-form': ['creature', 'types'], creature: ['types'] },
    run: ({ store, filled }) => {
      for (const form of filled('creature-form')) {
        if (form.data.types !== undefined) continue;
        const creature = store.target(form.data.creature);
        form.data.types = structuredClone(creature?.data.types ?? []);
      }
    },
  },
  'creature-form.sprites': {
    reads: {
      'creature-form': ['creature', 'sprites'],
      creature: ['species'],
      'creature-species': ['gender_rate', 'has_gender_differences'],
    },
    run: ({ store, filled }) => {
      for (const form of filled('creature-form')) form.data.sprites = formSpriteTree(store, form);
    },
  },
  'item.sprites': {
    reads: {},
    own: (item, { store }) => void (item.data.sprites = givenPlaces(store, item, item.data.sprites, ['default'])),
  },
  'creature.cries': {
    reads: {},
    // A creature without a cry has none: PokeAPI's latest cry is never null.
    own: (creature, { store }) => {
      if (creature.data.cries !== undefined) creature.data.cries = givenPlaces(store, creature, creature.data.cries, ['latest', 'legacy']);
    },
  },
  'location-area.max_chance': {
    reads: {},
    own: (area, { problems }) => {
      (area.data.creature_encounters ?? []).forEach((enc: Data, i: number) => {
        // PokeAPI's max_chance is the total chance of meeting the creature in that version: the sum
        // over every way it is met there (each its own version detail here), not the largest.
        const total = new Map<string, number>();
        for (const vd of enc.version_details ?? []) {
          const chance = vd.encounter_details?.chance ?? 0;
          total.set(vd.version?.url, (total.get(vd.version?.url) ?? 0) + chance);
        }
        (enc.version_details ?? []).forEach((vd: Data, j: number) => {
          // Set between the two fields it sorts between, where serialise.ts would otherwise copy the object.
          const { encounter_details: d, max_chance: _given, version, ...rest } = vd;
          enc.version_details[j] = { encounter_details: d, max_chance: total.get(version?.url) ?? 0, version, ...rest };
          if (d && d.min_level > d.max_level) {
            const pointer = pointerOf(['creature_encounters', i, 'version_details', j, 'encounter_details', 'min_level']);
            problems.add({
              ...at(area.file, pointer),
              kind: 'location-area',
              record: area.name,
              pointer,
              message: `min_level ${d.min_level} is above max_level ${d.max_level}`,
            });
          }
        });
      });
    },
  },
  'athlon-stat.affecting_natures': changesOf(
    'athlon-stat',
    'affecting_natures',
    'nature',
    'athlon_stat_changes',
    'athlon_stat',
    'max_change',
  ),
  'gender.creature_species_details': {
    reads: { 'creature-species': ['gender_rate'] },
    run: ({ store, filled }) => {
      for (const gender of filled('gender')) {
        const test = GENDER_RULE[gender.name] ?? (() => false);
        gender.data.creature_species_details = store
          .valid('creature-species')
          .filter((s) => typeof s.data.gender_rate === 'number' && test(s.data.gender_rate))
          .map((s) => ({ rate: s.data.gender_rate, creature_species: store.ref(s) }));
      }
    },
  },
  'stat.affecting_moves': changesOf('stat', 'affecting_moves', 'move', 'stat_changes', 'stat', 'change'),
  'stat.affecting_natures': {
    reads: { nature: ['increased_stat', 'decreased_stat'] },
    run: ({ store, filled }) => {
      // A nature that raises and lowers the same stat changes nothing, so it affects no stat.
      const neutral = (d: Data) => d.increased_stat?.url === d.decreased_stat?.url;
      const up = inverse(store, 'nature', (d) => (neutral(d) ? [] : [d.increased_stat]));
      const down = inverse(store, 'nature', (d) => (neutral(d) ? [] : [d.decreased_stat]));
      for (const stat of filled('stat')) {
        stat.data.affecting_natures = {
          increase: (up.get(stat) ?? []).map((e) => store.ref(e)),
          decrease: (down.get(stat) ?? []).map((e) => store.ref(e)),
        };
      }
    },
  },
  'berry-flavor.berries': { reads: { berry: ['flavors'] }, run: flavorBerries },
  'move.contest_combos': { reads: { move: ['contest_combos'] }, run: contestCombos },
  'characteristic.possible_values': {
    reads: { characteristic: ['gene_modulo'] },
    run: ({ filled }) => {
      // The highest stat's individual values (0 to 31) that show the characteristic: those whose remainder by 5 is its gene modulo.
      for (const c of filled('characteristic'))
        c.data.possible_values = Array.from({ length: 7 }, (_, k) => (c.data.gene_modulo as number) + 5 * k).filter((v) => v <= 31);
    },
  },
  'creature.is_default': {
    reads: { creature: ['species', 'is_default'] },
    run: ({ store, problems, filled }) => {
      // Checked before it is filled in, while what each creature wrote is there to point at.
      const bySpecies = inverse(store, 'creature', (d) => [d.species]);
      const defaults = new Map(
        [...bySpecies].map(([species, creatures]) => [species, creatures.filter((c) => isDefaultCreature(store, c))]),
      );
      claimedOnce(problems, defaults, {
        field: (creature) => (typeof creature.data.is_default === 'boolean' ? 'is_default' : 'id'),
        message: (species, names) => `${names} are each the default creature of ${species.name}, where a species has one`,
        hint: "set is_default: false on all but one (left out, the creature whose id is its species' id is the default)",
      });
      for (const creature of filled('creature')) creature.data.is_default = isDefaultCreature(store, creature);
    },
  },
  'creature.sprites': {
    reads: {
      'creature-form': ['creature', 'is_default', 'version_group', 'sprites'],
      'version-group': ['generation'],
      creature: ['species', 'sprites'],
      'creature-species': ['gender_rate', 'has_gender_differences'],
    },
    run: ({ store, problems, filled }) => {
      // A creature's sprites are its default form's, where it gives none: a creature has at most one.
      const defaults = inverse(store, 'creature-form', (d) => (d.is_default === true ? [d.creature] : []));
      claimedOnce(problems, defaults, {
        field: () => 'is_default',
        message: (creature, names) => `${names} are each the default form of ${creature.name}, where a creature has one`,
        hint: 'set is_default: false on all but one',
      });
      for (const creature of filled('creature')) creature.data.sprites = creatureSpriteTree(store, creature, defaults.get(creature)?.[0]);
    },
  },
  'evolution-chain.chain': { reads: chainReads, run: evolutionChains },
  'evolution-chain.gender': { reads: chainReads }, // each evolution detail's gender, filled in with its chain
  'creature.location_area_encounters': {
    reads: { 'location-area': ['creature_encounters'] },
    run: ({ store, filled }) => {
      // Held here as the list itself: it is published at its own url, which the record gives (render.ts).
      const met = encountersByCreature(store);
      for (const creature of filled('creature')) creature.data.location_area_encounters = met.get(creature) ?? [];
    },
  },
  'creature-species.varieties': {
    reads: { creature: ['species', 'is_default'] },
    run: ({ store, filled }) => {
      const map = inverse(store, 'creature', (d) => [d.species]);
      for (const species of filled('creature-species')) {
        species.data.varieties = (map.get(species) ?? []).map((c) => ({ is_default: isDefaultCreature(store, c), creature: store.ref(c) }));
      }
    },
  },
};

/** The inverse lists the schemas declare, by kind and field; a list both declared and written here is refused. */
function declared(schemas: SchemaSet): Record<string, Derivation> {
  const out: Record<string, Derivation> = {};
  for (const info of schemas.kinds.values()) {
    for (const { field, from, via, as } of info.inverses) {
      const key = `${info.kind}.${field}`;
      if (written[key])
        throw new UsageError(`schemas/${info.kind}.json: ${field} is derived by the build's own code; it takes no x-inverse`);
      const one = singleRef(info.response.properties?.[field]) !== undefined;
      out[key] = as === undefined ? simpleInverse(info.kind, field, from, via, one) : itemInverse(info.kind, field, from, via, as);
    }
  }
  return out;
}

/** Every derivation, by kind and field: the project's schemas are read once per process. */
export const derivations: Record<string, Derivation> = { ...written, ...declared(projectSchemas()) };

const kindOf = (key: string) => key.slice(0, key.indexOf('.'));

/**
 * Runs the derivations across records: all of them, or, given `kinds`, those that fill in fields of
 * those kinds (each reads the facts of every record, so it can run alone). Given `only`, the fields
 * are filled in for the records it picks alone: a rebuild's records read again, when every record
 * keeps its facts (facts.ts) and every other record's fields are as they were. A type's damage
 * relations are one chart, made for every type. A record's own derivations run when it is
 * published, whole (`deriveOwn`).
 */
export function derive(store: Store, problems: Problems, kinds?: ReadonlySet<string>, only?: (entry: Entry) => boolean): void {
  const filled = only ? (kind: string) => store.valid(kind).filter(only) : (kind: string) => store.valid(kind);
  const ctx = { store, problems, filled };
  for (const [key, derivation] of Object.entries(derivations)) if (!kinds || kinds.has(kindOf(key))) derivation.run?.(ctx);
}

/**
 * The kinds whose records may come out differently when only the records of `changed` kinds were
 * read again or removed: those kinds, and every kind a derivation reading one of them fills in.
 * The derived fields of every other kind are as the last build left them.
 */
export function affectedKinds(changed: ReadonlySet<string>): Set<string> {
  const out = new Set(changed);
  for (const [key, d] of Object.entries(derivations)) if (!d.own && Object.keys(d.reads).some((k) => changed.has(k))) out.add(kindOf(key));
  return out;
}

/**
 * What deriving the fields of `kinds` needs resolved: each of `kinds` whole (undefined), and every
 * other kind whose facts a derivation filling in one of them reads, with the fields it reads.
 */
export function readBy(kinds: ReadonlySet<string>): Map<string, Set<string> | undefined> {
  const out = new Map<string, Set<string> | undefined>([...kinds].map((kind) => [kind, undefined]));
  for (const [key, d] of Object.entries(derivations)) {
    if (!d.run || !kinds.has(kindOf(key))) continue;
    for (const [kind, fields] of Object.entries(d.reads)) {
      if (kinds.has(kind)) continue;
      const read = out.get(kind) ?? new Set<string>();
      for (const field of fields) read.add(field);
      out.set(kind, read);
    }
  }
  return out;
}

/** The derivations computed from `entry` alone, for a record read in full after the others were derived. */
export function deriveOwn(entry: Entry, problems: Problems, store: Store): void {
  const own = ownDerivations.get(entry.kind);
  if (own) for (const run of own) run(entry, { store, problems });
}

/** Each kind's derivations from a record alone, in the order `derivations` lists them. */
const ownDerivations = new Map<string, Array<NonNullable<Derivation['own']>>>();
for (const [key, derivation] of Object.entries(derivations)) {
  if (derivation.own) push(ownDerivations, kindOf(key), derivation.own);
}

/** The fields of `kind` that some derivation reads: what a record's facts hold. */
export function factFields(kind: string): string[] {
  return [...new Set(Object.values(derivations).flatMap((d) => d.reads[kind] ?? []))].sort();
}

/** The fields of `kind` derived across records (not from the record alone). */
export function crossDerived(kind: string): string[] {
  return Object.entries(derivations)
    .filter(([key, d]) => kindOf(key) === kind && !d.own)
    .map(([key]) => key.slice(kind.length + 1));
}

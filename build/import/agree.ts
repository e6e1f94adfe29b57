// Stage 5, agree: PokeAPI states some facts twice, once on each record of a pair (A's
// `double_damage_to` holds B, B's `double_damage_from` holds A). The source format keeps one side and
// the build derives the other, so the two are compared here and every difference is reported: the
// built API will say what the kept side says.
import { GENDER_RULE, RELATIONS } from '../pipeline/derive.ts';
import { pointerOf } from '../report/problems.ts';
import { linksOf } from './evolution.ts';
import { recordsOf, refTarget, type Poke, type World } from './kinds.ts';

export interface Disagreement {
  /** The pair of statements, as `kind.field ↔ kind.field`. */
  fact: string;
  /** The record that says it, as `kind/name`. */
  record: string;
  detail: string;
}

/** One side's statement of a fact: a key both sides spell alike, and what it says, in words. */
type Claim = [key: string, says: string];

interface Side {
  label: string;
  claims: Array<{ key: string; record: string; says: string }>;
}

const idOf = (ref: unknown) => refTarget(ref)?.id;
const recordLabel = (kind: string, record: Poke) => `${kind}/${record.name ?? record.id}`;
const has = (world: World, kind: string, ref: unknown) => {
  const target = refTarget(ref);
  return target !== undefined && target.kind === kind && recordsOf(world, kind).has(target.id);
};
/** The items of `list` whose reference (`ref` of the item, or the item itself) names a `target` record that was read. */
const naming = (world: World, target: string, list: Poke[] | undefined, ref = (item: Poke): unknown => item): Poke[] =>
  (list ?? []).filter((item) => has(world, target, ref(item)));
/** A reference field's claim, when it names a `target` record that was read. */
const pointing = (world: World, target: string, ref: Poke, claim: () => Claim): Claim[] => (has(world, target, ref) ? [claim()] : []);

/** The side `label`: the claims every record of `kind` makes (`each`). */
function sideOf(label: string, world: World, kind: string, each: (record: Poke) => Claim[]): Side {
  const claims = [...recordsOf(world, kind).values()].flatMap((record) =>
    each(record).map(([key, says]) => ({ key, record: recordLabel(kind, record), says })),
  );
  return { label, claims };
}

/** Every claim one side makes that the other does not. */
function compare(left: Side, right: Side): Disagreement[] {
  const fact = `${left.label} ↔ ${right.label}`;
  const keys = (side: Side) => new Set(side.claims.map((c) => c.key));
  const [l, r] = [keys(left), keys(right)];
  return [
    ...left.claims.filter((c) => !r.has(c.key)).map((c) => ({ fact, record: c.record, detail: `${c.says}; ${right.label} does not` })),
    ...right.claims.filter((c) => !l.has(c.key)).map((c) => ({ fact, record: c.record, detail: `${c.says}; ${left.label} does not` })),
  ];
}

/** A's `x_to` holds B iff B's `x_from` holds A, now. */
function currentChart(world: World): Disagreement[] {
  const side = (to: boolean) =>
    sideOf(to ? 'type.damage_relations.*_to' : 'type.damage_relations.*_from', world, 'type', (type) =>
      RELATIONS.flatMap(([toField, fromField, factor]) =>
        naming(world, 'type', type.damage_relations?.[to ? toField : fromField]).map((ref): Claim => [
          to ? `${type.id}>${idOf(ref)}=${factor}` : `${idOf(ref)}>${type.id}=${factor}`,
          `${to ? toField : fromField} lists ${ref.name}`,
        ]),
      ),
    );
  return compare(side(true), side(false));
}

/**
 * In a past generation G, B's `x_from` holds A iff A's attacking row then (its first past entry at
 * or after G, else its current row) holds B at that factor; types of later generations aside.
 */
function pastChart(world: World): Disagreement[] {
  const types = [...recordsOf(world, 'type').values()];
  const generationOf = new Map(types.map((t) => [t.id, idOf(t.generation) ?? 0]));
  const row = (relations: Poke = {}) => {
    const out = new Map<number, number>();
    for (const [toField, , factor] of RELATIONS) for (const ref of relations[toField] ?? []) out.set(idOf(ref)!, factor);
    return out;
  };
  const rowAt = (attacker: Poke, generation: number) => {
    const entry = (attacker.past_damage_relations ?? [])
      .filter((p: Poke) => (idOf(p.generation) ?? 0) >= generation)
      .sort((a: Poke, b: Poke) => idOf(a.generation)! - idOf(b.generation)!)[0];
    return row(entry ? entry.damage_relations : attacker.damage_relations);
  };
  const out: Disagreement[] = [];
  for (const defender of types) {
    for (const past of defender.past_damage_relations ?? []) {
      const generation = idOf(past.generation) ?? 0;
      const fact = `type.past_damage_relations (${past.generation?.name}) *_from ↔ the attackers' rows then`;
      const stated = new Map<number, number>();
      for (const [, fromField, factor] of RELATIONS)
        for (const ref of past.damage_relations?.[fromField] ?? []) stated.set(idOf(ref)!, factor);
      for (const attacker of types) {
        if ((generationOf.get(attacker.id) ?? 0) > generation) continue;
        const derived = rowAt(attacker, generation).get(defender.id);
        const said = stated.get(attacker.id);
        if (derived === said) continue;
        const words = (f: number | undefined) => (f === undefined ? 'normal damage' : `${f}×`);
        out.push({
          fact,
          record: recordLabel('type', defender),
          detail: `${attacker.name} → ${defender.name}: ${words(said)} here, ${words(derived)} by ${attacker.name}'s row`,
        });
      }
    }
  }
  return out;
}

function genders(world: World): Disagreement[] {
  const details = sideOf('gender.pokemon_species_details', world, 'gender', (g) =>
    naming(world, 'creature-species', g.pokemon_species_details, (d) => d.pokemon_species).map((d): Claim => [
      `${g.id}<${idOf(d.pokemon_species)}=${d.rate}`,
      `lists ${d.pokemon_species.name} at rate ${d.rate}`,
    ]),
  );
  const gendersByName = [...recordsOf(world, 'gender').values()];
  const rates = sideOf('pokemon-species.gender_rate', world, 'creature-species', (s) =>
    gendersByName
      .filter((g) => Object.hasOwn(GENDER_RULE, g.name) && GENDER_RULE[g.name]!(s.gender_rate))
      .map((g): Claim => [`${g.id}<${s.id}=${s.gender_rate}`, `gender_rate ${s.gender_rate} makes it ${g.name}`]),
  );
  return compare(details, rates);
}

const DIRECTIONS = ['increase', 'decrease'] as const;

/** `kind.field` is {increase, decrease} of `{[amount], [member]: ref}`: each against `from.list` items pointing back by `via`. */
function changes(
  world: World,
  kind: string,
  field: string,
  member: string,
  from: string,
  list: string,
  via: string,
  amount: string,
): Disagreement[] {
  const target = sideOf(`${kind}.${field}`, world, kind, (record) =>
    DIRECTIONS.flatMap((dir) =>
      naming(world, from, record[field]?.[dir], (c) => c[member]).map((c): Claim => [
        `${record.id}<${idOf(c[member])}=${c[amount]}/${dir}`,
        `${field}.${dir} lists ${c[member].name} (${c[amount]})`,
      ]),
    ),
  );
  const source = sideOf(`${from}.${list}`, world, from, (record) =>
    // No change is listed on neither side.
    naming(
      world,
      kind,
      record[list]?.filter((c: Poke) => c[amount] !== 0),
      (c) => c[via],
    ).map((c): Claim => [
      `${idOf(c[via])}<${record.id}=${c[amount]}/${c[amount] > 0 ? 'increase' : 'decrease'}`,
      `${list} changes ${c[via].name} by ${c[amount]}`,
    ]),
  );
  return compare(target, source);
}

/** A stat's natures against each nature's `increased_stat` and `decreased_stat`. */
function natures(world: World): Disagreement[] {
  const statSide = sideOf('stat.affecting_natures', world, 'stat', (stat) =>
    DIRECTIONS.flatMap((dir) =>
      naming(world, 'nature', stat.affecting_natures?.[dir]).map((n): Claim => [
        `${stat.id}<${idOf(n)}/${dir}`,
        `affecting_natures.${dir} lists ${n.name}`,
      ]),
    ),
  );
  // A nature that raises and lowers the same stat changes nothing: the build lists it on no stat.
  const natureSide = sideOf('nature.increased_stat/decreased_stat', world, 'nature', (n) =>
    idOf(n.increased_stat) === idOf(n.decreased_stat)
      ? []
      : DIRECTIONS.flatMap((dir) => {
          const field = `${dir}d_stat`; // increased_stat, decreased_stat
          return pointing(world, 'stat', n[field], () => [`${idOf(n[field])}<${n.id}/${dir}`, `${field} is ${n[field].name}`]);
        }),
  );
  return compare(statSide, natureSide);
}

/**
 * A list on one kind against a reference on the other: `target.field` lists X iff X's `via` points
 * at it. A `field` holding one reference (a contest type's berry flavor) is a list of it; `via` may
 * be a dotted path through objects (a move's `meta.ailment`).
 */
function inverse(world: World, target: string, field: string, from: string, via: string): Disagreement[] {
  const listSide = sideOf(`${target}.${field}`, world, target, (self) =>
    naming(world, from, [self[field]].flat()).map((i): Claim => [`${self.id}<${idOf(i)}`, `${field} lists ${i.name ?? i.url}`]),
  );
  const refOf = (self: Poke): Poke => via.split('.').reduce((value: Poke, step) => value?.[step], self);
  const refSide = sideOf(`${from}.${via}`, world, from, (self) =>
    pointing(world, target, refOf(self), () => [`${idOf(refOf(self))}<${self.id}`, `${via} is ${refOf(self).name}`]),
  );
  return compare(listSide, refSide);
}

/** A move's or an item's machines, each with its version group, against each machine's move or item and version group. */
function machines(world: World, kind: 'move' | 'item'): Disagreement[] {
  const listSide = sideOf(`${kind}.machines`, world, kind, (self) =>
    naming(world, 'machine', self.machines, (m) => m.machine).map((m): Claim => [
      `${self.id}<${idOf(m.machine)}@${idOf(m.version_group)}`,
      `machines lists machine ${idOf(m.machine)} in ${m.version_group?.name}`,
    ]),
  );
  const machineSide = sideOf(`machine.${kind}`, world, 'machine', (self) =>
    pointing(world, kind, self[kind], () => [
      `${idOf(self[kind])}<${self.id}@${idOf(self.version_group)}`,
      `${kind} is ${self[kind].name} in ${self.version_group?.name}`,
    ]),
  );
  return compare(listSide, machineSide);
}

/** A flavor's berries, each with its potency, against each berry's flavors of some potency. */
function flavorBerries(world: World): Disagreement[] {
  const flavorSide = sideOf('berry-flavor.berries', world, 'berry-flavor', (f) =>
    naming(world, 'berry', f.berries, (b) => b.berry).map((b): Claim => [
      `${f.id}<${idOf(b.berry)}=${b.potency}`,
      `berries lists ${b.berry.name} at ${b.potency}`,
    ]),
  );
  const berrySide = sideOf('berry.flavors', world, 'berry', (b) =>
    naming(world, 'berry-flavor', b.flavors, (f) => f.flavor)
      .filter((f) => f.potency > 0)
      .map((f): Claim => [`${idOf(f.flavor)}<${b.id}=${f.potency}`, `flavors gives ${f.flavor.name} ${f.potency}`]),
  );
  return compare(flavorSide, berrySide);
}

/** A move's contest combos: A's `use_before` holds B iff B's `use_after` holds A, in contests and in super contests. */
function contestCombos(world: World): Disagreement[] {
  const side = (field: 'use_before' | 'use_after') =>
    sideOf(`move.contest_combos.*.${field}`, world, 'move', (m) =>
      ['normal', 'super'].flatMap((set) =>
        naming(world, 'move', m.contest_combos?.[set]?.[field]).map((other): Claim => {
          const [first, second] = field === 'use_before' ? [m.id, idOf(other)] : [idOf(other), m.id];
          return [`${set} ${first}>${second}`, `${set}.${field} lists ${other.name}`];
        }),
      ),
    );
  return compare(side('use_before'), side('use_after'));
}

/** A list on one kind against a list on the other: `target.field` lists X iff X's list `via` holds it (a version group's pokedexes). */
function inverseOfList(world: World, target: string, field: string, from: string, via: string): Disagreement[] {
  const listSide = sideOf(`${target}.${field}`, world, target, (self) =>
    naming(world, from, self[field]).map((i): Claim => [`${self.id}<${idOf(i)}`, `${field} lists ${i.name}`]),
  );
  const refSide = sideOf(`${from}.${via}`, world, from, (self) =>
    naming(world, target, self[via]).map((t): Claim => [`${idOf(t)}<${self.id}`, `${via} lists ${t.name}`]),
  );
  return compare(listSide, refSide);
}

/** An item's baby_trigger_for against the chain naming it its baby_trigger_item: one reference each way. */
function babyTriggers(world: World): Disagreement[] {
  const itemSide = sideOf('item.baby_trigger_for', world, 'item', (item) =>
    pointing(world, 'evolution-chain', item.baby_trigger_for, () => [
      `${idOf(item.baby_trigger_for)}<${item.id}`,
      `baby_trigger_for is ${item.baby_trigger_for.url}`,
    ]),
  );
  const chainSide = sideOf('evolution-chain.baby_trigger_item', world, 'evolution-chain', (chain) =>
    pointing(world, 'item', chain.baby_trigger_item, () => [
      `${chain.id}<${idOf(chain.baby_trigger_item)}`,
      `baby_trigger_item is ${chain.baby_trigger_item.name}`,
    ]),
  );
  return compare(itemSide, chainSide);
}

/**
 * A list of `target`'s items naming `from` records against `from`'s list naming `target` records,
 * item by item with what each says beside (`says`): a pokedex's entries and each species' numbers.
 */
function pairedItems(
  world: World,
  [target, field, member]: [string, string, string],
  [from, list, back]: [string, string, string],
  says: (item: Poke) => string,
): Disagreement[] {
  const targetSide = sideOf(`${target}.${field}`, world, target, (self) =>
    naming(world, from, self[field], (i) => i[member]).map((i): Claim => [
      `${self.id}<${idOf(i[member])}=${says(i)}`,
      `${field} lists ${i[member].name} (${says(i)})`,
    ]),
  );
  const fromSide = sideOf(`${from}.${list}`, world, from, (self) =>
    naming(world, target, self[list], (i) => i[back]).map((i): Claim => [
      `${idOf(i[back])}<${self.id}=${says(i)}`,
      `${list} lists ${i[back].name} (${says(i)})`,
    ]),
  );
  return compare(targetSide, fromSide);
}

/**
 * What a chain's tree says of each species it holds (read): its chain, the species it evolves from,
 * whether it is a baby, the gender it needs and the triggers it evolves by, each against what the
 * species, the genders and the triggers say.
 */
function evolutions(world: World): Disagreement[] {
  const links = linksOf(world).filter(({ link }) => has(world, 'creature-species', link.species));
  // The genders a species' evolution needs, of those read: a detail names one by its id.
  const genders = (details: Poke[]) => [...new Set(details.map((d) => d.gender))].filter((g) => recordsOf(world, 'gender').has(g));
  const tree = sideOf('evolution-chain.chain', world, 'evolution-chain', (chain) =>
    links
      .filter((l) => l.chain === chain)
      .flatMap(({ link, from }): Claim[] => {
        const id = idOf(link.species);
        const name = link.species.name;
        return [
          [`${id} in ${chain.id}`, `holds ${name}`],
          [`${id} from ${idOf(from?.species) ?? 'none'}`, `has ${name} evolve from ${from?.species?.name ?? 'no species'}`],
          [`${id} baby ${link.is_baby}`, `has ${name} ${link.is_baby ? '' : 'not '}a baby`],
        ];
      }),
  );
  const species = sideOf('pokemon-species.evolution_chain/evolves_from_species/is_baby', world, 'creature-species', (s) =>
    has(world, 'evolution-chain', s.evolution_chain)
      ? [
          [`${s.id} in ${idOf(s.evolution_chain)}`, `evolution_chain is ${s.evolution_chain.url}`],
          [`${s.id} from ${idOf(s.evolves_from_species) ?? 'none'}`, `evolves_from_species is ${s.evolves_from_species?.name ?? 'null'}`],
          [`${s.id} baby ${s.is_baby}`, `is_baby is ${s.is_baby}`],
        ]
      : [],
  );
  const needed = sideOf('evolution-chain.chain.*.evolution_details.gender', world, 'evolution-chain', (chain) =>
    links
      .filter((l) => l.chain === chain)
      .flatMap(({ link }) =>
        genders(link.evolution_details ?? []).map((g): Claim => [
          `${idOf(link.species)} needs ${g}`,
          `has ${link.species.name} need gender ${g}`,
        ]),
      ),
  );
  const required = sideOf('gender.required_for_evolution', world, 'gender', (g) =>
    naming(world, 'creature-species', g.required_for_evolution).map((s): Claim => [`${idOf(s)} needs ${g.id}`, `lists ${s.name}`]),
  );
  const byTrigger = sideOf('evolution-chain.chain.*.evolution_details.trigger', world, 'evolution-chain', (chain) =>
    links
      .filter((l) => l.chain === chain)
      .flatMap(({ link }) =>
        naming(
          world,
          'evolution-trigger',
          (link.evolution_details ?? []).map((d: Poke) => d.trigger),
        ).map((t): Claim => [`${idOf(t)}<${idOf(link.species)}`, `has ${link.species.name} evolve by ${t.name}`]),
      ),
  );
  const triggers = sideOf('evolution-trigger.pokemon_species', world, 'evolution-trigger', (t) =>
    naming(world, 'creature-species', t.pokemon_species).map((s): Claim => [`${t.id}<${idOf(s)}`, `lists ${s.name}`]),
  );
  return [...compare(tree, species), ...compare(needed, required), ...compare(byTrigger, triggers)];
}

/** A type's `pokemon` (with slots) against each creature's `types`. */
function typeCreatures(world: World): Disagreement[] {
  const typeSide = sideOf('type.pokemon', world, 'type', (t) =>
    naming(world, 'creature', t.pokemon, (p) => p.pokemon).map((p): Claim => [
      `${t.id}<${idOf(p.pokemon)}@${p.slot}`,
      `pokemon lists ${p.pokemon.name} in slot ${p.slot}`,
    ]),
  );
  const creatureSide = sideOf('pokemon.types', world, 'creature', (c) =>
    naming(world, 'type', c.types, (t) => t.type).map((t): Claim => [
      `${idOf(t.type)}<${c.id}@${t.slot}`,
      `types lists ${t.type.name} in slot ${t.slot}`,
    ]),
  );
  return compare(typeSide, creatureSide);
}

/** A species' varieties (with is_default) against each creature's species and is_default. */
function varieties(world: World): Disagreement[] {
  const speciesSide = sideOf('pokemon-species.varieties', world, 'creature-species', (s) =>
    naming(world, 'creature', s.varieties, (v) => v.pokemon).map((v): Claim => [
      `${s.id}<${idOf(v.pokemon)}=${v.is_default}`,
      `varieties lists ${v.pokemon.name ?? v.pokemon.url}`,
    ]),
  );
  const creatureSide = sideOf('pokemon.species/is_default', world, 'creature', (c) =>
    pointing(world, 'creature-species', c.species, () => [`${idOf(c.species)}<${c.id}=${c.is_default}`, `species is ${c.species.name}`]),
  );
  return compare(speciesSide, creatureSide);
}

/**
 * The build sums the chances of a creature's encounters in a version as its `max_chance`: PokeAPI's
 * `max_chance` of each version detail is held to the sum of its encounter details' chances.
 */
function maxChances(world: World): Disagreement[] {
  const out: Disagreement[] = [];
  for (const area of recordsOf(world, 'location-area').values()) {
    for (const encounter of area.pokemon_encounters ?? []) {
      const sums = new Map<string, { sum: number; stated: Set<number> }>();
      for (const detail of encounter.version_details ?? []) {
        const version = detail.version?.name;
        const entry = sums.get(version) ?? { sum: 0, stated: new Set<number>() };
        for (const one of detail.encounter_details ?? []) entry.sum += one.chance ?? 0;
        entry.stated.add(detail.max_chance);
        sums.set(version, entry);
      }
      for (const [version, { sum, stated }] of sums) {
        if (stated.size === 1 && stated.has(sum)) continue;
        out.push({
          fact: 'location-area version_details.max_chance ↔ the sum of its chances',
          record: recordLabel('location-area', area),
          detail: `${encounter.pokemon?.name} in ${version}: max_chance ${[...stated].join(', ')}, chances sum to ${sum}`,
        });
      }
    }
  }
  return out;
}

/** Every pair of statements PokeAPI makes of one fact that do not agree, in a fixed order. */
/**
 * A reference states the name of the record it names beside its url: where the two differ, PokeAPI
 * disagrees with itself. The source writes a reference as the name of the record its url names, so
 * the built API says that record's name.
 */
function referenceNames(world: World): Disagreement[] {
  const out: Disagreement[] = [];
  // The path to the value walked, kept as one list (pushed and popped): it is put in words only for a difference.
  const at: Array<string | number> = [];
  const walk = (value: object, kind: string, record: Poke): void => {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (item && typeof item === 'object') step(i, item, kind, record);
      }
      return;
    }
    const ref = value as Poke;
    if (typeof ref.name === 'string' && typeof ref.url === 'string') {
      const target = refTarget(ref)!;
      const named = target && recordsOf(world, target.kind).get(target.id)?.name;
      if (typeof named === 'string' && named !== ref.name) {
        const detail = `${pointerOf(at)} names ${JSON.stringify(ref.name)}, where ${target.kind} ${target.id} is ${JSON.stringify(named)}`;
        out.push({ fact: "a reference's name ↔ its record's name", record: recordLabel(kind, record), detail });
      }
    }
    for (const key in ref) {
      const item: unknown = ref[key];
      if (item && typeof item === 'object') step(key, item, kind, record);
    }
  };
  const step = (key: string | number, item: object, kind: string, record: Poke) => {
    at.push(key);
    walk(item, kind, record);
    at.pop();
  };
  for (const [kind, records] of world) for (const record of records.values()) walk(record, kind, record);
  return out;
}

export function checkAgreements(world: World): Disagreement[] {
  const all = [
    ...referenceNames(world),
    ...currentChart(world),
    ...pastChart(world),
    ...genders(world),
    ...natures(world),
    ...changes(world, 'athlon-stat', 'affecting_natures', 'nature', 'nature', 'pokeathlon_stat_changes', 'pokeathlon_stat', 'max_change'),
    ...changes(world, 'stat', 'affecting_moves', 'move', 'move', 'stat_changes', 'stat', 'change'),
    ...inverse(world, 'stat', 'characteristics', 'characteristic', 'highest_stat'),
    ...inverse(world, 'creature', 'forms', 'creature-form', 'pokemon'),
    ...inverse(world, 'location', 'areas', 'location-area', 'location'),
    ...inverse(world, 'version-group', 'versions', 'version', 'version_group'),
    ...inverse(world, 'generation', 'version_groups', 'version-group', 'generation'),
    ...inverse(world, 'type', 'moves', 'move', 'type'),
    ...inverse(world, 'move-damage-class', 'moves', 'move', 'damage_class'),
    ...inverse(world, 'move-ailment', 'moves', 'move', 'meta.ailment'),
    ...inverse(world, 'move-category', 'moves', 'move', 'meta.category'),
    ...machines(world, 'move'),
    ...machines(world, 'item'),
    ...inverse(world, 'berry-firmness', 'berries', 'berry', 'firmness'),
    ...inverse(world, 'contest-type', 'berry_flavor', 'berry-flavor', 'contest_type'),
    ...inverse(world, 'super-contest-effect', 'moves', 'move', 'super_contest_effect'),
    ...flavorBerries(world),
    ...contestCombos(world),
    ...babyTriggers(world),
    ...inverse(world, 'region', 'pokedexes', 'pokedex', 'region'),
    ...inverseOfList(world, 'version-group', 'pokedexes', 'pokedex', 'version_groups'),
    ...pairedItems(
      world,
      ['pokedex', 'pokemon_entries', 'pokemon_species'],
      ['creature-species', 'pokedex_numbers', 'pokedex'],
      (i) => `${i.entry_number}`,
    ),
    ...pairedItems(
      world,
      ['pal-park-area', 'pokemon_encounters', 'pokemon_species'],
      ['creature-species', 'pal_park_encounters', 'area'],
      (i) => `${i.base_score}/${i.rate}`,
    ),
    ...evolutions(world),
    ...typeCreatures(world),
    ...varieties(world),
    ...maxChances(world),
  ];
  const text = (d: Disagreement) => `${d.fact}\0${d.record}\0${d.detail}`;
  return all.sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
}

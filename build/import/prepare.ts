// Stage 2, prepare: each record made into one the source schema can hold, still in PokeAPI's shape:
// what the specification states otherwise is folded here (an encounter's details, a type's
// relations), what the source states on the other side of a pair is moved there (an item's stats,
// a species' gender needed to evolve), and names are given or made unique. Every fold is noted in `losses`.
import { isSlug } from '../guard.mjs';
import { recordsOf, refTarget, type Poke, type World } from './kinds.ts';
import { chainsHeld, heldChains, inItsPlace, nameChains, placesInChains } from './evolution.ts';
import type { Losses } from './losses.ts';

const byId = (a: Poke, b: Poke) => a.id - b.id;

/** A new world whose records the generic mapping (map.ts) can carry over field by field. */
export function prepareWorld(world: World, losses: Losses): World {
  const out: World = new Map();
  const itemStats = inverseRefs(world, 'stat', 'affecting_items');
  const genderToEvolve = inverseRefs(world, 'gender', 'required_for_evolution');
  const places = placesInChains(world);
  for (const [kind, records] of world) {
    const prepared = new Map<number, Poke>();
    for (const [id, record] of records) {
      let next = record;
      if (kind === 'location-area') next = splitEncounters(record, losses);
      else if (kind === 'type') next = typeRelations(record);
      else if (kind === 'item') next = { ...record, affected_stats: (itemStats.get(id) ?? []).map(refOf) };
      else if (kind === 'creature-species')
        next = inItsPlace(withGenderToEvolve(record, genderToEvolve.get(id) ?? [], losses), places.get(id), losses);
      prepared.set(id, next);
    }
    out.set(kind, prepared);
  }
  for (const [kind, from] of Object.entries(NAMED_AFTER))
    if (out.has(kind)) out.set(kind, nameAfterText(kind, out.get(kind)!, from, losses));
  if (out.has('machine')) out.set('machine', nameMachines(out.get('machine')!));
  const chains = out.get('evolution-chain');
  if (chains) out.set('evolution-chain', nameChains(heldChains(chains, chainsHeld(world), losses)));
  for (const [kind, records] of out) out.set(kind, uniqueNames(kind, records, losses));
  return out;
}

/**
 * A name is unique within its kind in the source format (it names the file); PokeAPI has a few twice.
 * The record of the lowest id keeps it, the others become `<name>-<id>` (`-<id>-2`, … where a record
 * has that name already); references follow, as they are written from the record they point at.
 */
function uniqueNames(kind: string, records: Map<number, Poke>, losses: Losses): Map<number, Poke> {
  const taken = new Set<string>();
  // Every name as PokeAPI gives it: a new name takes none, not even a later record's.
  const given = new Set([...records.values()].map((record) => record.name));
  const out = new Map<number, Poke>();
  for (const [id, record] of [...records].sort(([a], [b]) => a - b)) {
    let next = record;
    if (taken.has(record.name)) {
      let name = `${record.name}-${id}`;
      for (let n = 2; given.has(name) || taken.has(name); n++) name = `${record.name}-${id}-${n}`;
      next = { ...record, name };
      losses.add('substituted', 'duplicate-name', kind, 'name', next.name);
    }
    taken.add(next.name);
    out.set(id, next);
  }
  return out;
}

const refOf = (record: Poke) => ({ name: record.name, url: `/api/v2/${record.kind}/${record.id}/` });

/**
 * For each record a `field` of `kind` lists, the records that list it, by id: the pair stated on
 * the side this source format keeps. Each comes with its kind, for its reference.
 */
function inverseRefs(world: World, kind: string, field: string): Map<number, Poke[]> {
  const out = new Map<number, Poke[]>();
  for (const record of [...recordsOf(world, kind).values()].sort(byId)) {
    for (const ref of record[field] ?? []) {
      const target = refTarget(ref);
      if (!target) continue;
      const list = out.get(target.id) ?? [];
      list.push({ ...record, kind });
      out.set(target.id, list);
    }
  }
  return out;
}

/** PokeAPI lists the genders a species needs to evolve on the gender; the source, on the species, one. */
function withGenderToEvolve(species: Poke, genders: Poke[], losses: Losses): Poke {
  if (genders.length > 1) losses.add('dropped', 'gender-to-evolve', 'creature-species', 'gender_required_to_evolve', species.name);
  return { ...species, gender_required_to_evolve: genders[0] ? refOf(genders[0]) : null };
}

/**
 * The specification's version detail holds one encounter: a PokeAPI version detail with several
 * becomes one version detail per encounter, of the same version (the build sums their chances, and
 * groups them again in the creature's encounters). Several condition values stay a list, which the
 * source holds (the area publishes the first, the creature's encounters all); one is one reference.
 */
function splitEncounters(area: Poke, losses: Losses): Poke {
  const encounters = (area.pokemon_encounters ?? []).map((encounter: Poke) => ({
    ...encounter,
    version_details: (encounter.version_details ?? []).flatMap((detail: Poke) => {
      const details: Poke[] = detail.encounter_details ?? [];
      if (details.length === 0) losses.add('dropped', 'empty-version-detail', 'location-area', 'version_details', area.name);
      if (details.length > 1) losses.add('folded', 'encounter-details', 'location-area', 'version_details[].encounter_details', area.name);
      return details.map((one) => ({ ...detail, encounter_details: conditions(one) }));
    }),
  }));
  return { ...area, pokemon_encounters: encounters };
}

function conditions(details: Poke): Poke {
  const { condition_values: values = [], ...rest } = details;
  if (values.length === 0) return rest;
  return { ...rest, condition_values: values.length === 1 ? values[0] : values };
}

/**
 * A type's relations as the source states them: its attacking row (`…_to`), now and in past
 * generations; the `…_from` lists are the other types' rows, which agree.ts holds to them.
 */
function typeRelations(type: Poke): Poke {
  const attacking = (relations: Poke = {}) => ({
    no_damage_to: relations.no_damage_to ?? [],
    half_damage_to: relations.half_damage_to ?? [],
    double_damage_to: relations.double_damage_to ?? [],
  });
  return {
    ...type,
    damage_relations: attacking(type.damage_relations),
    past_damage_relations: (type.past_damage_relations ?? []).map((p: Poke) => ({ ...p, damage_relations: attacking(p.damage_relations) })),
  };
}

/**
 * The kinds PokeAPI gives no name, which the source's records have (a file's name): each with the
 * list of texts whose English one names a record.
 */
const NAMED_AFTER: Record<string, { list: string; text: string }> = {
  characteristic: { list: 'descriptions', text: 'description' },
  'contest-effect': { list: 'effect_entries', text: 'effect' },
  'super-contest-effect': { list: 'flavor_text_entries', text: 'flavor_text' },
};

/** Each record of a kind PokeAPI gives no name, named from its English text, unique: `<kind>-<id>` where that cannot be. */
function nameAfterText(kind: string, records: Map<number, Poke>, from: { list: string; text: string }, losses: Losses): Map<number, Poke> {
  const taken = new Set<string>();
  const out = new Map<number, Poke>();
  for (const [id, record] of [...records].sort(([a], [b]) => a - b)) {
    const english = (record[from.list] ?? []).find((d: Poke) => d?.language?.name === 'en')?.[from.text];
    const slug = String(english ?? '')
      .normalize('NFKD')
      .replace(/\p{M}/gu, '') // the accents NFKD sets apart: "Pokémon" is "pokemon"
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '');
    const name = isSlug(slug) && !taken.has(slug) ? slug : `${kind}-${id}`;
    taken.add(name);
    losses.add('substituted', `${kind}-name`, kind, 'name', name);
    out.set(id, { ...record, name });
  }
  return out;
}

/**
 * PokeAPI's machines have no name; the source's do, for its file, and publishes none. Named after
 * the item and version group (`tm01-red-blue`), which name one machine in PokeAPI, or `machine-<id>`:
 * nothing PokeAPI states is lost, so the report has no line of it.
 */
function nameMachines(records: Map<number, Poke>): Map<number, Poke> {
  const taken = new Set<string>();
  const out = new Map<number, Poke>();
  for (const [id, record] of [...records].sort(([a], [b]) => a - b)) {
    const made = `${record.item?.name}-${record.version_group?.name}`;
    const name = isSlug(made) && !taken.has(made) ? made : `machine-${id}`;
    taken.add(name);
    out.set(id, { ...record, name });
  }
  return out;
}

// Evolution chains as the source holds them: PokeAPI states a species' evolution in its chain's
// tree, the source on the species (how it evolves, in `evolution_details`), from which the build
// makes the tree again. What the tree says beside that (the species it evolves from, its chain,
// whether it is a baby) each species states too: agree.ts holds the two to each other.
import { isSlug } from '../guard.mjs';
import { recordsOf, refTarget, type Poke, type World } from './kinds.ts';
import type { Losses } from './losses.ts';

/**
 * A link of a chain's tree with the chain holding it and the species it evolves from (the link
 * above), if any; `cut` where a species above it was not read, which leaves it outside the chain.
 */
export interface Link {
  chain: Poke;
  link: Poke;
  from: Poke | undefined;
  cut: boolean;
}

/** Every link of every chain, each chain's from its first species down, chains by id. */
export function linksOf(world: World): Link[] {
  const out: Link[] = [];
  const walk = (chain: Poke, link: Poke, from: Poke | undefined, cut: boolean) => {
    if (!link || typeof link !== 'object') return;
    out.push({ chain, link, from, cut });
    for (const next of link.evolves_to ?? []) walk(chain, next, link, cut || !isRead(world, link.species));
  };
  for (const chain of [...recordsOf(world, 'evolution-chain').values()].sort((a, b) => a.id - b.id))
    walk(chain, chain.chain, undefined, false);
  return out;
}

const isRead = (world: World, species: unknown) => recordsOf(world, 'creature-species').has(refTarget(species)?.id ?? NaN);

/**
 * A species' place in its chain's tree: the chain, the species it evolves from there, whether it is
 * a baby, and how it evolves. Below a species not read it is in no chain (`cut`): the build makes a
 * chain from its species, and one evolving from a species the import leaves out evolves from none.
 */
interface Place {
  evolution_chain: Poke | null;
  evolves_from_species: Poke | null;
  is_baby: boolean;
  evolution_details: Poke[];
  cut: boolean;
}

/**
 * Each species' place in the tree of the chain holding it, by its id (the first chain by id, where
 * two hold it). Its evolution details are its link's, without the gender each states, which the
 * build makes from the species' gender_required_to_evolve (PokeAPI's gender's required_for_evolution,
 * which agree.ts holds to it).
 */
export function placesInChains(world: World): Map<number, Place> {
  const out = new Map<number, Place>();
  for (const { chain, link, from, cut } of linksOf(world)) {
    const id = refTarget(link.species)?.id;
    if (id === undefined || out.has(id)) continue;
    const parent = from && isRead(world, from.species) ? from.species : null;
    const details: Poke[] = from && !parent ? [] : (link.evolution_details ?? []);
    out.set(id, {
      evolution_chain: cut ? null : { url: `/api/v2/evolution-chain/${chain.id}/` },
      evolves_from_species: parent,
      is_baby: link.is_baby,
      evolution_details: details.map(({ gender: _derived, ...rest }) => rest),
      cut: cut || (from !== undefined && !parent),
    });
  }
  return out;
}

/** The chains holding a species read in its place: a chain with none would be made of nothing. */
export function chainsHeld(world: World): Set<number> {
  const held = linksOf(world).filter(({ link, cut }) => !cut && isRead(world, link.species));
  return new Set(held.map(({ chain }) => chain.id));
}

/**
 * A species in its chain's place, with how it evolves: the build makes the tree from what each
 * species says, so where PokeAPI's species says otherwise than its chain's tree (a second first
 * species of one chain, a species evolving from one in another chain), the tree's word is taken;
 * below a species not read, it is in no chain. Each field taken is noted.
 */
export function inItsPlace(species: Poke, place: Place | undefined, losses: Losses): Poke {
  if (!place) return { ...species, evolution_details: [] };
  const out: Poke = { ...species, evolution_details: place.evolution_details };
  const category = place.cut ? 'evolution-outside-import' : 'evolution-from-chain';
  for (const field of ['evolution_chain', 'evolves_from_species', 'is_baby'] as const) {
    const said = species[field];
    const placed = place[field];
    const same =
      typeof placed === 'boolean'
        ? said === placed
        : refTarget(said)?.id === refTarget(placed)?.id && ((said ?? null) === null) === (placed === null);
    if (same) continue;
    losses.add(place.cut ? 'dropped' : 'substituted', category, 'creature-species', field, String(species.name));
    out[field] = placed;
  }
  return out;
}

/** The chains holding a species read in its place; each other is left out, noted: nothing would make its tree. */
export function heldChains(records: Map<number, Poke>, held: ReadonlySet<number>, losses: Losses): Map<number, Poke> {
  const out = new Map<number, Poke>();
  for (const [id, record] of records) {
    if (held.has(id)) out.set(id, record);
    else losses.add('dropped', 'evolution-outside-import', 'evolution-chain', 'chain', String(id));
  }
  return out;
}

/**
 * PokeAPI's evolution chains have no name; the source's do, for its file, and publish none. Named
 * after the chain's first species (`bulbasaur`), or `evolution-chain-<id>`: nothing PokeAPI states
 * is lost, so the report has no line of it.
 */
export function nameChains(records: Map<number, Poke>): Map<number, Poke> {
  const taken = new Set<string>();
  const out = new Map<number, Poke>();
  for (const [id, record] of [...records].sort(([a], [b]) => a - b)) {
    const first = record.chain?.species?.name;
    const name = typeof first === 'string' && isSlug(first) && !taken.has(first) ? first : `evolution-chain-${id}`;
    taken.add(name);
    out.set(id, { ...record, name });
  }
  return out;
}

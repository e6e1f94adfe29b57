// An evolution chain as a tree: each stage's species, and under it each stage it becomes, with
// every way it gets there: the trigger, then each condition the way sets. Drawn on a creature's
// page (its species' chain) and as the chain record's own `chain`.
import type { NamedRef } from '../../build/api-types.ts';
import * as api from './api.ts';
import { h, label, type Child } from './dom.ts';
import { refLink } from './record.ts';

/** One stage of an evolution chain as PokeAPI gives it: the species, how it is reached, what it becomes. */
export interface ChainLink {
  species: NamedRef;
  is_baby: boolean;
  evolution_details: Array<Record<string, unknown>>;
  evolves_to: ChainLink[];
}

export interface EvolutionChain {
  id: number;
  baby_trigger_item: NamedRef | null;
  chain: ChainLink;
}

/** A creature's species' chain, its stage marked, with a link to the chain's record. */
export function speciesChain({ id, chain, baby_trigger_item }: EvolutionChain, current: NamedRef): Child[] {
  return [
    renderChain(chain, api.idOf(current)),
    h(
      'p',
      { class: 'evo-note' },
      refLink({ url: api.recordApiUrl('evolution-chain', id) }),
      baby_trigger_item ? [' · its baby is hatched only when a parent holds ', refLink(baby_trigger_item)] : null,
    ),
  ];
}

/** A chain's tree; the stage of the species with id `current`, if any, marked. */
export function renderChain(chain: ChainLink, current = NaN): HTMLElement {
  return h('div', { class: 'evolution' }, stage(chain, current));
}

function stage(link: ChainLink, current: number): HTMLElement {
  const here = api.idOf(link.species) === current;
  return h(
    'div',
    { class: 'evo-stage' },
    h(
      'div',
      { class: 'evo-species', 'data-species': link.species.name, 'aria-current': here ? 'true' : null },
      refLink(link.species),
      link.is_baby ? h('span', { class: 'badge' }, 'baby') : null,
    ),
    link.evolves_to.length
      ? h(
          'ul',
          { class: 'evo-next' },
          link.evolves_to.map((next) =>
            h(
              'li',
              null,
              h('div', { class: 'evo-how' }, h('span', { class: 'arrow', 'aria-hidden': 'true' }, '↓'), ways(next)),
              stage(next, current),
            ),
          ),
        )
      : null,
  );
}

/** Each way a stage is reached, on a line: its trigger, then every condition it sets. */
function ways(link: ChainLink): HTMLElement {
  return h(
    'ul',
    { class: 'evo-ways' },
    link.evolution_details.map((details) =>
      h(
        'li',
        null,
        api.isNamedRef(details.trigger) ? refLink(details.trigger) : null,
        Object.entries(details)
          .filter(([k, v]) => k !== 'trigger' && k !== 'is_default' && says(v))
          .map(([k, v]) =>
            h('span', { class: 'kv', 'data-condition': k }, h('span', { class: 'k' }, label(k).toLowerCase()), condition(v)),
          ),
      ),
    ),
  );
}

/** Whether a condition's value sets anything: PokeAPI writes an unset one as null, false or an empty string. */
const says = (value: unknown) =>
  value !== null && value !== undefined && value !== false && value !== '' && !(Array.isArray(value) && !value.length);

function condition(value: unknown): Child {
  if (value === true) return null;
  if (api.isNamedRef(value) || api.isUrlRef(value)) return refLink(value);
  if (typeof value === 'object') return h('code', null, JSON.stringify(value));
  return h('span', { class: 'num' }, String(value));
}

// A creature as a Pokédex shows it: its height and weight, its base stats as bars, its abilities
// (the hidden one marked), its species' evolution chain, where and how it is met, and the moves it
// learns in each version group. The chain and the encounters are records of their own: each is drawn when the API has
// it, and left out when it does not.
import type { Creature, NamedRef } from '../../build/api-types.ts';
import * as api from './api.ts';
import { h, label, type Child } from './dom.ts';
import { areasByVersion, renderByVersion, type AreaEncounter } from './encounters.ts';
import { speciesChain, type EvolutionChain } from './evolution.ts';
import { displayName, refLink, routeOf, type RecordView } from './record.ts';

/** A stat's highest base value, which a full bar stands for. */
const STAT_MAX = 255;

/** A creature and what its page shows beyond its record. */
export interface Dex {
  creature: Creature;
  chain?: EvolutionChain;
  encounters?: AreaEncounter[];
  /** A stat's name in words (`special-attack` → its English name), where the stat says it. */
  statNames: Map<string, string>;
  /** The records of its abilities, by url: their names and what they do. */
  abilities: Map<string, api.ApiRecord>;
}

/** Reads what the creature's page shows beyond its record, in parallel; what the API lacks is left undefined. */
export async function loadDex(record: api.ApiRecord): Promise<Dex> {
  const creature = record as unknown as Creature;
  const [chain, encounters, stats, abilities] = await Promise.all([
    chainOf(record),
    encountersOf(record),
    api.records('stat').catch(() => [] as api.ApiRecord[]),
    abilitiesOf(creature),
  ]);
  const statNames = new Map(stats.filter((s) => typeof s.name === 'string').map((s) => [s.name!, displayName(s)]));
  return { creature, chain, encounters, statNames, abilities };
}

/** Creature → species → its evolution chain, or undefined where a link is missing. */
async function chainOf(record: api.ApiRecord): Promise<EvolutionChain | undefined> {
  if (!api.isNamedRef(record.species)) return undefined;
  const species = await api.atUrl<api.ApiRecord>(record.species.url).catch(() => undefined);
  const ref = species?.evolution_chain;
  if (!api.isUrlRef(ref) && !api.isNamedRef(ref)) return undefined;
  const chain = await api.atUrl<EvolutionChain>(ref.url).catch(() => undefined);
  return chain && typeof chain.chain === 'object' ? chain : undefined;
}

/** The records of the creature's abilities that answer, by url. */
async function abilitiesOf(creature: Creature): Promise<Map<string, api.ApiRecord>> {
  const refs = creature.abilities.flatMap(({ ability }) => (ability ? [ability] : []));
  const records = await Promise.all(refs.map((ref) => api.atUrl<api.ApiRecord>(ref.url).catch(() => undefined)));
  return new Map(refs.flatMap((ref, i) => (records[i] ? [[ref.url, records[i]] as const] : [])));
}

/** The creature's encounters sub-resource, at the url the record gives or where PokeAPI puts it. */
async function encountersOf(record: api.ApiRecord): Promise<AreaEncounter[] | undefined> {
  const url =
    typeof record.location_area_encounters === 'string'
      ? record.location_area_encounters
      : `${api.recordApiUrl('creature', record.id)}encounters/`;
  const found = await api.atUrl<unknown>(url).catch(() => undefined);
  return Array.isArray(found) ? (found as AreaEncounter[]) : undefined;
}

/** The creature's sections, drawn first on its page, and the fields they stand for. */
export function creatureView(dex: Dex): Pick<RecordView, 'lead' | 'drawn'> {
  const { creature } = dex;
  const lead: HTMLElement[] = [];
  const drawn: string[] = [];
  // The header shows the types as chips already.
  if (creature.types.length) drawn.push('types');
  const measures = profile(creature);
  if (measures.length) {
    lead.push(
      part(
        'profile',
        'Profile',
        h(
          'dl',
          { class: 'facts' },
          measures.map(({ field, term, text }) =>
            h('div', { class: 'fact', 'data-field': field }, h('dt', null, term), h('dd', null, text)),
          ),
        ),
      ),
    );
    drawn.push(...measures.map((m) => m.field));
  }
  if (creature.stats.length) {
    lead.push(part('stats', 'Base stats', stats(creature.stats, dex.statNames)));
    drawn.push('stats');
  }
  if (creature.abilities.length) {
    lead.push(part('abilities', 'Abilities', abilities(creature.abilities, dex.abilities)));
    drawn.push('abilities');
  }
  if (dex.chain) lead.push(part('evolution', 'Evolution chain', speciesChain(dex.chain, creature.species)));
  if (dex.encounters) {
    lead.push(part('encounters', 'Where it is met', met(dex.encounters)));
    drawn.push('location_area_encounters');
  }
  if (creature.moves.length) {
    lead.push(part('moves', 'Moves', moves(creature.moves)));
    drawn.push('moves');
  }
  return { lead, drawn };
}

/** Its size and worth in the units a person reads: PokeAPI gives decimetres and hectograms. */
function profile(creature: Creature): Array<{ field: string; term: string; text: string }> {
  const out: Array<{ field: string; term: string; text: string }> = [];
  if (typeof creature.height === 'number') out.push({ field: 'height', term: 'Height', text: `${creature.height / 10} m` });
  if (typeof creature.weight === 'number') out.push({ field: 'weight', term: 'Weight', text: `${creature.weight / 10} kg` });
  if (typeof creature.base_experience === 'number')
    out.push({ field: 'base_experience', term: 'Base experience', text: String(creature.base_experience) });
  return out;
}

function part(name: string, title: string, ...children: Child[]): HTMLElement {
  return h('section', { class: 'part dex', 'data-part': name }, h('h2', null, title), ...children);
}

function stats(list: Creature['stats'], names: Map<string, string>): HTMLElement {
  const total = list.reduce((sum, s) => sum + s.base_stat, 0);
  const effort = list.filter((s) => s.effort > 0);
  const nameOf = (stat: NamedRef) => names.get(stat.name) ?? label(stat.name);
  return h(
    'div',
    { class: 'stats' },
    h(
      'dl',
      { class: 'stat-bars' },
      list.map(({ base_stat, stat }) =>
        h(
          'div',
          { class: 'stat', 'data-stat': stat.name },
          h('dt', null, h('a', { href: routeOf('stat', api.idOf(stat)) }, nameOf(stat))),
          h('dd', { class: 'value num' }, String(base_stat)),
          h(
            'dd',
            { class: 'bar', 'aria-hidden': 'true' },
            h('span', { style: `width: ${Math.min(100, (base_stat / STAT_MAX) * 100).toFixed(1)}%; --stat-hue: ${hue(base_stat)}` }),
          ),
        ),
      ),
      h('div', { class: 'stat total' }, h('dt', null, 'Total'), h('dd', { class: 'value num' }, String(total))),
    ),
    effort.length
      ? h(
          'p',
          { class: 'effort' },
          'Effort points given when defeated: ',
          effort.map((s, i) => [i ? ', ' : '', h('span', { 'data-stat': s.stat.name }, `${s.effort} ${nameOf(s.stat)}`)]),
        )
      : null,
  );
}

/** From red for a low stat to green for a high one. */
const hue = (value: number) => Math.round((Math.min(value, 150) / 150) * 140);

function abilities(list: Creature['abilities'], records: Map<string, api.ApiRecord>): HTMLElement {
  const sorted = [...list].sort((a, b) => a.slot - b.slot);
  return h(
    'ul',
    { class: 'abilities' },
    sorted.map(({ ability, is_hidden, slot }) => {
      const record = ability ? records.get(ability.url) : undefined;
      const effect = record ? shortEffect(record) : undefined;
      return h(
        'li',
        { 'data-ability': ability?.name ?? '', 'data-hidden': String(is_hidden), 'data-slot': slot },
        h(
          'div',
          { class: 'ability-name' },
          ability ? refLink({ name: record ? displayName(record) : ability.name, url: ability.url }) : h('span', { class: 'muted' }, '—'),
          is_hidden ? h('span', { class: 'badge' }, 'Hidden ability') : null,
          h('span', { class: 'slot' }, `slot ${slot}`),
        ),
        effect ? h('p', { class: 'effect' }, effect) : null,
      );
    }),
  );
}

/** What an ability does, in short and in English, where its record says. */
function shortEffect(record: api.ApiRecord): string | undefined {
  const entries = Array.isArray(record.effect_entries) ? (record.effect_entries as Array<Record<string, unknown>>) : [];
  const english = entries.find((e) => api.isNamedRef(e.language) && e.language.name === 'en');
  return typeof english?.short_effect === 'string' ? english.short_effect : undefined;
}

function met(encounters: AreaEncounter[]): Child {
  const groups = areasByVersion(encounters);
  return groups.length ? renderByVersion('Location area', groups) : h('p', { class: 'muted' }, 'Not met in the wild in any version.');
}

/** One row of a version group's moves. */
interface MoveRow {
  move: NamedRef;
  method: NamedRef;
  level: number;
  order: number | null;
}

interface GroupMoves {
  group: NamedRef;
  rows: MoveRow[];
}

/** The moves regrouped by version group (in id order); in each, learnt by level first, by level, then by method. */
export function movesByVersionGroup(list: Creature['moves']): GroupMoves[] {
  const groups = new Map<string, GroupMoves>();
  for (const { move, version_group_details } of list)
    for (const d of version_group_details) {
      const group = groups.get(d.version_group.url) ?? { group: d.version_group, rows: [] };
      group.rows.push({ move, method: d.move_learn_method, level: d.level_learned_at, order: d.order ?? null });
      groups.set(d.version_group.url, group);
    }
  const byLevel = (r: MoveRow) => (r.method.name === 'level-up' ? 0 : 1);
  for (const g of groups.values())
    g.rows.sort(
      (a, b) =>
        byLevel(a) - byLevel(b) ||
        api.idOf(a.method) - api.idOf(b.method) ||
        a.level - b.level ||
        (a.order ?? 0) - (b.order ?? 0) ||
        a.move.name.localeCompare(b.move.name),
    );
  return [...groups.values()].sort((a, b) => api.idOf(a.group) - api.idOf(b.group));
}

/** A level only where the method is by level, or where one is given. */
const levelText = (r: MoveRow) => (r.method.name === 'level-up' || r.level > 0 ? String(r.level) : '—');

function movesTable({ group, rows }: GroupMoves): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap moves', 'data-scroll': 'x' },
    h(
      'table',
      { 'data-version-group': group.name },
      h('caption', null, refLink(group), h('span', { class: 'muted' }, ` · ${rows.length} ${rows.length === 1 ? 'move' : 'moves'}`)),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['Level', 'Move', 'Method'].map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        null,
        rows.map((r) =>
          h(
            'tr',
            null,
            h('td', { class: 'num level' }, levelText(r)),
            h('th', { scope: 'row' }, refLink(r.move)),
            h('td', null, refLink(r.method)),
          ),
        ),
      ),
    ),
  );
}

/** A picker of version groups, the latest first shown, and the table of the one picked. */
function moves(list: Creature['moves']): Child[] {
  const groups = movesByVersionGroup(list);
  if (!groups.length) return [h('p', { class: 'muted' }, 'No moves in any version group.')];
  const latest = groups[groups.length - 1]!;
  const shown = h('div', { class: 'moves-shown' }, movesTable(latest));
  const picker = h(
    'select',
    { id: 'moves-version-group' },
    groups.map((g) => h('option', { value: g.group.name, selected: g === latest }, g.group.name)),
  );
  picker.addEventListener('change', () => shown.replaceChildren(movesTable(groups[picker.selectedIndex]!)));
  return [h('div', { class: 'moves-tools' }, h('label', { for: 'moves-version-group' }, 'Version group'), picker), shown];
}

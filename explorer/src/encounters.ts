// Encounters as one table per version: who or where, how likely, at what levels, found how and
// under what conditions. A location area lists them by creature and a creature's encounters list
// them by location area; a player asks by version, so the rows are regrouped.
import type { CreatureEncounter, NamedRef } from '../../build/api-types.ts';
import { idOf } from './api.ts';
import { h, type Child } from './dom.ts';
import { refLink } from './record.ts';

/** One way of meeting a creature, whichever record it was read from. */
export interface EncounterRow {
  /** The creature met (on an area's page), or the area it is met in (on a creature's). */
  subject: NamedRef;
  chance: number;
  min_level: number;
  max_level: number;
  method: NamedRef;
  conditions: NamedRef[];
}

export interface VersionEncounters {
  version: NamedRef;
  rows: EncounterRow[];
}

/**
 * A creature's encounters as PokeAPI gives them (`/creature/<id>/encounters/`): by location area,
 * then version, then each way of meeting it there.
 */
export interface AreaEncounter {
  location_area: NamedRef;
  version_details: Array<{
    version: NamedRef;
    max_chance: number;
    encounter_details: Array<{
      chance: number;
      min_level: number;
      max_level: number;
      method: NamedRef;
      condition_values: NamedRef[];
    }>;
  }>;
}

type Details = Pick<EncounterRow, 'chance' | 'min_level' | 'max_level' | 'method'>;

const rowOf = (subject: NamedRef, { chance, min_level, max_level, method }: Details, conditions: NamedRef[]): EncounterRow => ({
  subject,
  chance,
  min_level,
  max_level,
  method,
  conditions,
});

/** Rows gathered by version, versions in id order, rows in the order they were given. */
function grouped(rows: Array<{ version: NamedRef; row: EncounterRow }>): VersionEncounters[] {
  const versions = new Map<string, VersionEncounters>();
  for (const { version, row } of rows) {
    const group = versions.get(version.url) ?? { version, rows: [] };
    group.rows.push(row);
    versions.set(version.url, group);
  }
  return [...versions.values()].sort((a, b) => idOf(a.version) - idOf(b.version));
}

/** A location area's encounters by version. */
export function byVersion(encounters: CreatureEncounter[]): VersionEncounters[] {
  return grouped(
    encounters.flatMap(({ creature, version_details }) =>
      version_details.map(({ version, encounter_details: d }) => ({
        version,
        row: rowOf(creature, d, d.condition_values ? [d.condition_values] : []),
      })),
    ),
  );
}

/** A creature's encounters by version, each of its ways of meeting a row. */
export function areasByVersion(encounters: AreaEncounter[]): VersionEncounters[] {
  return grouped(
    encounters.flatMap(({ location_area, version_details }) =>
      version_details.flatMap(({ version, encounter_details }) =>
        encounter_details.map((d) => ({ version, row: rowOf(location_area, d, d.condition_values) })),
      ),
    ),
  );
}

/** The columns after the first; each `col` takes its name in lower case as its class, which sizes it. */
const COLUMNS = ['Chance', 'Levels', 'Method', 'Conditions'];

/** A cell, labelled with its column so that a narrow screen can show each row as a card. */
const cell = (column: string, attrs: Record<string, string>, ...children: Child[]) =>
  h('td', { ...attrs, 'data-label': column }, ...children);

function row({ subject, chance, min_level, max_level, method, conditions }: EncounterRow): HTMLElement {
  return h(
    'tr',
    null,
    h('th', { scope: 'row' }, refLink(subject)),
    cell('Chance', { class: 'num' }, `${chance}%`),
    cell('Levels', { class: 'num' }, `${min_level}–${max_level}`),
    cell('Method', {}, refLink(method)),
    cell(
      'Conditions',
      {},
      conditions.length ? h('span', { class: 'chips' }, conditions.map(refLink)) : h('span', { class: 'muted' }, 'none'),
    ),
  );
}

function versionTable(subject: string, { version, rows }: VersionEncounters): HTMLElement {
  const count = `${rows.length} ${rows.length === 1 ? 'encounter' : 'encounters'}`;
  return h(
    'div',
    { class: 'table-wrap encounters' },
    h(
      'table',
      { 'data-version': version.name },
      h('caption', null, 'Version ', refLink(version), h('span', { class: 'muted' }, ` · ${count}`)),
      h(
        'colgroup',
        null,
        h('col', { class: 'subject' }),
        COLUMNS.map((c) => h('col', { class: c.toLowerCase() })),
      ),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          [subject, ...COLUMNS].map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h('tbody', null, rows.map(row)),
    ),
  );
}

/** Tables by version, the first column headed `subject`. */
export function renderByVersion(subject: string, groups: VersionEncounters[]): HTMLElement {
  return h(
    'div',
    { class: 'by-version' },
    groups.map((g) => versionTable(subject, g)),
  );
}

/** A location area's `creature_encounters` field drawn as tables by version. */
export function renderEncounters(value: unknown): HTMLElement {
  return renderByVersion('Creature', byVersion(value as CreatureEncounter[]));
}

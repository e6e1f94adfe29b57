// A location area's encounters as one table per version: which creature, how likely, at what
// levels, found how and under what condition. The record lists them by creature; a player asks
// by version, so the rows are regrouped.
import type { CreatureEncounter, EncounterDetails, NamedRef } from '../../build/api-types.ts';
import { idOf } from './api.ts';
import { h, type Child } from './dom.ts';
import { refLink } from './record.ts';

export interface EncounterRow {
  creature: NamedRef;
  details: EncounterDetails;
}

export interface VersionEncounters {
  version: NamedRef;
  rows: EncounterRow[];
}

/** The encounters by version, versions in id order, rows in the record's order. */
export function byVersion(encounters: CreatureEncounter[]): VersionEncounters[] {
  const versions = new Map<string, VersionEncounters>();
  for (const { creature, version_details } of encounters) {
    for (const { version, encounter_details } of version_details) {
      const group = versions.get(version.url) ?? { version, rows: [] };
      group.rows.push({ creature, details: encounter_details });
      versions.set(version.url, group);
    }
  }
  return [...versions.values()].sort((a, b) => idOf(a.version) - idOf(b.version));
}

/** The columns; each `col` takes its name in lower case as its class, which sizes it. */
const COLUMNS = ['Creature', 'Chance', 'Levels', 'Method', 'Conditions'];

/** A cell, labelled with its column so that a narrow screen can show each row as a card. */
const cell = (column: string, attrs: Record<string, string>, ...children: Child[]) =>
  h('td', { ...attrs, 'data-label': column }, ...children);

function row({ creature, details }: EncounterRow): HTMLElement {
  const condition = details.condition_values;
  return h(
    'tr',
    null,
    h('th', { scope: 'row' }, refLink(creature)),
    cell('Chance', { class: 'num' }, `${details.chance}%`),
    cell('Levels', { class: 'num' }, `${details.min_level}–${details.max_level}`),
    cell('Method', {}, refLink(details.method)),
    cell('Conditions', {}, condition ? refLink(condition) : h('span', { class: 'muted' }, 'none')),
  );
}

function versionTable({ version, rows }: VersionEncounters): HTMLElement {
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
        COLUMNS.map((c) => h('col', { class: c.toLowerCase() })),
      ),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          COLUMNS.map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h('tbody', null, rows.map(row)),
    ),
  );
}

/** The `creature_encounters` field drawn as tables by version. */
export function renderEncounters(value: unknown): HTMLElement {
  return h('div', { class: 'by-version' }, byVersion(value as CreatureEncounter[]).map(versionTable));
}

// The type chart: every attacking type (rows) against every defending type (columns), each cell its
// damage factor in words and colour, as it is now or as it was in a past generation.
import type { DamageRelations, Type } from '../../build/api-types.ts';
import { idOf, type NamedRef } from './api.ts';
import { h } from './dom.ts';
import { refLink } from './record.ts';

export type Factor = 0 | 0.5 | 1 | 2;

/** The attacking lists of a type's relations and the factor each stands for. */
const ATTACKING: ReadonlyArray<[keyof DamageRelations, Factor]> = [
  ['no_damage_to', 0],
  ['half_damage_to', 0.5],
  ['double_damage_to', 2],
];

/** What a cell says, so the factor reads without its colour. */
const TEXT: Record<Factor, string> = { 0: '0×', 0.5: '½×', 1: '1×', 2: '2×' };
const MEANING: Record<Factor, string> = { 2: 'super effective', 1: 'normal damage', 0.5: 'not very effective', 0: 'no effect' };

export interface ChartType {
  ref: NamedRef;
  record: Type;
}

export interface Era {
  /** The generation's slug, as written in the route; undefined for the relations of today. */
  name?: string;
  id?: number;
  label: string;
}

/**
 * A type's relations in a generation: its earliest past entry at or after that generation (each
 * entry holds the relations up to and including its generation), else today's.
 */
export function relationsIn(type: Type, generationId: number | undefined): DamageRelations {
  if (generationId === undefined) return type.damage_relations;
  const then = type.past_damage_relations
    .filter((p) => idOf(p.generation) >= generationId)
    .sort((a, b) => idOf(a.generation) - idOf(b.generation))[0];
  return then?.damage_relations ?? type.damage_relations;
}

/** The attacker's row: defender name → factor, for every type the row names (the rest are 1×). */
export function attackingRow(type: Type, generationId: number | undefined): Map<string, Factor> {
  const relations = relationsIn(type, generationId);
  const row = new Map<string, Factor>();
  for (const [field, factor] of ATTACKING) for (const ref of relations[field]) row.set(ref.name, factor);
  return row;
}

function cell(attacker: string, defender: string, factor: Factor): HTMLElement {
  return h(
    'td',
    { class: `factor f${String(factor).replace('.', '')}`, 'data-attacker': attacker, 'data-defender': defender, 'data-factor': factor },
    h('span', { title: `${attacker} → ${defender}: ${TEXT[factor]}, ${MEANING[factor]}` }, TEXT[factor]),
  );
}

/** The types that existed in an era: a type's `generation` is the one that introduced it. */
export function typesIn(types: ChartType[], era: Era): ChartType[] {
  return era.id === undefined ? types : types.filter((t) => idOf(t.record.generation) <= era.id!);
}

function chartTable(all: ChartType[], era: Era): HTMLElement {
  const when = era.id === undefined ? 'today' : era.label;
  const types = typesIn(all, era);
  return h(
    'table',
    { class: 'type-chart', 'data-generation': era.name ?? '' },
    h('caption', null, `Attacking type (row) on defending type (column), ${when}`),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', { scope: 'col', class: 'corner' }, h('span', null, 'Attacker ↓'), h('span', null, 'Defender →')),
        types.map((t) => h('th', { scope: 'col', class: 'defender' }, refLink(t.ref))),
      ),
    ),
    h(
      'tbody',
      null,
      types.map((attacker) => {
        const row = attackingRow(attacker.record, era.id);
        return h(
          'tr',
          null,
          h('th', { scope: 'row', class: 'attacker' }, refLink(attacker.ref)),
          types.map((defender) => cell(attacker.ref.name, defender.ref.name, row.get(defender.ref.name) ?? 1)),
        );
      }),
    ),
  );
}

function legend(): HTMLElement {
  const factors: Factor[] = [2, 1, 0.5, 0];
  return h(
    'dl',
    { class: 'chart-legend', 'aria-label': 'Legend' },
    factors.map((f) => h('div', null, h('dt', { class: `factor f${String(f).replace('.', '')}` }, TEXT[f]), h('dd', null, MEANING[f]))),
  );
}

export interface ChartView {
  types: ChartType[];
  /** Today first, then every generation, oldest first. */
  eras: Era[];
  era: Era;
  /** Called with the era picked, after the table is redrawn for it. */
  onPick: (era: Era) => void;
}

/** The chart's page: a heading, the generation picker, the legend and the table. */
export function renderTypeChart({ types, eras, era, onPick }: ChartView): HTMLElement {
  // A square of every type against every type is wider than a phone: it scrolls sideways.
  const wrap = h('div', { class: 'table-wrap chart-wrap', 'data-scroll': 'x' }, chartTable(types, era));
  const picker = h(
    'select',
    { id: 'chart-generation' },
    eras.map((e) => h('option', { value: e.name ?? '', selected: e === era }, e.label)),
  );
  picker.addEventListener('change', () => {
    const picked = eras[picker.selectedIndex]!;
    wrap.replaceChildren(chartTable(types, picked));
    onPick(picked);
  });
  return h(
    'section',
    { class: 'chart' },
    h('h1', null, 'Type chart'),
    h(
      'p',
      { class: 'lede' },
      `How much damage a move of each type does to a creature of each type; a past generation shows the types that existed then. A type's name opens its record.`,
    ),
    h('div', { class: 'chart-tools' }, h('label', { for: 'chart-generation' }, 'Generation'), picker, legend()),
    wrap,
  );
}

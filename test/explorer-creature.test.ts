// A creature's page as a Pokédex shows it, in a real headless Chromium at a phone's width and at a
// desktop's: its types, base stats, abilities (the hidden one marked), its species' evolution
// chain, where it is met and its moves by version group, each checked against what the API
// answers. The starter world's first creature is given abilities and moves in a copy of the world.
// A chain that branches, with a baby, is laid over the built output in PokeAPI's shape and seen on
// its own page; where the API has no chain or encounters for the creature, they are laid the same
// way. A creature whose API has neither shows neither. Then the generic view's newer shapes: a
// reference by url alone, ids 0 and -1, a nested object, and a form's trigger conditions whole (one
// naming no record given to a form in the copy). Screenshots go to test-results/.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse, stringify } from 'yaml';
import type { Creature, NamedRef } from '../build/api-types.ts';
import { projectRoot } from '../build/paths.ts';
import { build } from '../build/pipeline/build.ts';
import { launchChromium } from './browser.ts';
import { fixtureWorld, serve } from './helpers.ts';

const BASE = 'http://localhost:3000';
const shots = path.join(projectRoot, 'test-results');
const WIDTHS = [
  { name: 'phone', viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
  { name: 'desktop', viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, isMobile: false, hasTouch: false },
] as const;

/** The creature given everything a Pokédex shows, and one left as the starter world has it. */
const DEX = 'emberpup';
const PLAIN = 'tidefin';
/** A form given a trigger condition that names no record, beside the two it has. */
const GMAX_FORM = 'emberpup-blaze';

/** An ability of the test's own, the creature's hidden one; its id clear of the starter world's. */
const HIDDEN_ABILITY = {
  id: 901,
  name: 'cinder-veil',
  names: [
    { name: 'Cinder Veil', language: 'en' },
    { name: 'Voile de Cendre', language: 'fr' },
  ],
  effect_entries: [
    {
      effect: 'Halves the damage of fire moves taken, and raises Defense when hit by one.',
      short_effect: 'Halves fire damage taken.',
      language: 'en',
    },
    {
      effect: 'Divise par deux les dégâts des capacités de feu subies.',
      short_effect: 'Divise par deux les dégâts de feu.',
      language: 'fr',
    },
  ],
};

/** Its size; its moves in two version groups, by each method, a tie in level broken by `order`. */
const DEX_FIELDS = {
  height: 7,
  weight: 69,
  base_experience: 64,
  abilities: [
    { ability: HIDDEN_ABILITY.name, is_hidden: true, slot: 3 },
    { ability: 'blaze-heart', is_hidden: false, slot: 1 },
  ],
  moves: [
    { move: 'ember-bite', version_group_details: [learnt(7, 'level-up', 'dawn-dusk', 2), learnt(5, 'level-up', 'tide-ember')] },
    { move: 'quick-strike', version_group_details: [learnt(7, 'level-up', 'dawn-dusk', 1), learnt(1, 'level-up', 'tide-ember')] },
    { move: 'blaze-awakening', version_group_details: [learnt(0, 'machine', 'tide-ember')] },
    { move: 'iron-wall', version_group_details: [learnt(0, 'egg', 'dawn-dusk')] },
    { move: 'growth-song', version_group_details: [learnt(1, 'level-up', 'dawn-dusk')] },
  ],
};

function learnt(level: number, method: string, group: string, order: number | null = null) {
  return { level_learned_at: level, move_learn_method: method, order, version_group: group };
}

let site: { root: string; out: string; url: string; close: () => Promise<void> };
let browser: Browser;
const errors: string[] = [];
/** What the test laid over the output, that the API did not have. */
const laid: string[] = [];

beforeAll(async () => {
  const world = await fixtureWorld();
  await fs.writeFile(path.join(world.data, 'ability', `${HIDDEN_ABILITY.name}.yaml`), stringify(HIDDEN_ABILITY));
  const file = path.join(world.data, 'creature', `${DEX}.yaml`);
  await fs.writeFile(file, stringify({ ...parse(await fs.readFile(file, 'utf8')), ...DEX_FIELDS }));
  const form = path.join(world.data, 'creature-form', `${GMAX_FORM}.yaml`);
  const formRecord = parse(await fs.readFile(form, 'utf8'));
  formRecord.trigger_conditions.push({ trigger: 'gigantamax-factor' });
  await fs.writeFile(form, stringify(formRecord));
  await build({ dataDir: world.data, outDir: world.out, baseUrl: BASE });
  const server = await serve(world.out);
  site = { ...world, ...server };
  await layWhatIsMissing();
  console.log(laid.length ? `laid over the output, which the API does not publish: ${laid.join(', ')}` : 'the API has every part');
  await fs.mkdir(shots, { recursive: true });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await fs.rm(site.root, { recursive: true, force: true });
});

async function answer(rest: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${site.url}/api/v2/${rest}`);
  return { status: res.status, body: res.status === 200 ? await res.json() : undefined };
}

async function getJson<T>(rest: string): Promise<T> {
  const { status, body } = await answer(rest);
  expect(status, rest).toBe(200);
  return body as T;
}

const idOf = (ref: { url: string }) => Number(/\/(-?\d+)\/?$/.exec(ref.url)![1]);
const restOf = (url: string) => url.slice(url.indexOf('/api/v2/') + '/api/v2/'.length).replace(/\/?$/, '/');
const ref = (kind: string, name: string, id: number): NamedRef => ({ name, url: `${BASE}/api/v2/${kind}/${id}/` });

/** A creature's encounters, at the file a static host serves for `/api/v2/creature/<id>/encounters/`. */
const encountersOf = (creature: Creature) => `creature/${creature.id}/encounters/index.json`;

interface AbilityRecord {
  names: Array<{ name: string; language: NamedRef }>;
  effect_entries?: Array<{ short_effect: string; language: NamedRef }>;
}

const english = <T extends { language: NamedRef }>(entries: T[]) => entries.find((e) => e.language.name === 'en');

async function creatureNamed(name: string): Promise<Creature> {
  return getJson<Creature>(`creature/${name}/`);
}

/** A record file of the output, read and written where the page reads it. */
const recordFile = (kind: string, id: number) => path.join(site.out, 'api', 'v2', kind, String(id), 'index.json');

/**
 * The encounters sub-resource and the evolution chain of the creature given everything, laid
 * over the output in PokeAPI's shape where the API has none: the encounters gathered from the
 * location areas' records, a chain that branches, with a baby and conditions of several kinds.
 */
async function layWhatIsMissing(): Promise<void> {
  const creature = await creatureNamed(DEX);
  if ((await answer(encountersOf(creature))).status === 404) {
    const file = path.join(site.out, 'api', 'v2', 'creature', String(creature.id), 'encounters', 'index.json');
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, JSON.stringify(await encountersFromAreas(creature)));
    laid.push('encounters');
  }
  // The branching chain is always laid, beside the world's own, to be seen on its own page.
  const chain = await branchingChain(creature.species);
  await fs.mkdir(path.dirname(recordFile('evolution-chain', chain.id)), { recursive: true });
  await fs.writeFile(recordFile('evolution-chain', chain.id), JSON.stringify(chain));
  const species = await getJson<Record<string, unknown>>(`creature-species/${idOf(creature.species)}/`);
  if (!species.evolution_chain) {
    for (const s of speciesIn(chain.chain)) {
      const file = recordFile('creature-species', idOf(s));
      const record = JSON.parse(await fs.readFile(file, 'utf8'));
      await fs.writeFile(file, JSON.stringify({ ...record, evolution_chain: { url: `${BASE}/api/v2/evolution-chain/${chain.id}/` } }));
    }
    laid.push('evolution chain');
  }
}

interface AreaEncounter {
  location_area: NamedRef;
  version_details: Array<{
    version: NamedRef;
    max_chance: number;
    encounter_details: Array<{ chance: number; min_level: number; max_level: number; method: NamedRef; condition_values: NamedRef[] }>;
  }>;
}

async function encountersFromAreas(creature: Creature): Promise<AreaEncounter[]> {
  const list = await getJson<{ results: NamedRef[] }>('location-area/');
  const out: AreaEncounter[] = [];
  for (const item of list.results) {
    const area = await getJson<{ creature_encounters: Array<{ creature: NamedRef; version_details: Array<Record<string, any>> }> }>(
      `location-area/${idOf(item)}/`,
    );
    const versions = new Map<string, AreaEncounter['version_details'][number]>();
    for (const e of area.creature_encounters.filter((e) => e.creature.name === creature.name))
      for (const { version, encounter_details: d } of e.version_details) {
        const v = versions.get(version.name) ?? { version, max_chance: 0, encounter_details: [] };
        v.encounter_details.push({ ...d, condition_values: d.condition_values ? [d.condition_values] : [] } as never);
        v.max_chance += d.chance;
        versions.set(version.name, v);
      }
    if (versions.size) out.push({ location_area: item, version_details: [...versions.values()] });
  }
  expect(out.length).toBeGreaterThan(0);
  return out;
}

interface ChainLink {
  species: NamedRef;
  is_baby: boolean;
  evolution_details: Array<Record<string, unknown>>;
  evolves_to: ChainLink[];
}
interface EvolutionChain {
  id: number;
  baby_trigger_item: NamedRef | null;
  chain: ChainLink;
}

/** PokeAPI's evolution detail: every condition unset but those given. */
function detail(given: Record<string, unknown>): Record<string, unknown> {
  const unset = Object.fromEntries(
    [
      'base_form',
      'evolved_form',
      'gender',
      'held_item',
      'item',
      'known_move',
      'known_move_type',
      'location',
      'min_affection',
      'min_beauty',
      'min_damage_taken',
      'min_happiness',
      'min_level',
      'min_move_count',
      'min_steps',
      'party_species',
      'party_type',
      'region',
      'relative_physical_stats',
      'trade_species',
      'used_move',
      'version_group',
    ].map((k) => [k, null]),
  );
  const flags = {
    is_default: true,
    near_special_rock: false,
    needs_multiplayer: false,
    needs_overworld_rain: false,
    turn_upside_down: false,
  };
  return { ...unset, ...flags, time_of_day: '', ...given };
}

/** A baby before the creature's species, and two species it becomes, one by level and one by an item at night. */
/** The id of the chain the test lays: clear of the world's own. */
const LAID_CHAIN = 9001;

async function branchingChain(own: NamedRef): Promise<EvolutionChain> {
  const all = (await getJson<{ results: NamedRef[] }>('creature-species/')).results.filter((s) => s.name !== own.name);
  const [baby, byLevel, byItem] = all;
  const item = (await getJson<{ results: NamedRef[] }>('item/')).results[0]!;
  const levelUp = ref('evolution-trigger', 'level-up', 1);
  return {
    id: LAID_CHAIN,
    baby_trigger_item: item,
    chain: {
      species: baby!,
      is_baby: true,
      evolution_details: [],
      evolves_to: [
        {
          species: own,
          is_baby: false,
          evolution_details: [detail({ trigger: levelUp, min_happiness: 160 })],
          evolves_to: [
            { species: byLevel!, is_baby: false, evolution_details: [detail({ trigger: levelUp, min_level: 16 })], evolves_to: [] },
            {
              species: byItem!,
              is_baby: false,
              evolution_details: [
                detail({ trigger: ref('evolution-trigger', 'use-item', 3), item, time_of_day: 'night' }),
                detail({ trigger: levelUp, relative_physical_stats: 0, is_default: false }),
              ],
              evolves_to: [],
            },
          ],
        },
      ],
    },
  };
}

function speciesIn(link: ChainLink): NamedRef[] {
  return [link.species, ...link.evolves_to.flatMap(speciesIn)];
}

/** The chain as the page should show it: each stage's species, whether it is the creature's, how it is reached. */
interface Stage {
  species: string;
  current: boolean;
  ways: string[][];
  next: Stage[];
}

/** Each way, as words: its trigger, then each condition it sets, as `name value` (a flag by its name alone). */
function expectedStage(link: ChainLink, own: string): Stage {
  const ways = link.evolution_details.map((d) => [
    (d.trigger as NamedRef).name,
    ...Object.entries(d)
      .filter(([k, v]) => k !== 'trigger' && k !== 'is_default' && v !== null && v !== false && v !== '')
      .map(([k, v]) => {
        const words = k.replace(/_/g, ' ');
        if (v === true) return words;
        return `${words} ${typeof v === 'object' ? (v as NamedRef).name : String(v)}`;
      }),
  ]);
  return { species: link.species.name, current: link.species.name === own, ways, next: link.evolves_to.map((n) => expectedStage(n, own)) };
}

/** Runs in the page: the chain drawn in `root`. */
function shownStages(root: string): Stage {
  const read = (el: Element): Stage => {
    const species = el.querySelector(':scope > .evo-species')!;
    const ways = (li: Element) =>
      [...li.querySelectorAll(':scope > .evo-how .evo-ways > li')].map((way) =>
        // A condition is its name, then its value where it has one.
        [...way.children].map((c) =>
          c.children.length ? [...c.children].map((p) => p.textContent!.trim()).join(' ') : c.textContent!.trim(),
        ),
      );
    const next = [...el.querySelectorAll(':scope > .evo-next > li')];
    return {
      species: species.querySelector('a')!.textContent!.trim(),
      current: species.hasAttribute('aria-current'),
      ways: [],
      next: next.map((li) => ({ ...read(li.querySelector(':scope > .evo-stage')!), ways: ways(li) })),
    };
  };
  return read(document.querySelector(`${root} .evolution > .evo-stage`)!);
}

/** A version group's moves as the page lists them: by level first, in level and then `order`, then by method. */
function expectedMoves(creature: Creature, methodIds: Map<string, number>): Map<string, string[][]> {
  const groups = new Map<string, Array<{ row: string[]; key: [number, number, number, number, string] }>>();
  for (const { move, version_group_details } of creature.moves)
    for (const d of version_group_details) {
      const byLevel = d.move_learn_method.name === 'level-up';
      const rows = groups.get(d.version_group.name) ?? [];
      rows.push({
        row: [byLevel || d.level_learned_at > 0 ? String(d.level_learned_at) : '—', move.name, d.move_learn_method.name],
        key: [byLevel ? 0 : 1, methodIds.get(d.move_learn_method.name)!, d.level_learned_at, d.order ?? 0, move.name],
      });
      groups.set(d.version_group.name, rows);
    }
  const compare = (a: (number | string)[], b: (number | string)[]): number => {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
    return 0;
  };
  return new Map([...groups].map(([g, rows]) => [g, rows.sort((a, b) => compare(a.key, b.key)).map((r) => r.row)]));
}

async function movesShown(page: Page): Promise<{ group: string | null; rows: string[][]; caption: string }> {
  return page.locator('.dex[data-part="moves"] table').evaluate((t) => ({
    group: t.getAttribute('data-version-group'),
    rows: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent!.trim())),
    caption: t.querySelector('caption')!.textContent!,
  }));
}

/**
 * Runs in the page: what of the record runs off the screen, outside the boxes meant to scroll
 * sideways and the text for screen readers only, drawn in a box of one pixel.
 */
function offScreen(): string[] {
  const screen = document.documentElement.clientWidth;
  const out: string[] = [];
  if (document.documentElement.scrollWidth > screen + 1) out.push(`page ${document.documentElement.scrollWidth} px wide`);
  const walk = (el: Element) => {
    if (!el.checkVisibility() || (el as HTMLElement).dataset.scroll === 'x') return;
    const box = el.getBoundingClientRect();
    if (getComputedStyle(el).clip !== 'auto' && box.width <= 1) return;
    if (box.width > 0 && (box.right > screen + 1 || box.left < -1))
      out.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')} “${el.textContent?.trim().slice(0, 30)}”`);
    for (const child of el.children) walk(child);
  };
  walk(document.querySelector('.record')!);
  return out;
}

async function open(page: Page, creature: Creature): Promise<void> {
  // A new page each time: the same url again would only keep the one drawn.
  await page.goto('about:blank');
  await page.goto(`${site.url}/#/creature/${creature.id}`);
  await page.locator(`.record[data-kind="creature"][data-id="${creature.id}"]`).waitFor();
}

describe.each(WIDTHS)('a creature at $viewport.width px', ({ name: width, ...options }) => {
  let page: Page;
  beforeAll(async () => {
    page = await browser.newPage(options);
    page.on('pageerror', (err) => errors.push(`${width}: ${err.message}`));
  });
  afterAll(() => page?.close());

  test('shows its types, base stats and abilities, the hidden one marked', async () => {
    const creature = await creatureNamed(DEX);
    await open(page, creature);
    // Its size in metres and kilograms: the record gives decimetres and hectograms.
    const profile = await page
      .locator('.dex[data-part="profile"] .fact')
      .evaluateAll((facts) => facts.map((f) => [f.getAttribute('data-field'), f.querySelector('dd')!.textContent]));
    expect(profile).toEqual([
      ['height', `${creature.height! / 10} m`],
      ['weight', `${creature.weight! / 10} kg`],
      ['base_experience', String(creature.base_experience)],
    ]);
    expect(profile.slice(0, 2).map(([, text]) => text)).toEqual(['0.7 m', '6.9 kg']);
    const types = [...creature.types].sort((a, b) => a.slot - b.slot).map((t) => t.type.name);
    expect(await page.locator('.record-head .chip.type').allTextContents()).toEqual(types);

    const stats = await page.locator('.dex[data-part="stats"] .stat[data-stat]').evaluateAll((rows) =>
      rows.map((r) => ({
        stat: r.getAttribute('data-stat'),
        value: r.querySelector('.value')!.textContent,
        bar: (r.querySelector('.bar span') as HTMLElement).getBoundingClientRect().width,
        track: r.querySelector('.bar')!.getBoundingClientRect().width,
      })),
    );
    expect(stats.map((s) => [s.stat, s.value])).toEqual(creature.stats.map((s) => [s.stat.name, String(s.base_stat)]));
    // Each bar is its value's share of the highest a stat can be.
    stats.forEach((s, i) => expect(s.bar / s.track).toBeCloseTo(creature.stats[i]!.base_stat / 255, 2));
    const total = creature.stats.reduce((sum, s) => sum + s.base_stat, 0);
    expect(await page.locator('.dex[data-part="stats"] .stat.total .value').textContent()).toBe(String(total));
    // A stat goes by its English name, from its record.
    const hp = await getJson<{ names: Array<{ name: string; language: NamedRef }> }>('stat/hp/');
    expect(await page.locator('.stat[data-stat="hp"] dt').textContent()).toBe(english(hp.names)!.name);
    for (const s of creature.stats.filter((s) => s.effort > 0))
      expect(await page.locator(`.effort [data-stat="${s.stat.name}"]`).textContent()).toMatch(new RegExp(`^${s.effort} `));

    const abilities = await page.locator('.dex[data-part="abilities"] li').evaluateAll((items) =>
      items.map((li) => ({
        ability: li.querySelector('a')!.textContent,
        href: li.querySelector('a')!.getAttribute('href'),
        hidden: !!li.querySelector('.badge'),
        slot: li.querySelector('.slot')!.textContent,
        effect: li.querySelector('.effect')?.textContent ?? null,
      })),
    );
    // Each by its English name and with what it does in short, from its record, where it says.
    const expected = await Promise.all(
      [...creature.abilities]
        .sort((a, b) => a.slot - b.slot)
        .map(async ({ ability, is_hidden, slot }) => {
          const record = await getJson<AbilityRecord>(`ability/${idOf(ability!)}/`);
          return {
            ability: english(record.names)?.name ?? ability!.name,
            href: `#/ability/${idOf(ability!)}`,
            hidden: is_hidden,
            slot: `slot ${slot}`,
            effect: english(record.effect_entries ?? [])?.short_effect ?? null,
          };
        }),
    );
    expect(abilities).toEqual(expected);
    expect(abilities.some((a) => a.hidden && a.effect === HIDDEN_ABILITY.effect_entries[0]!.short_effect)).toBe(true);
    // The fields drawn as sections are not drawn again as tables.
    expect(await page.locator('.part[data-field="stats"], .part[data-field="abilities"], .part[data-field="moves"]').count()).toBe(0);
    expect(await page.evaluate(offScreen)).toEqual([]);
  });

  test('shows its moves by version group, the latest first, each group on picking it', async () => {
    const creature = await creatureNamed(DEX);
    const methods = await getJson<{ results: NamedRef[] }>('move-learn-method/');
    const expected = expectedMoves(creature, new Map(methods.results.map((m) => [m.name, idOf(m)])));
    const groups = await getJson<{ results: NamedRef[] }>('version-group/');
    const order = groups.results.filter((g) => expected.has(g.name)).map((g) => g.name);
    expect(order.length).toBe(2);

    await open(page, creature);
    const picker = page.locator('#moves-version-group');
    expect(await picker.locator('option').allTextContents()).toEqual(order);
    expect(await picker.inputValue()).toBe(order[order.length - 1]);
    for (const group of [...order].reverse()) {
      await picker.selectOption(group);
      const shown = await movesShown(page);
      expect(shown.group).toBe(group);
      expect(shown.rows, group).toEqual(expected.get(group));
      expect(shown.caption).toContain(`${expected.get(group)!.length} moves`);
      expect(await page.evaluate(offScreen), group).toEqual([]);
    }
    // A move's name opens the move.
    const first = creature.moves.find((m) => m.version_group_details.some((d) => d.version_group.name === order[0]))!;
    expect(await page.locator(`.dex[data-part="moves"] tbody a[href="#/move/${idOf(first.move)}"]`).count()).toBe(1);
  });

  test("shows its species' evolution chain, the creature's stage marked, each way and condition", async () => {
    const creature = await creatureNamed(DEX);
    const species = await getJson<{ evolution_chain: { url: string } }>(`creature-species/${idOf(creature.species)}/`);
    const chain = await getJson<EvolutionChain>(restOf(species.evolution_chain.url));
    await open(page, creature);
    await page.locator('.dex[data-part="evolution"]').waitFor();
    expect(await page.evaluate(shownStages, '.dex[data-part="evolution"]')).toEqual(expectedStage(chain.chain, creature.species.name));
    const baby = page.locator('.evo-species', { has: page.locator('.badge') });
    expect(await baby.locator('a').allTextContents()).toEqual(
      speciesIn(chain.chain)
        .filter((s) => findLink(chain.chain, s.name)!.is_baby)
        .map((s) => s.name),
    );
    if (chain.baby_trigger_item) expect(await page.locator('.evo-note').textContent()).toContain(chain.baby_trigger_item.name);
    await page.screenshot({ path: path.join(shots, `explorer-${width}-creature.png`), fullPage: true });
    expect(await page.evaluate(offScreen)).toEqual([]);
  });

  test("an evolution chain's own page is its tree: branches, a baby, several ways to one stage", async () => {
    const chain = await getJson<EvolutionChain>(`evolution-chain/${LAID_CHAIN}/`);
    await page.goto('about:blank');
    await page.goto(`${site.url}/#/evolution-chain/${LAID_CHAIN}`);
    await page.locator('.record .part[data-field="chain"] .evolution').waitFor();
    expect(await page.evaluate(shownStages, '.part[data-field="chain"]')).toEqual(expectedStage(chain.chain, ''));
    expect(await page.locator('.part[data-field="chain"] .evo-species .badge').count()).toBe(1);
    expect(await page.evaluate(offScreen)).toEqual([]);
  });

  test('shows where and how it is met, by version', async () => {
    const creature = await creatureNamed(DEX);
    const encounters = await getJson<AreaEncounter[]>(encountersOf(creature));
    const byVersion = new Map<string, { id: number; rows: string[][] }>();
    for (const { location_area, version_details } of encounters)
      for (const { version, encounter_details } of version_details)
        for (const d of encounter_details) {
          const group = byVersion.get(version.name) ?? { id: idOf(version), rows: [] };
          const conditions = d.condition_values.map((c) => c.name).join('') || 'none';
          group.rows.push([location_area.name, `${d.chance}%`, `${d.min_level}–${d.max_level}`, d.method.name, conditions]);
          byVersion.set(version.name, group);
        }
    const expected = [...byVersion].sort(([, a], [, b]) => a.id - b.id);
    await open(page, creature);
    const shown = await page.locator('.dex[data-part="encounters"] table').evaluateAll((tables) =>
      tables.map((t) => ({
        version: t.getAttribute('data-version'),
        headers: [...t.querySelectorAll('thead th')].map((th) => th.textContent),
        rows: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent!.trim())),
      })),
    );
    expect(shown.map((s) => s.version)).toEqual(expected.map(([v]) => v));
    shown.forEach((table, i) => {
      expect(table.headers).toEqual(['Location area', 'Chance', 'Levels', 'Method', 'Conditions']);
      expect(table.rows).toEqual(expected[i]![1].rows);
    });
    expect(await page.evaluate(offScreen)).toEqual([]);
  });

  test('a creature without abilities or moves shows its stats, and only what the API has of the rest', async () => {
    const creature = await creatureNamed(PLAIN);
    await open(page, creature);
    await page.locator('.dex[data-part="stats"]').waitFor();
    expect(await page.locator('.dex[data-part="abilities"], .dex[data-part="moves"]').count()).toBe(0);
    const encounters = await answer(encountersOf(creature));
    expect(await page.locator('.dex[data-part="encounters"]').count()).toBe(encounters.status === 200 ? 1 : 0);
    const species = await getJson<{ evolution_chain?: unknown }>(`creature-species/${idOf(creature.species)}/`);
    expect(await page.locator('.dex[data-part="evolution"]').count()).toBe(species.evolution_chain ? 1 : 0);
    expect(await page.evaluate(offScreen)).toEqual([]);
    expect(errors).toEqual([]);
  });
});

/** A record's first field holding a plain object that is no reference (a move's `meta`), with the record. */
async function nestedObject(): Promise<{ kind: string; id: number; field: string; value: Record<string, unknown> }> {
  const isRef = (v: Record<string, unknown>) => typeof v.url === 'string' && Object.keys(v).every((k) => k === 'name' || k === 'url');
  for (const kind of ['move', 'item', 'creature-species', 'stat']) {
    const list = await getJson<{ results: Array<{ url: string }> }>(`${kind}/`);
    for (const item of list.results) {
      const record = await getJson<Record<string, unknown>>(`${kind}/${idOf(item)}/`);
      for (const [field, value] of Object.entries(record))
        if (value && typeof value === 'object' && !Array.isArray(value) && !isRef(value as Record<string, unknown>) && field !== 'sprites')
          return { kind, id: idOf(item), field, value: value as Record<string, unknown> };
    }
  }
  throw new Error('no record holds a nested object');
}

/** A record whose id is 0 or below, as PokeAPI has them, from the lists of every kind. */
async function idBelowOne(): Promise<{ kind: string; id: number }> {
  const index = await getJson<Record<string, string>>('');
  for (const kind of Object.keys(index).filter((k) => k !== 'meta')) {
    const list = await getJson<{ results: Array<{ url: string }> }>(`${kind}/`);
    const found = list.results.find((r) => idOf(r) < 1);
    if (found) return { kind, id: idOf(found) };
  }
  throw new Error('no record has an id below 1');
}

describe.each(WIDTHS)("the generic record view's new shapes at $viewport.width px", ({ name: width, ...options }) => {
  let page: Page;
  beforeAll(async () => {
    page = await browser.newPage(options);
    page.on('pageerror', (err) => errors.push(`${width}: ${err.message}`));
  });
  afterAll(() => page?.close());

  test('a reference by url alone is a link named by its kind and id', async () => {
    const creature = await creatureNamed(DEX);
    const species = await getJson<{ evolution_chain: { url: string } }>(`creature-species/${idOf(creature.species)}/`);
    const id = idOf(species.evolution_chain);
    await page.goto('about:blank');
    await page.goto(`${site.url}/#/creature-species/${idOf(creature.species)}`);
    const link = page.locator(`.record .part a[href="#/evolution-chain/${id}"]`);
    await link.waitFor();
    expect(await link.textContent()).toBe(`Evolution chain #${id}`);
    expect(await page.evaluate(offScreen)).toEqual([]);
  });

  test('a record of id 0 or -1 is listed, found by its id and opened', async () => {
    const { kind, id } = await idBelowOne();
    await page.goto('about:blank');
    await page.goto(`${site.url}/#/${kind}`);
    await page.fill('#search', String(id));
    await expect.poll(() => page.locator('#results li a').first().getAttribute('href')).toBe(`#/${kind}/${id}`);
    await page.press('#search', 'Enter');
    await page
      .locator(`.record[data-kind="${kind}"][data-id="${id}"] .crumbs .id`)
      .filter({ hasText: `#${id}` })
      .waitFor();
    expect(await page.evaluate(offScreen)).toEqual([]);
  });

  test('a form shows its trigger conditions whole, as its sub-resource gives them: one naming no record too', async () => {
    const whole = await getJson<Array<{ trigger: string; name?: string; url?: string }>>(`creature-form/${GMAX_FORM}/trigger-conditions/`);
    const own = (await getJson<{ trigger_conditions: unknown[] }>(`creature-form/${GMAX_FORM}/`)).trigger_conditions;
    expect(whole.map((c) => c.trigger)).toEqual(['held-item', 'move', 'gigantamax-factor']);
    expect(own).toHaveLength(2);
    await page.goto('about:blank');
    await page.goto(`${site.url}/#/creature-form/${GMAX_FORM}`);
    const section = page.locator('.record .part[data-field="trigger_conditions"]');
    await section.waitFor();
    const text = await section.textContent();
    for (const condition of whole) expect(text).toContain(condition.trigger);
    // A condition that names a record links to it, as the form's own list does.
    for (const { name, url } of whole.filter((c) => c.url)) {
      expect(text).toContain(name);
      expect(await section.locator(`a[href="#/${restOf(url!).slice(0, -1)}"]`).count()).toBeGreaterThan(0);
    }
    expect(await page.evaluate(offScreen)).toEqual([]);
    await page.screenshot({ path: path.join(shots, `explorer-${width}-form-trigger-conditions.png`), fullPage: true });
  });

  test("a nested object (a move's meta) is its fields, each reference in it a link", async () => {
    const { kind, id, field, value } = await nestedObject();
    await page.goto('about:blank');
    await page.goto(`${site.url}/#/${kind}/${id}`);
    const section = page.locator(`.record .part[data-field="${field}"]`);
    await section.waitFor();
    const labels = await section.locator(':scope > dl.fields > .field > dt').allTextContents();
    expect(labels.map((l) => l.toLowerCase())).toEqual(Object.keys(value).map((k) => k.replace(/_/g, ' ')));
    for (const ref of Object.values(value).filter((v): v is NamedRef => !!v && typeof v === 'object' && 'url' in v && 'name' in v))
      expect(
        await section
          .locator(`a[href="#/${restOf(ref.url).slice(0, -1)}"]`)
          .first()
          .textContent(),
      ).toBe(ref.name);
    expect(await page.evaluate(offScreen)).toEqual([]);
    expect(errors).toEqual([]);
  });
});

function findLink(link: ChainLink, name: string): ChainLink | undefined {
  if (link.species.name === name) return link;
  for (const next of link.evolves_to) {
    const found = findLink(next, name);
    if (found) return found;
  }
  return undefined;
}

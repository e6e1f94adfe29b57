// The explorer's type chart and a location area's encounter tables, in a real headless Chromium
// over the starter world. What the page shows is checked against what the API answers, computed
// here from the records. Screenshots go to test-results/.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import type { DamageRelations, LocationArea, NamedRef, Type } from '../build/api-types.ts';
import { explorerSite, launchChromium, type ExplorerSite } from './browser.ts';

const shots = path.join(projectRoot, 'test-results');

let site: ExplorerSite;
let browser: Browser;
let page: Page;
const errors: string[] = [];

beforeAll(async () => {
  site = await explorerSite();
  await fs.mkdir(shots, { recursive: true });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (err) => errors.push(err.message));
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

async function getJson<T>(rest: string): Promise<T> {
  const res = await fetch(`${site.url}/api/v2/${rest}`);
  expect(res.status, rest).toBe(200);
  return (await res.json()) as T;
}

/** Every record of a kind, from the API, in its list's order. */
async function all<T>(kind: string): Promise<T[]> {
  const list = await getJson<{ results: NamedRef[] }>(`${kind}/`);
  return Promise.all(list.results.map((ref) => getJson<T>(`${kind}/${idOf(ref)}/`)));
}

const idOf = (ref: NamedRef) => Number(/\/(\d+)\/$/.exec(ref.url)![1]);
const TEXT: Record<string, string> = { no_damage_to: '0×', half_damage_to: '½×', double_damage_to: '2×' };

/**
 * The chart as the records give it, attacker → defender → the factor's text, among the types that
 * existed in the generation (a type's own generation introduced it). A past entry holds a type's
 * relations up to and including its generation, so a generation takes the earliest entry at or
 * after it, and today's relations when there is none.
 */
function expectedChart(all: Type[], generationId?: number): Record<string, Record<string, string>> {
  const chart: Record<string, Record<string, string>> = {};
  const types = generationId === undefined ? all : all.filter((t) => idOf(t.generation) <= generationId);
  for (const attacker of types) {
    const past = attacker.past_damage_relations.filter((p) => generationId !== undefined && idOf(p.generation) >= generationId);
    past.sort((a, b) => idOf(a.generation) - idOf(b.generation));
    const relations: DamageRelations = past[0]?.damage_relations ?? attacker.damage_relations;
    const row: Record<string, string> = Object.fromEntries(types.map((d) => [d.name, '1×']));
    for (const field of Object.keys(TEXT) as Array<keyof DamageRelations>)
      for (const d of relations[field]) if (d.name in row) row[d.name] = TEXT[field]!;
    chart[attacker.name] = row;
  }
  return chart;
}

/** The chart the page shows, read from its table's headers and cells. */
function shownChart(): Promise<{ columns: string[]; chart: Record<string, Record<string, string>> }> {
  return page.locator('table.type-chart').evaluate((table) => {
    const text = (el: Element | null) => el?.textContent?.trim() ?? '';
    const columns = [...table.querySelectorAll('thead th[scope="col"].defender')].map(text);
    const chart: Record<string, Record<string, string>> = {};
    for (const tr of table.querySelectorAll('tbody tr')) {
      const row: Record<string, string> = {};
      [...tr.querySelectorAll('td')].forEach((td, i) => (row[columns[i]!] = text(td)));
      chart[text(tr.querySelector('th[scope="row"]'))] = row;
    }
    return { columns, chart };
  });
}

/** Each cell's background against the legend's swatch for the same text: the colour says the factor. */
function coloursMatchLegend(): Promise<string[]> {
  return page.evaluate(() => {
    const swatch = new Map(
      [...document.querySelectorAll('.chart-legend dt')].map((dt) => [dt.textContent!.trim(), getComputedStyle(dt).backgroundColor]),
    );
    return [...document.querySelectorAll('table.type-chart td')]
      .filter((td) => getComputedStyle(td).backgroundColor !== swatch.get(td.textContent!.trim()))
      .map((td) => `${td.getAttribute('data-attacker')} → ${td.getAttribute('data-defender')}`);
  });
}

describe('the type chart', () => {
  test('shows every type against every type, as the API relates them today and in each generation', async () => {
    const types = await all<Type>('type');
    const generations = await all<{ id: number; name: string }>('generation');
    const names = types.map((t) => t.name);
    const today = expectedChart(types);

    await page.goto(`${site.url}/#/type-chart`);
    await page.locator('table.type-chart').waitFor();
    const shown = await shownChart();
    expect(shown.columns).toEqual(names);
    expect(Object.keys(shown.chart)).toEqual(names);
    expect(shown.chart).toEqual(today);
    // The starter world has every factor, so each is drawn at least once.
    const texts = new Set(Object.values(today).flatMap((row) => Object.values(row)));
    expect([...texts].sort()).toEqual(['0×', '1×', '2×', '½×']);
    expect(await coloursMatchLegend()).toEqual([]);
    await page.screenshot({ path: path.join(shots, 'explorer-desktop-type-chart.png'), fullPage: true });

    let changed = 0;
    for (const generation of generations) {
      await page.selectOption('#chart-generation', generation.name);
      await page.locator(`table.type-chart[data-generation="${generation.name}"]`).waitFor();
      const expected = expectedChart(types, generation.id);
      const shownThen = await shownChart();
      expect(shownThen.chart, generation.name).toEqual(expected);
      expect(shownThen.columns, generation.name).toEqual(Object.keys(expected));
      expect(page.url()).toMatch(new RegExp(`#/type-chart\\?generation=${generation.name}$`));
      if (JSON.stringify(expected) !== JSON.stringify(today)) changed++;
    }
    // Picking a generation is seen to change the cells: the starter world has a past relation.
    expect(changed).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(shots, 'explorer-desktop-type-chart-past.png'), fullPage: true });
    await page.selectOption('#chart-generation', '');
    expect((await shownChart()).chart).toEqual(today);
    expect(page.url()).toMatch(/#\/type-chart$/);
    expect(errors).toEqual([]);
  });

  test('opens at the generation its address names', async () => {
    const types = await all<Type>('type');
    const [first] = await all<{ id: number; name: string }>('generation');
    await page.goto(`${site.url}/#/type-chart?generation=${first!.name}`);
    await page.locator(`table.type-chart[data-generation="${first!.name}"]`).waitFor();
    expect(await page.locator('#chart-generation').inputValue()).toBe(first!.name);
    expect((await shownChart()).chart).toEqual(expectedChart(types, first!.id));
    // Steel comes in generation ii: the first generation's chart leaves it out, rows and columns.
    expect((await shownChart()).columns).not.toContain('steel');
    expect((await shownChart()).columns.length).toBeLessThan(types.length);
  });

  test('is a table with a caption and headers scoped to their row or column', async () => {
    const count = (await getJson<{ count: number }>('type/')).count;
    await page.goto(`${site.url}/#/type-chart`);
    const table = page.locator('table.type-chart');
    await table.waitFor();
    expect(await table.locator('caption').textContent()).toMatch(/^Attacking type \(row\) on defending type \(column\), today$/);
    expect(await table.locator('thead th[scope="col"]').count()).toBe(count + 1);
    expect(await table.locator('tbody th[scope="row"]').count()).toBe(count);
    expect(await table.locator('td').count()).toBe(count * count);
    expect(await page.getByLabel('Generation').count()).toBe(1);
  });

  test('fetches each type once, and its links lead to the types and back', async () => {
    const fetched: string[] = [];
    const fresh = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    fresh.on('request', (req) => /\/api\/v2\/type\/\d+\/index\.json$/.test(req.url()) && fetched.push(req.url()));
    await fresh.goto(`${site.url}/`);
    await fresh.locator('.home a[href="#/type-chart"]').click();
    await fresh.locator('table.type-chart').waitFor();
    const types = await getJson<{ count: number }>('type/');
    expect(fetched.length).toBe(types.count);

    // A column's type opens its record; the record leads back to the chart.
    const steel = await getJson<Type>('type/steel/');
    await fresh.locator('table.type-chart thead th a', { hasText: 'steel' }).click();
    await fresh.waitForURL(new RegExp(`#/type/${steel.id}$`));
    await fresh
      .locator('.record h1')
      .filter({ hasText: /^Steel$/ })
      .waitFor();
    await fresh.locator('.record a[data-action="chart"]').click();
    await fresh.waitForURL(/#\/type-chart$/);
    // A row's type too, and the chart comes back from the records already read.
    await fresh.locator('table.type-chart tbody th a', { hasText: 'ghost' }).click();
    await fresh.waitForURL(/#\/type\/\d+$/);
    await fresh
      .locator('.record h1')
      .filter({ hasText: /^Ghost$/ })
      .waitFor();
    await fresh.goBack();
    await fresh.locator('table.type-chart').waitFor();
    expect(new Set(fetched).size).toBe(fetched.length);
    await fresh.close();
  });

  test('scrolls inside its box at phone width, not the page', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    await phone.goto(`${site.url}/#/type-chart`);
    await phone.locator('table.type-chart').waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth <= 390 && window.innerWidth === 390)).toBe(true);
    await phone.screenshot({ path: path.join(shots, 'explorer-phone-type-chart.png'), fullPage: true });
    await phone.close();
  });
});

describe("a location area's encounters", () => {
  test('are tables by version whose rows are the records', async () => {
    const areas = await all<LocationArea>('location-area');
    expect(areas.length).toBeGreaterThan(0);
    for (const area of areas) {
      // The record's encounters regrouped: versions in id order, rows in the record's order.
      const byVersion = new Map<string, { id: number; rows: string[][]; links: string[] }>();
      for (const encounter of area.creature_encounters)
        for (const { version, encounter_details: d } of encounter.version_details) {
          const group = byVersion.get(version.name) ?? { id: idOf(version), rows: [], links: [] };
          group.rows.push([
            encounter.creature.name,
            `${d.chance}%`,
            `${d.min_level}–${d.max_level}`,
            d.method.name,
            d.condition_values?.name ?? 'none',
          ]);
          group.links.push(`#/creature/${idOf(encounter.creature)}`);
          byVersion.set(version.name, group);
        }
      const expected = [...byVersion].sort(([, a], [, b]) => a.id - b.id);

      await page.goto(`${site.url}/#/location-area/${area.id}`);
      await page.locator(`.record[data-id="${area.id}"] .encounters`).first().waitFor();
      const shown = await page.locator('.encounters table').evaluateAll((tables) =>
        tables.map((t) => ({
          version: t.getAttribute('data-version'),
          headers: [...t.querySelectorAll('thead th')].map((th) => th.textContent),
          rows: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent!.trim())),
          links: [...t.querySelectorAll('tbody th a')].map((a) => a.getAttribute('href')),
          caption: t.querySelector('caption')?.textContent,
        })),
      );
      expect(
        shown.map((s) => s.version),
        area.name,
      ).toEqual(expected.map(([name]) => name));
      shown.forEach((table, i) => {
        const [name, group] = expected[i]!;
        expect(table.headers).toEqual(['Creature', 'Chance', 'Levels', 'Method', 'Conditions']);
        expect(table.rows, `${area.name} ${name}`).toEqual(group.rows);
        expect(table.links).toEqual(group.links);
        expect(table.caption).toContain(name);
      });
    }
    await page.screenshot({ path: path.join(shots, 'explorer-desktop-encounters.png'), fullPage: true });
  });

  test("a creature's link opens the creature", async () => {
    const area = await getJson<LocationArea>('location-area/1/');
    const creature = area.creature_encounters[0]!.creature;
    await page.goto(`${site.url}/#/location-area/1`);
    await page.locator('.encounters tbody th a').first().click();
    await page.waitForURL(new RegExp(`#/creature/${idOf(creature)}$`));
    await page.locator('.record[data-kind="creature"] .slug').filter({ hasText: creature.name }).waitFor();
    expect(errors).toEqual([]);
  });
});

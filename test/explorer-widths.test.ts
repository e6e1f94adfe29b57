// The explorer at a phone's width and at a desktop's, in a real headless Chromium: every kind of
// page over the starter world (the kinds, a kind's list searched, the first and the longest record
// of a kind, the type chart, a record that is not there, and the dev loop's problems over the page)
// for the kinds whose pages differ — every kind and, on a phone, every record with
// CRS_EVERY_RECORD=1, as CI runs it — each checked for
// anything that spills out of its box or off the screen and for text drawn over text. A box the
// design lets scroll sideways says so with `data-scroll="x"`; what sits inside one may run past
// the screen. Screenshots go to test-results/.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { explorerSite, launchChromium, type ExplorerSite } from './browser.ts';
import { fixtureWorld, until } from './helpers.ts';

const shots = path.join(projectRoot, 'test-results');
const WIDTHS = [
  { name: 'phone', viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
  { name: 'desktop', viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, isMobile: false, hasTouch: false },
] as const;
type Width = (typeof WIDTHS)[number];

/** With CRS_EVERY_RECORD=1 (CI), every kind's list and, on a phone, every record; else the kinds below, two records each. */
const EVERY = process.env.CRS_EVERY_RECORD === '1';
/**
 * The kinds `npm test` looks at: the specification's six and those whose pages are drawn apart (a
 * creature as a Pokédex, a chain's tree, a species, a move's nested meta, references by url alone,
 * ids from -1, a list of areas).
 */
const SAMPLED = new Set([
  'type',
  'creature-form',
  'location-area',
  'athlon-stat',
  'gender',
  'stat',
  'creature',
  'creature-species',
  'move',
  'evolution-chain',
  'characteristic',
  'move-ailment',
  'location',
]);
const looked = (kind: string) => EVERY || SAMPLED.has(kind);

let site: ExplorerSite;
let browser: Browser;
const pages = new Map<string, Page>();
const errors: string[] = [];

beforeAll(async () => {
  site = await explorerSite();
  await fs.mkdir(shots, { recursive: true });
  browser = await launchChromium();
  for (const { name, ...options } of WIDTHS) {
    const page = await browser.newPage(options);
    page.on('pageerror', (err) => errors.push(`${name}: ${err.message}`));
    pages.set(name, page);
  }
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await fs.rm(site.world.root, { recursive: true, force: true });
});

/** A fault on the page: the element, told by its tag, classes and first words, and what is wrong. */
interface Spill {
  at: string;
  what: string;
}

/**
 * Runs in the page. Every element drawn is checked: its content fits its box (a box that clips
 * must end its text with an ellipsis, a box that scrolls sideways must be meant to), it stays
 * inside its parent and, outside a scroll box, inside the screen; a menu shows its choice whole;
 * no piece of text is drawn over another. A fixed or sticky box covers the page as it scrolls by
 * design, so only its own text is held apart.
 */
function findSpills(): Spill[] {
  const SLACK = 1;
  const out: Spill[] = [];
  const screen = document.documentElement.clientWidth;
  const name = (el: Element) => {
    const classes = [...el.classList].map((c) => `.${c}`).join('');
    const words = (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
    return `${el.tagName.toLowerCase()}${classes}${words ? ` “${words}”` : ''}`;
  };
  const spill = (el: Element, what: string) => out.push({ at: name(el), what });
  if (document.documentElement.scrollWidth > screen + SLACK)
    spill(document.documentElement, `the page scrolls sideways: ${document.documentElement.scrollWidth} px on a ${screen} px screen`);

  const scrolls = (style: CSSStyleDeclaration) => style.overflowX === 'auto' || style.overflowX === 'scroll';
  const clips = (style: CSSStyleDeclaration) => style.overflowX === 'hidden' || style.overflowX === 'clip';

  const checkBox = (el: HTMLElement, style: CSSStyleDeclaration) => {
    if (style.display === 'inline' || style.display === 'contents' || el instanceof HTMLSelectElement) return;
    const wider = el.scrollWidth - el.clientWidth;
    if (wider <= SLACK) return;
    if (scrolls(style)) {
      if (el.dataset.scroll !== 'x') spill(el, `scrolls sideways by ${wider} px, not marked as meant to`);
    } else if (clips(style)) {
      if (style.textOverflow !== 'ellipsis') spill(el, `cuts off ${wider} px of its content`);
    } else spill(el, `content ${wider} px wider than its box`);
  };

  const checkEdges = (el: HTMLElement, style: CSSStyleDeclaration, inScroll: boolean) => {
    const box = el.getBoundingClientRect();
    if (box.width === 0) return;
    const parent = el.parentElement;
    const floating = style.position === 'absolute' || style.position === 'fixed';
    if (parent && parent !== document.body && !floating && !scrolls(getComputedStyle(parent))) {
      const outer = parent.getBoundingClientRect();
      if (box.right > outer.right + SLACK || box.left < outer.left - SLACK)
        spill(
          el,
          `runs out of its parent ${name(parent)} (${Math.round(box.left)}–${Math.round(box.right)} in ${Math.round(outer.left)}–${Math.round(outer.right)})`,
        );
    }
    if (!inScroll && (box.right > screen + SLACK || box.left < -SLACK))
      spill(el, `runs off the screen (${Math.round(box.left)}–${Math.round(box.right)} on ${screen} px)`);
  };

  // A menu sizes itself to its longest choice; a copy holding only the choice made, sized freely
  // beside it, is as wide as that choice needs.
  const checkMenu = (select: HTMLSelectElement) => {
    const chosen = select.selectedOptions[0];
    if (!chosen) return;
    const probe = select.cloneNode(false) as HTMLSelectElement;
    probe.removeAttribute('id');
    probe.append(chosen.cloneNode(true));
    probe.style.cssText = 'position:absolute;visibility:hidden;width:auto;min-width:0;max-width:none;flex:none';
    select.after(probe);
    const needs = probe.getBoundingClientRect().width;
    probe.remove();
    const has = select.getBoundingClientRect().width;
    if (needs > has + SLACK) spill(select, `shows “${chosen.text}” cut short (${Math.round(has)} px of the ${Math.round(needs)} it needs)`);
  };

  const texts: Array<{ el: Element; rect: DOMRect; layer: Element | null }> = [];
  const collectText = (el: HTMLElement, layer: Element | null) => {
    for (const node of el.childNodes) {
      if (node.nodeType !== Node.TEXT_NODE || !node.textContent?.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const rect of range.getClientRects()) if (rect.width > 0 && rect.height > 0) texts.push({ el, rect, layer });
    }
  };

  const walk = (el: HTMLElement, inScroll: boolean, layer: Element | null) => {
    if (!el.checkVisibility({ visibilityProperty: true })) return;
    const style = getComputedStyle(el);
    // Text for screen readers only is drawn in a box of one pixel, clipped on purpose.
    if (style.clip !== 'auto' && el.getBoundingClientRect().width <= 1) return;
    if (style.position === 'fixed' || style.position === 'sticky') layer = el;
    checkBox(el, style);
    checkEdges(el, style, inScroll);
    if (el instanceof HTMLSelectElement) checkMenu(el);
    collectText(el, layer);
    for (const child of el.children) if (child instanceof HTMLElement) walk(child, inScroll || scrolls(style), layer);
  };
  walk(document.body, false, null);

  // Two pieces of text overlap when they share more than a sliver both across and down.
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      const a = texts[i]!;
      const b = texts[j]!;
      if (a.layer !== b.layer || a.el === b.el) continue;
      const across = Math.min(a.rect.right, b.rect.right) - Math.max(a.rect.left, b.rect.left);
      const down = Math.min(a.rect.bottom, b.rect.bottom) - Math.max(a.rect.top, b.rect.top);
      if (across > 2 && down > Math.min(a.rect.height, b.rect.height) / 3) spill(a.el, `text drawn over ${name(b.el)}`);
    }
  }
  return out;
}

/** The faults on the page as it stands, keyed by where it is. */
async function spillsOn(page: Page, where: string, found: Record<string, string[]>): Promise<void> {
  const spills = await page.evaluate(findSpills);
  if (spills.length) found[where] = spills.map((s) => `${s.at}: ${s.what}`);
}

/**
 * Opens a route by its hash and waits, in the page, until `ready` is drawn and every image that is
 * loading has its size: one call where the page is measured many times over.
 */
async function go(page: Page, hash: string, ready: string): Promise<void> {
  await page.evaluate(
    async ({ hash, ready }) => {
      location.hash = hash;
      const drawn = () => document.querySelector(ready) && [...document.images].every((i) => i.complete || i.loading === 'lazy');
      for (const started = performance.now(); !drawn(); await new Promise((r) => requestAnimationFrame(r)))
        if (performance.now() - started > 10_000) throw new Error(`${hash}: no ${ready} within 10 s`);
    },
    { hash, ready },
  );
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  return (await res.json()) as T;
}

/**
 * The records looked at, kind by kind, as the explorer routes to them: of each kind the first and
 * the one whose JSON is longest (what a record holds decides what fits, and the longest holds the
 * most), or every record with `every`.
 */
async function recordsToSee(every: boolean): Promise<Array<{ kind: string; id: string }>> {
  const index = await getJson<Record<string, string>>(`${site.url}/api/v2/index.json`);
  const out: Array<{ kind: string; id: string }> = [];
  // Kinds only: `meta`, the API's word about itself, is in the index as in PokeAPI's. Ids run from -1.
  for (const kind of Object.keys(index).filter((k) => k !== 'meta' && looked(k))) {
    const list = await getJson<{ results: Array<{ url: string }> }>(`${site.url}/api/v2/${kind}/index.json`);
    const ids = list.results.map(({ url }) => /\/(-?\d+)\/$/.exec(url)![1]!);
    if (every) {
      out.push(...ids.map((id) => ({ kind, id })));
      continue;
    }
    const sizes = await Promise.all(ids.map(async (id) => JSON.stringify(await getJson(`${site.url}/api/v2/${kind}/${id}/`)).length));
    const longest = ids[sizes.indexOf(Math.max(...sizes))]!;
    for (const id of new Set([ids[0]!, longest])) out.push({ kind, id });
  }
  return out;
}

describe.each(WIDTHS)('the explorer at $viewport.width px', (width: Width) => {
  const page = () => pages.get(width.name)!;

  test('the kinds, each kind searched, the type chart and a missing record fit the screen', async () => {
    const p = page();
    const found: Record<string, string[]> = {};
    await p.goto(`${site.url}/#/`);
    await p.locator('.kind-card').first().waitFor();
    await spillsOn(p, 'home', found);
    await p.screenshot({ path: path.join(shots, `explorer-${width.name}-kinds.png`), fullPage: true });

    const kinds = await p.locator('#kind option[value]:not([value=""])').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(kinds.length).toBeGreaterThan(10);
    for (const kind of kinds.filter(looked)) {
      await p.selectOption('#kind', kind);
      await p.locator('#results li a').first().waitFor();
      // A search that matches some of the list: the first two letters of its first entry.
      const first = (await p.locator('#results li a .name').first().textContent())!.trim();
      await p.fill('#search', first.slice(0, 2));
      await expect.poll(() => p.locator('#count').textContent()).toMatch(/match/);
      await spillsOn(p, `#/${kind}?q=${first.slice(0, 2)}`, found);
      if (kind === 'creature-form') await p.screenshot({ path: path.join(shots, `explorer-${width.name}-kind-list.png`) });
    }

    await go(p, '#/type-chart', 'table.type-chart');
    await spillsOn(p, '#/type-chart', found);
    await p.screenshot({ path: path.join(shots, `explorer-${width.name}-type-chart.png`), fullPage: true });
    await go(p, '#/type/999', '.kind-intro h1');
    await spillsOn(p, '#/type/999', found);
    expect(found).toEqual({});
  });

  // On a phone the first and the longest record of each kind are looked at (every record with
  // CRS_EVERY_RECORD=1); on a desktop, where a record has some three times the room, the first.
  const every = width.isMobile && EVERY;
  const which = every
    ? 'every record of every kind fits'
    : width.isMobile
      ? 'the first and the longest record of each kind fit'
      : 'the first record of each kind fits';
  test(`${which} the screen, the first of each with its raw JSON open too`, async () => {
    const p = page();
    const found: Record<string, string[]> = {};
    const records = await recordsToSee(every);
    expect(new Set(records.map((r) => r.kind)).size).toBeGreaterThanOrEqual(EVERY ? 40 : SAMPLED.size);
    const seen = new Set<string>();
    for (const { kind, id } of records) {
      if (seen.has(kind) && !width.isMobile) continue;
      await go(p, `#/${kind}/${id}`, `.record[data-kind="${kind}"][data-id="${id}"]`);
      await spillsOn(p, `#/${kind}/${id}`, found);
      if (seen.has(kind)) continue;
      seen.add(kind);
      if (['type', 'location-area', 'creature-form'].includes(kind))
        await p.screenshot({ path: path.join(shots, `explorer-${width.name}-${kind}.png`), fullPage: true });
      await p.locator('.record details.raw summary').click();
      await p.locator('.record details.raw pre.json').filter({ hasText: '"id"' }).waitFor();
      await spillsOn(p, `#/${kind}/${id} (raw JSON)`, found);
    }
    expect(found).toEqual({});
    expect(errors).toEqual([]);
  });
});

describe("the dev loop's problems over the page", () => {
  let child: ChildProcess;
  let output = '';
  let url = '';
  let world: Awaited<ReturnType<typeof fixtureWorld>>;

  beforeAll(async () => {
    world = await fixtureWorld();
    child = spawn(process.execPath, ['build/launch.mjs', 'dev', '--data', world.data, '--port', '0', '--host', '127.0.0.1'], {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, BASE_URL: '' },
    });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    await until(
      async () => /explorer at (\S+)\//.test(output),
      60_000,
      () => output,
    );
    url = /explorer at (\S+)\//.exec(output)![1]!;
  }, 90_000);

  afterAll(async () => {
    if (child?.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  });

  test('fit the screen at both widths', async () => {
    for (const p of pages.values()) {
      await p.goto(`${url}/#/type/2`);
      await p.locator('.record h1').filter({ hasText: 'Fire' }).waitFor();
    }
    // Two problems at once: a line that is not YAML, and a reference to a generation that is not there.
    const fire = path.join(world.data, 'type', 'fire.yaml');
    const water = path.join(world.data, 'type', 'water.yaml');
    await fs.writeFile(fire, (await fs.readFile(fire, 'utf8')).replace('- name: Fire', '- name: Fire: Flame'));
    await fs.writeFile(water, (await fs.readFile(water, 'utf8')).replace('generation: generation-i\n', 'generation: generation-iii\n'));
    const found: Record<string, string[]> = {};
    for (const { name } of WIDTHS) {
      const p = pages.get(name)!;
      const shown = p.locator('#build-status.failed').filter({ hasText: 'fire.yaml' }).filter({ hasText: 'water.yaml' });
      await shown.waitFor({ timeout: 30_000 });
      await spillsOn(p, `${name}: the problems`, found);
      if (name === 'phone') await p.screenshot({ path: path.join(shots, 'explorer-phone-problems.png') });
    }
    expect(found).toEqual({});
  });
});

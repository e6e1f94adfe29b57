// The explorer in a real headless Chromium, over the starter world built into a temp folder with
// the page beside it, served by the real server. Screenshots go to test-results/.
import { cpSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { explorerFiles, runVite } from '../build/site/explorer.ts';
import { projectRoot } from '../build/paths.ts';
import { typeColour } from '../build/site/colour.ts';
import { explorerSite, launchChromium, type ExplorerSite } from './browser.ts';
import { serve } from './helpers.ts';

const shots = path.join(projectRoot, 'test-results');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
/** Entries in the large list: more than any kind of the real data set holds. */
const LARGE = 20_000;

let world: ExplorerSite['world'];
let server: ExplorerSite;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const errors: string[] = [];

beforeAll(async () => {
  server = await explorerSite();
  world = server.world;
  await fs.mkdir(shots, { recursive: true });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: DESKTOP });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  page = await context.newPage();
  page.on('pageerror', (err) => errors.push(err.message));
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await fs.rm(world.root, { recursive: true, force: true });
});

const heading = (text: string) => page.locator('.record h1').filter({ hasText: new RegExp(`^${text}$`) });

/** Every {name, url} inside a value. */
function refsIn(value: unknown, out: Array<{ name: string; url: string }> = []) {
  if (Array.isArray(value)) value.forEach((v) => refsIn(v, out));
  else if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if (Object.keys(v).length === 2 && typeof v.name === 'string' && typeof v.url === 'string')
      out.push(v as { name: string; url: string });
    else Object.values(v).forEach((x) => refsIn(x, out));
  }
  return out;
}

describe('explorer', () => {
  test('the build gives index.html and hashed assets, the same files on a second call', async () => {
    const files = await explorerFiles();
    const names = [...files.keys()];
    expect(names).toContain('index.html');
    expect(names.some((n) => /^assets\/index-[\w-]+\.js$/.test(n))).toBe(true);
    expect(names.some((n) => /^assets\/index-[\w-]+\.css$/.test(n))).toBe(true);
    const html = files.get('index.html')!.toString();
    expect(html).toMatch(/src="\.\/assets\/index-[\w-]+\.js"/);
    const started = performance.now();
    const again = await explorerFiles();
    const cachedMs = performance.now() - started;
    expect([...again]).toEqual([...files]);
    console.log(`explorer build from cache: ${cachedMs.toFixed(1)} ms`);
  });

  test('is the production page whatever NODE_ENV the build runs under, as kept and published', async () => {
    // vitest runs this file with NODE_ENV=test, under which vite would make a development page.
    expect(process.env.NODE_ENV).toBe('test');
    const built = await runVite();
    expect(process.env.NODE_ENV).toBe('test');
    expect([...built]).toEqual([...(await explorerFiles())]);
    // The development page asks the API afresh each time (explorer/src/api.ts); the production one does not.
    const script = [...built].find(([name]) => name.endsWith('.js'))![1].toString();
    expect(script).not.toContain('no-cache');
  });

  test('is served at / next to the API', async () => {
    const res = await fetch(server.url + '/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
  });

  test('home lists every kind', async () => {
    await page.goto(server.url + '/');
    const index = await (await fetch(`${server.url}/api/v2/index.json`)).json();
    // Kinds only: `meta`, the API's word about itself, is in the index as in PokeAPI's, and no kind.
    const kinds = Object.keys(index).filter((k) => k !== 'meta');
    await expect.poll(() => page.locator('.kind-card').count()).toBe(kinds.length);
    // The NDJSON files are linked from here, since the index does not name them.
    const listed = await (
      await fetch(await page.locator('a[data-action="ndjson-list"]').evaluate((a) => (a as HTMLAnchorElement).href))
    ).json();
    expect(listed.results.map((r: { name: string }) => r.name)).toEqual([...kinds].sort());
    await page.screenshot({ path: path.join(shots, 'explorer-desktop-home.png') });
  });

  test('pick a kind, search, open a record, see its sprites, follow its links', async () => {
    await page.goto(server.url + '/');
    await page.selectOption('#kind', 'creature-form');
    await page.waitForURL(/#\/creature-form$/);
    await expect.poll(() => page.locator('#results li a').count()).toBe(8);

    await page.fill('#search', 'tide');
    await expect.poll(() => page.locator('#results li a .name').allTextContents()).toEqual(['tidefin', 'tidefin-coral']);
    await page.fill('#search', '7');
    await expect.poll(() => page.locator('#results li a .name').first().textContent()).toBe('tidefin-coral');
    await page.fill('#search', 'tidefin');
    await page.press('#search', 'Enter');
    await page.waitForURL(/#\/creature-form\/2$/);
    await heading('Tidefin').waitFor();

    // Every sprite of the form is an image that loaded, from this server.
    const sprites = page.locator('.gallery img');
    expect(await sprites.count()).toBeGreaterThanOrEqual(4);
    await page.waitForFunction(() =>
      [...document.querySelectorAll<HTMLImageElement>('.gallery img, img.hero')].every((i) => i.complete && i.naturalWidth > 0),
    );
    for (const src of await sprites.evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).src)))
      expect(src.startsWith(server.url + '/sprites/')).toBe(true);

    // Every reference in the record is a link into the explorer.
    const record = await (await fetch(`${server.url}/api/v2/creature-form/2/index.json`)).json();
    const refs = refsIn(record);
    expect(refs.length).toBeGreaterThan(2);
    for (const ref of refs) {
      const [, kind, id] = /\/api\/v2\/([a-z-]+)\/(\d+)\/$/.exec(ref.url)!;
      const link = page.locator(`.record a[href="#/${kind}/${id}"]`);
      expect(await link.count(), `${ref.name} → #/${kind}/${id}`).toBeGreaterThan(0);
      expect((await link.first().textContent())?.trim()).toBe(ref.name);
    }
    await page.screenshot({ path: path.join(shots, 'explorer-desktop-record.png'), fullPage: true });

    // Follow the type chip: the type's page, in the type's colour.
    const chip = page.locator('.record .part a.chip.type').first();
    const typeName = (await chip.textContent())!.trim();
    const shown = await chip.evaluate((el) => getComputedStyle(el).backgroundColor);
    const expected = await page.evaluate((colour) => {
      const probe = document.createElement('span');
      probe.style.color = colour;
      document.body.append(probe);
      const rgb = getComputedStyle(probe).color;
      probe.remove();
      return rgb;
    }, typeColour(typeName));
    expect(shown).toBe(expected);
    await chip.click();
    await page.waitForURL(/#\/type\/\d+$/);
    await page.locator('.record[data-kind="type"] h1').waitFor();
    expect((await page.locator('.record .slug').textContent())?.trim()).toBe(typeName);
    await page.waitForFunction(() =>
      [...document.querySelectorAll<HTMLImageElement>('.gallery img')].every((i) => i.complete && i.naturalWidth > 0),
    );
    expect(await page.locator('.gallery img').count()).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(shots, 'explorer-desktop-type.png'), fullPage: true });

    // And on from the type to its generation, then back.
    await page.locator('.record .fact a[data-kind="generation"]').first().click();
    await page.waitForURL(/#\/generation\/1$/);
    await heading('Generation I').or(heading('Generation I.*')).first().waitFor();
    await page.goBack();
    await page.locator('.record[data-kind="type"] h1').waitFor();
    expect(errors).toEqual([]);
  });

  test('copies the record url, which answers with the record', async () => {
    await page.goto(server.url + '/#/type/3');
    await heading('Water').waitFor();
    await page.click('button[data-action="copy"]');
    await expect.poll(() => page.locator('button[data-action="copy"]').textContent()).toBe('Copied');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(`${server.url}/api/v2/type/3/`);
    const res = await fetch(copied);
    expect(res.status).toBe(200);
    expect((await res.json()).name).toBe('water');
  });

  test('a creature shows its sprite, its default form’s', async () => {
    await page.goto(server.url + '/#/creature/1');
    await heading('Emberpup').waitFor();
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('.record-head img.hero');
      return !!img && img.complete && img.naturalWidth > 0;
    });
    expect(await page.locator('img.hero').getAttribute('src')).toBe(`${server.url}/sprites/creature-form/1.svg`);
    // Its sprites' `other` and `versions` hold the same images again: each is shown once.
    const shown = await page.locator('.gallery img').evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).src));
    expect(shown.length).toBeGreaterThan(0);
    expect(new Set(shown).size).toBe(shown.length);
  });

  test("a kind's page links its NDJSON file", async () => {
    await page.goto(server.url + '/#/stat');
    const href = await page.locator('a[data-action="ndjson"]').evaluate((a) => (a as HTMLAnchorElement).href);
    expect(href).toBe(`${server.url}/api/v2/stat/all.ndjson`);
    const res = await fetch(href);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/x-ndjson/);
  });

  test('lists characteristics by their urls, finds one by id and opens it', async () => {
    const list = await (await fetch(`${server.url}/api/v2/characteristic/index.json`)).json();
    await page.goto(server.url + '/#/characteristic');
    await expect.poll(() => page.locator('#results li a').count()).toBe(list.count);
    // No name is published, so none is shown: each goes by its url, and its link by its id.
    const shown = await page.locator('#results li a .name').allTextContents();
    expect(shown).toEqual(list.results.map((r: { url: string }) => /api\/v2\/(.*)$/.exec(r.url)![1]));
    expect(await page.locator('#results li a[data-name]').count()).toBe(0);
    await page.fill('#search', '4');
    await expect.poll(() => page.locator('#results li a').allTextContents()).toEqual(['characteristic/4/#4']);
    await page.fill('#search', 'likes');
    await expect.poll(() => page.locator('#results li a').count()).toBe(0);
    await page.fill('#search', '4');
    await page.press('#search', 'Enter');
    await page.waitForURL(/#\/characteristic\/4$/);
    await page.locator('.record h1').filter({ hasText: '#4' }).waitFor();
  });

  test('an unknown record says so', async () => {
    await page.goto(server.url + '/#/type/999');
    await page.locator('.kind-intro h1').filter({ hasText: 'Not found' }).waitFor();
  });

  test('works at phone width', async () => {
    const phone = await browser.newPage({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    await phone.goto(server.url + '/#/creature-form');
    await expect.poll(() => phone.locator('#results li a').count()).toBe(8);
    // A phone's layout viewport widens to fit content that is too wide; it must stay at 390.
    const noSideScroll = () =>
      phone.evaluate((width) => document.documentElement.scrollWidth <= width && window.innerWidth === width, PHONE.width);
    expect(await noSideScroll()).toBe(true);
    await phone.screenshot({ path: path.join(shots, 'explorer-phone-list.png') });
    await phone.locator('#results a', { hasText: 'emberpup' }).first().click();
    await phone.locator('.record h1').filter({ hasText: 'Emberpup' }).waitFor();
    await phone.waitForFunction(() =>
      [...document.querySelectorAll<HTMLImageElement>('.gallery img')].every((i) => i.complete && i.naturalWidth > 0),
    );
    // The record takes the screen; the list is one tap back.
    expect(await phone.locator('.results').isVisible()).toBe(false);
    expect(await noSideScroll()).toBe(true);
    await phone.screenshot({ path: path.join(shots, 'explorer-phone-record.png'), fullPage: true });
    await phone.locator('.crumbs a').click();
    await phone.locator('#results li a').first().waitFor();
    await phone.close();
  });

  test('works under a sub-path', async () => {
    const site = path.join(world.root, 'site');
    cpSync(world.out, path.join(site, 'under', 'here'), { recursive: true });
    const sub = await serve(site);
    try {
      const p = await browser.newPage({ viewport: DESKTOP });
      await p.goto(`${sub.url}/under/here/index.html#/creature-form/3`);
      await p.locator('.record h1').filter({ hasText: 'Sproutle' }).waitFor();
      await p.waitForFunction(() =>
        [...document.querySelectorAll<HTMLImageElement>('.gallery img')].every((i) => i.complete && i.naturalWidth > 0),
      );
      expect(await p.locator('.gallery img').first().getAttribute('src')).toBe(`${sub.url}/under/here/sprites/creature-form/3.svg`);
      await p.close();
    } finally {
      await sub.close();
    }
  });

  test(`stays quick on a kind of ${LARGE.toLocaleString()} entries`, async () => {
    // A list in the shape the build writes, far larger than the starter world's.
    const listFile = path.join(world.out, 'api/v2/encounter-method/index.json');
    const list = JSON.parse(await fs.readFile(listFile, 'utf8'));
    for (let id = list.count + 1; list.results.length < LARGE; id++) {
      list.results.push({ name: `way-${id}`, url: `http://localhost:3000/api/v2/encounter-method/${id}/` });
    }
    list.count = list.results.length;
    await fs.writeFile(listFile, JSON.stringify(list));

    await page.goto(server.url + '/');
    const started = Date.now();
    await page.goto(server.url + '/#/encounter-method');
    await page
      .locator('#count')
      .filter({ hasText: `${LARGE.toLocaleString('en-US')} records` })
      .waitFor();
    const openMs = Date.now() - started;
    expect(await page.locator('#results li').count()).toBe(100);
    expect(await page.locator('#more').isVisible()).toBe(true);

    const typing = await page.evaluate(async () => {
      const box = document.querySelector<HTMLInputElement>('#search')!;
      const list = document.querySelector<HTMLElement>('#results')!;
      const times: Array<{ frame: number; work: number }> = [];
      for (const q of ['w', 'wa', 'way', 'way-1', 'way-12', 'way-123', 'way-1234', '12345']) {
        const t0 = performance.now();
        box.value = q;
        box.dispatchEvent(new Event('input'));
        // The search runs in the next frame; the frame after it shows the results.
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        times.push({ frame: performance.now() - t0, work: Number(list.dataset.ms) });
      }
      return times;
    });
    const worst = Math.max(...typing.map((t) => t.frame));
    console.log(
      `${LARGE} entries: list opened in ${openMs} ms; per keystroke, search + drawing ${typing.map((t) => t.work.toFixed(1)).join('/')} ms, ` +
        `to results on screen ${typing.map((t) => t.frame.toFixed(0)).join('/')} ms`,
    );
    await expect.poll(() => page.locator('#results li a .name').first().textContent()).toBe('way-12345');
    // A bound loose enough for a busy machine; the cap on drawn results is what keeps it quick.
    expect(worst).toBeLessThan(1_000);
    await page.fill('#search', '');
    await page.click('#more');
    expect(await page.locator('#results li').count()).toBe(200);
  });
});

// The explorer shows every text of a record, and a text that looks like a url becomes a link, an
// image or a sound. A record's texts are hostile: one written as `<BASE_URL>/javascript:…` once became
// a `javascript:` link on the site's own origin, running when clicked. In Chromium, over the starter
// world with such texts, built and served by the real server.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from './browser.ts';
import { BASE, buildWorld, fixtureWorld, serve } from './helpers.ts';

const script = (name: string) => `${BASE}/javascript:void(document.title='ran-${name}')//`;

let browser: Browser;
let page: Page;
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const w = await fixtureWorld();
  const append = (rel: string, text: string) => fs.appendFileSync(path.join(w.data, rel), text);
  append(
    'move/ember-bite.yaml',
    `flavor_text_entries:\n  - flavor_text: "${script('flavor')}"\n    language: en\n    version_group: tide-ember\n` +
      `  - flavor_text: "${BASE}/api/v2/move/ember-bite/"\n    language: fr\n    version_group: tide-ember\n`,
  );
  append('creature/emberpup.yaml', `cries:\n  latest: "${script('cry')}.ogg"\n  legacy: null\n`);
  await buildWorld({ dataDir: w.data, outDir: w.out });
  ({ url, close } = await serve(w.out));
  browser = await launchChromium();
  page = await browser.newPage();
});

afterAll(async () => {
  await browser?.close();
  await close?.();
});

/** The scheme of every href and src on the page, as the browser reads it: http(s), and data: for the page's icon. */
const schemes = () =>
  page.evaluate(() => [
    ...new Set(
      [...document.querySelectorAll('[href], [src]')].map(
        (el) => new URL(el.getAttribute('href') ?? el.getAttribute('src')!, location.href).protocol,
      ),
    ),
  ]);

describe('a text that looks like a url', () => {
  test('is at most a link to a path of the site when it would be a script url, and clicking it runs nothing', async () => {
    await page.goto(`${url}/#/move/ember-bite`);
    const text = page.getByText(script('flavor'), { exact: true });
    await text.waitFor();
    expect((await schemes()).sort()).toEqual(['data:', 'http:']);
    expect(await text.getAttribute('href')).toBe(`${url}/javascript:void(document.title='ran-flavor')//`);
    // A url into the API stays a link, to the record in the explorer.
    expect(await page.locator('a', { hasText: `${BASE}/api/v2/move/ember-bite/` }).getAttribute('href')).toBe('#/move/ember-bite');
    await text.click();
    await page.waitForLoadState();
    expect(await page.title()).not.toBe('ran-flavor');
    expect(page.url()).toBe(`${url}/javascript:void(document.title='ran-flavor')//`);
  });

  test('is at most a sound of a path of the site when it would be a script url', async () => {
    await page.goto(`${url}/#/creature/emberpup`);
    const audio = page.locator('audio');
    await audio.waitFor({ state: 'attached' });
    expect(await audio.getAttribute('src')).toBe(`${url}/javascript:void(document.title='ran-cry')//.ogg`);
    expect((await schemes()).sort()).toEqual(['data:', 'http:']);
  });
});

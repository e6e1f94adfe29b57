// What the browser tests share: Debian's Chromium, headless, and the explorer over the starter
// world, built into a temp folder with the page beside it and served by the real server.
import { chromium, type Browser } from 'playwright-core';
import { build } from '../build/pipeline/build.ts';
import { fixtureWorld, serve } from './helpers.ts';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

export interface ExplorerSite {
  world: Awaited<ReturnType<typeof fixtureWorld>>;
  url: string;
  close: () => Promise<void>;
}

/**
 * The starter world and the explorer, served on a free loopback port. The data's urls keep the
 * default BASE_URL (localhost:3000), not the server's address: the page must map them to itself.
 */
export async function explorerSite(): Promise<ExplorerSite> {
  const world = await fixtureWorld();
  await build({ dataDir: world.data, outDir: world.out, baseUrl: 'http://localhost:3000' });
  const server = await serve(world.out);
  return { world, url: server.url, close: server.close };
}

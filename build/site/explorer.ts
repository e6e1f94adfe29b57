// The explorer page, built by vite into files for the root of the published site (index.html,
// assets/…). A build is kept in the cache's `explorer` area under a hash of its sources, so the
// API build pays for vite only when the page itself changed.
import type { Dirent } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../paths.ts';
import { filesIn } from '../sources.mjs';
import { bundleKey, keptBundle } from './kept.ts';

const explorerDir = path.join(projectRoot, 'explorer');
const configFile = path.join(projectRoot, 'vite.config.ts');

/** The files under a folder (absolute paths), but for hidden ones and installed packages; links are not followed. */
export const filesUnder = (dir: string): string[] => filesIn(dir, notASource).map((rel) => path.join(dir, rel));

const notASource = (entry: Dirent) =>
  entry.name.startsWith('.') || entry.name === 'node_modules' || !(entry.isFile() || entry.isDirectory());

/**
 * Everything the page is built from: its folder, the vite config, the modules it imports from
 * build/, and this module, which says how vite builds it.
 */
function sources(): string[] {
  const own = filesUnder(explorerDir);
  const site = ['colour.ts', 'dev-status.ts', 'explorer.ts'].map((name) => path.join(projectRoot, 'build/site', name));
  return [...own, configFile, ...site].sort();
}

/** A hash of everything the page is built from: what names its cached build, and part of the tool's fingerprint. */
export const sourceHash = () => bundleKey('vite', sources());

/** The page built now by vite, its files by path, in order. */
export async function runVite(): Promise<Map<string, Buffer>> {
  const { build } = await import('vite');
  const result = await productionBuild(() => build({ configFile, logLevel: 'warn', build: { write: false } }));
  const outputs = Array.isArray(result) ? result : [result];
  const files = new Map<string, Buffer>();
  for (const out of outputs) {
    if (!('output' in out)) throw new Error('vite build returned a watcher; expected files');
    for (const item of out.output) {
      files.set(item.fileName, Buffer.from(item.type === 'chunk' ? item.code : item.source));
    }
  }
  if (!files.has('index.html')) throw new Error('the explorer build has no index.html');
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Runs `build` with NODE_ENV `production`, then sets it back. vite makes a development page under any
 * other NODE_ENV (a test runner's `test`, a shell's `development`), and the page is kept under a
 * hash of its sources alone: whatever the environment, the page built is the one published.
 */
async function productionBuild<T>(build: () => Promise<T>): Promise<T> {
  const before = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    return await build();
  } finally {
    if (before === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = before;
  }
}

/** The built explorer, by path relative to the site root (`index.html`, `assets/index-….js`). */
export const explorerFiles = () => keptBundle('explorer', sourceHash(), runVite);

/** Where the page shows the world's title and description: written in explorer/index.html, filled in for each world. */
const PLACES = { title: '__WORLD_TITLE__', description: '__WORLD_DESCRIPTION__' };

/** The page's text with the world's title and description in their places, escaped as HTML. */
export function fillWorld(html: string, world: { title: string; description: string }): string {
  // Replaced by functions: a `$` in the text is the text's, not a replacement pattern.
  const title = escapeHtml(world.title);
  const description = escapeHtml(world.description);
  return html.replaceAll(PLACES.title, () => title).replaceAll(PLACES.description, () => description);
}

/** The built explorer's files with the world's title and description in its page. */
export function withWorld(files: Map<string, Buffer>, world: { title: string; description: string }): Map<string, Buffer> {
  const page = files.get('index.html');
  if (!page) return files;
  return new Map(files).set('index.html', Buffer.from(fillWorld(page.toString('utf8'), world)));
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

// The explorer page, built by vite into files for the root of the published site (index.html,
// assets/…). A build is cached under node_modules/.cache/explorer/<hash of its sources>, so the
// API build pays for vite only when the page itself changed.
import { createHash } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { cacheDirs, projectRoot } from '../paths.ts';
import { EXPLORER_BUILDS_KEPT } from '../tuning.ts';

const explorerDir = path.join(projectRoot, 'explorer');
const configFile = path.join(projectRoot, 'vite.config.ts');
const cacheDir = cacheDirs.explorer;

// The sources and a cached page are read synchronously: a few small files, between the build's
// stages, where the promise API's round trips cost more than the reads.

/**
 * The files under a folder (absolute paths), but for hidden ones and installed packages. Read with
 * the file system's own calls: a glob library takes longer to load than this takes to run.
 */
export function filesUnder(dir: string): string[] {
  const files: string[] = [];
  for (const entry of fsSync.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...filesUnder(full));
    else if (entry.isFile()) files.push(full);
  }
  return files;
}

/** Everything the page is built from: its folder, the vite config, the modules it imports from build/. */
function sources(): string[] {
  const own = filesUnder(explorerDir);
  return [...own, configFile, path.join(projectRoot, 'build/site/colour.ts'), path.join(projectRoot, 'build/site/dev-status.ts')].sort();
}

/** A hash of everything the page is built from: what names its cached build, and part of the tool's fingerprint. */
export function sourceHash(): string {
  const hash = createHash('sha256');
  const vite = fsSync.readFileSync(path.join(projectRoot, 'node_modules/vite/package.json'), 'utf8');
  hash.update(`vite ${JSON.parse(vite).version}\0`);
  for (const file of sources()) {
    hash.update(path.relative(projectRoot, file).split(path.sep).join('/') + '\0');
    hash.update(fsSync.readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

async function runVite(): Promise<Map<string, Buffer>> {
  const { build } = await import('vite');
  const result = await build({ configFile, logLevel: 'warn', build: { write: false } });
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

function readCached(dir: string): Map<string, Buffer> | undefined {
  let names: string[];
  try {
    names = JSON.parse(fsSync.readFileSync(path.join(dir, 'files.json'), 'utf8'));
  } catch {
    return undefined;
  }
  const files = new Map<string, Buffer>();
  for (const name of names) files.set(name, fsSync.readFileSync(path.join(dir, 'files', name)));
  return files;
}

async function writeCached(dir: string, files: Map<string, Buffer>): Promise<void> {
  const next = `${dir}.${process.pid}.tmp`;
  await fs.rm(next, { recursive: true, force: true });
  for (const [name, body] of files) {
    await fs.mkdir(path.dirname(path.join(next, 'files', name)), { recursive: true });
    await fs.writeFile(path.join(next, 'files', name), body);
  }
  await fs.writeFile(path.join(next, 'files.json'), JSON.stringify([...files.keys()]));
  try {
    await fs.rename(next, dir);
  } catch {
    // Another process cached the same sources first; its copy is as good as ours.
    await fs.rm(next, { recursive: true, force: true });
  }
}

/** Keeps the few most recent builds (switching branches back and forth stays cheap), drops the rest. */
async function prune(): Promise<void> {
  const entries = await fs.readdir(cacheDir, { withFileTypes: true });
  const builds = await Promise.all(
    entries
      .filter((e) => e.isDirectory() && /^[0-9a-f]{16}$/.test(e.name))
      .map(async (e) => ({ dir: path.join(cacheDir, e.name), at: (await fs.stat(path.join(cacheDir, e.name))).mtimeMs })),
  );
  builds.sort((a, b) => b.at - a.at);
  for (const old of builds.slice(EXPLORER_BUILDS_KEPT)) await fs.rm(old.dir, { recursive: true, force: true });
}

/** The built explorer, by path relative to the site root (`index.html`, `assets/index-….js`). */
export async function explorerFiles(): Promise<Map<string, Buffer>> {
  const dir = path.join(cacheDir, sourceHash());
  const cached = readCached(dir);
  if (cached) return cached;
  const files = await runVite();
  await fs.mkdir(cacheDir, { recursive: true });
  await writeCached(dir, files);
  await prune();
  return files;
}

/** Writes the explorer's files under `outDir`. */
export async function writeExplorer(outDir: string): Promise<string[]> {
  const files = await explorerFiles();
  for (const [name, body] of files) {
    const file = path.join(outDir, name);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, body);
  }
  return [...files.keys()];
}

// `tsx build/site/explorer.ts DIR`: builds the page into DIR (beside an API built there).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const out = process.argv[2];
  if (!out) {
    console.error('usage: tsx build/site/explorer.ts OUT_DIR');
    process.exit(2);
  }
  const names = await writeExplorer(path.resolve(out));
  console.log(`explorer: ${names.join(', ')}`);
}

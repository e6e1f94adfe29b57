// Starts a command of the build (`build`, `start`, `dev`, `diff`, `import`) from compiled JavaScript: the TypeScript
// sources are bundled by esbuild into the cache's `build` area (cache.mjs), under a hash of the
// sources, the first time they are run, and that bundle is run from then on. The hash covers every
// source file, so a bundle of other sources is never run; a new one is made instead.
// Usage: node build/launch.mjs <command> [arguments]
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Cache, cacheRoot, codeCacheRoot } from './cache.mjs';
import { realish, within } from './guard.mjs';
import { codeFiles } from './sources.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Each bundle entry, by its name in the bundle; all sit in one folder, beside the shared chunks. */
const ENTRIES = {
  build: 'cli/build.ts',
  start: 'cli/start.ts',
  dev: 'cli/dev.ts',
  diff: 'cli/diff.ts',
  import: 'cli/import.ts',
  'thread-entry': 'thread-entry.ts',
};
const COMMANDS = Object.keys(ENTRIES).filter((name) => name !== 'thread-entry');

/** A hash of everything the bundle is made from: the sources, the launcher, the project's path and esbuild. */
function sourcesHash() {
  const hash = createHash('sha1');
  const build = path.join(root, 'build');
  for (const file of codeFiles(build))
    hash
      .update(`${file}\0`)
      .update(fs.readFileSync(path.join(build, file)))
      .update('\0');
  hash.update(root).update(fs.readFileSync(path.join(root, 'package-lock.json')));
  return hash.digest('base64url').slice(0, 16);
}

/**
 * The packages left out of the bundle: all but fast-glob, which every build loads, even one with
 * nothing to do, and which loads in half the time from one file than from its seventy
 * (docs/PERFORMANCE.md, "fast-glob in the bundle").
 */
function externalPackages() {
  const { dependencies, devDependencies } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const names = Object.keys({ ...dependencies, ...devDependencies }).filter((name) => name !== 'fast-glob');
  return names.flatMap((name) => [name, `${name}/*`]);
}

/** Bundles the commands into `dir`, with esbuild (loaded only when a bundle is to be made). */
function bundle(esbuild, dir) {
  esbuild.buildSync({
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, path.join(root, 'build', file)])),
    outdir: dir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: externalPackages(),
    // fast-glob is CommonJS, and requires node's modules by name.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    define: { __PROJECT_ROOT__: JSON.stringify(root) },
    logLevel: 'error',
  });
  // The bundle imports the project's packages, from the cache's folder under node_modules.
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
}

/**
 * The data and output folders a command is given (`--data`, `--out`): the cache stays out of them.
 * One that is or holds the project is left to the command, which refuses it in its own words (the
 * project's cache lies inside it, and would be blamed).
 */
function namedFolders(args) {
  const { values } = parseArgs({ args, options: { data: { type: 'string' }, out: { type: 'string' } }, strict: false });
  const named = Object.entries({ data: values.data, output: values.out }).filter(
    ([, dir]) => typeof dir === 'string' && !within(realish(root), realish(path.resolve(dir))),
  );
  return Object.fromEntries(named.map(([what, dir]) => [`the ${what} folder ${dir}`, path.resolve(dir)]));
}

/**
 * The bundle of these sources: the cache's, or one made now and kept there. Threads of a build run
 * from its TypeScript sources start from it too (thread.mjs).
 */
export async function bundleOfSources() {
  const bundles = new Cache(path.join(codeCacheRoot(root), 'build'));
  const key = sourcesHash();
  const found = bundles.find(key);
  if (found) return found;
  const esbuild = await import('esbuild');
  const made = bundles.make(key, (dir) => bundle(esbuild, dir));
  if (made) return made;
  // A cache that cannot be written still runs the command, from a bundle made for this run alone.
  const once = fs.mkdtempSync(path.join(os.tmpdir(), 'crs-build-'));
  process.on('exit', () => fs.rmSync(once, { recursive: true, force: true }));
  bundle(esbuild, once);
  return once;
}

/** Runs `command`'s bundle; gives the exit code its `main` returned, if any. */
async function run(command, args) {
  cacheRoot(root, namedFolders(args)); // refuses a CRS_CACHE_DIR the build will not use, before anything runs
  const dir = await bundleOfSources();
  const entry = await import(pathToFileURL(path.join(dir, `${command}.js`)).href);
  if (typeof entry.main === 'function') return entry.main(args);
  return undefined;
}

/** Runs the command named on the command line, and says how it ended in its exit code. */
async function launch() {
  const [command, ...args] = process.argv.slice(2);
  if (!COMMANDS.includes(command)) {
    console.error(`usage: node build/launch.mjs ${COMMANDS.join('|')} [arguments]`);
    process.exit(2);
  }
  try {
    const code = await run(command, args);
    if (typeof code === 'number') process.exitCode = code;
  } catch (err) {
    // A refused setting or path, thrown by the launcher's guard or by the bundle's copy of it, is
    // told in its one line; anything else is a fault of the build, with its stack. Both are exit
    // code 2: 1 says the data has problems.
    console.error(err?.name === 'UsageError' ? err.message : `internal error: ${err?.stack ?? err}`);
    process.exitCode = 2;
  }
}

// Started as node's script, it runs a command; imported (by thread.mjs), it only lends its bundle.
if (process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) await launch();

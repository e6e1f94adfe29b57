// Starts a command of the build (`build`, `start`, `dev`, `diff`, `import`) from compiled JavaScript: the TypeScript
// sources are bundled by esbuild into node_modules/.cache/build/<hash of the sources>/ the first time
// they are run, and that bundle is run from then on. The hash covers every source file, so a bundle
// of other sources is never run; a new one is made instead, in a folder of its own, and put in place
// by one rename. Usage: node build/launch.mjs <command> [arguments]
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

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
const COMMANDS = ['build', 'start', 'dev', 'diff', 'import'];
/** Bundles of other sources kept, for switching branches back and forth. */
const KEEP = 4;

/** A hash of everything the bundle is made from: the sources, the launcher, the project's path and esbuild. */
function sourcesHash() {
  const hash = createHash('sha1');
  const build = path.join(root, 'build');
  const files = fs
    .readdirSync(build, { recursive: true })
    .filter((f) => /\.(ts|mts|mjs)$/.test(f))
    .sort();
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(fs.readFileSync(path.join(build, file)))
      .update('\0');
  hash.update(root).update(fs.readFileSync(path.join(root, 'package-lock.json')));
  return hash.digest('base64url').slice(0, 16);
}

async function bundle(dir) {
  const { build } = await import('esbuild');
  const temp = `${dir}.${process.pid}.tmp`;
  await build({
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, path.join(root, 'build', file)])),
    outdir: temp,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    define: { __PROJECT_ROOT__: JSON.stringify(root) },
    logLevel: 'error',
  });
  try {
    fs.renameSync(temp, dir);
  } catch {
    fs.rmSync(temp, { recursive: true, force: true }); // another process made it first: the same bytes
  }
  prune(path.dirname(dir));
}

function prune(cache) {
  const dirs = fs
    .readdirSync(cache)
    .filter((name) => !name.endsWith('.tmp'))
    .map((name) => ({ dir: path.join(cache, name), at: fs.statSync(path.join(cache, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const old of dirs.slice(KEEP)) fs.rmSync(old.dir, { recursive: true, force: true });
}

const [command, ...args] = process.argv.slice(2);
if (!COMMANDS.includes(command)) {
  console.error(`usage: node build/launch.mjs ${COMMANDS.join('|')} [arguments]`);
  process.exit(2);
}
const dir = path.join(root, 'node_modules', '.cache', 'build', sourcesHash());
if (!fs.existsSync(dir)) await bundle(dir);
const entry = await import(pathToFileURL(path.join(dir, `${command}.js`)).href);
if (typeof entry.main === 'function') {
  const code = await entry.main(args);
  if (typeof code === 'number') process.exitCode = code;
}

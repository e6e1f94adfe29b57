// The build's cache checks what it reads before it trusts it, and deletes only what it made, through
// the real command (`node build/launch.mjs build`): a record line edited in the cache is a miss,
// never published; code and pages are taken only from the project's own cache, never from
// CRS_CACHE_DIR, and one edited there is a miss, never run or copied; the output is a clean build's.
// A CRS_CACHE_DIR that holds anything else (a user's folder, the project, the data folder) is
// refused in one line, exit code 2, and left byte for byte as it was.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import v8 from 'node:v8';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { buildWorld, fixtureWorld, snapshot, tempDir, withCacheDir } from './helpers.ts';

const exec = promisify(execFile);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `node build/launch.mjs build` of `data` into `out`, of the project in `root`, with the cache in `cache` (the default without). */
async function build(cache: string | undefined, data: string, out: string, root = projectRoot): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, BASE_URL: 'http://localhost:3000', CRS_CACHE_DIR: cache };
  if (cache === undefined) delete env.CRS_CACHE_DIR;
  const args = [path.join(root, 'build/launch.mjs'), 'build', '--data', data, '--out', out, '--plain', '--report', 'json'];
  try {
    const { stdout, stderr } = await exec(process.execPath, args, { cwd: root, env, maxBuffer: 1 << 26 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const { code, stdout, stderr } = err as Run;
    return { code, stdout, stderr };
  }
}

/** What a build that succeeded reports: how many files it parsed, and how many records it took from the cache. */
function counts(result: Run): { parsed: number; cached: number } {
  expect(result.code, result.stderr).toBe(0);
  const { parsed, cached } = JSON.parse(result.stdout) as { parsed: number; cached: number };
  return { parsed, cached };
}

/** The stderr of a refused run: one line, and no stack. */
function refusal(result: Run): string {
  expect(result.code, result.stderr).toBe(2);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).not.toMatch(/\bat .*:\d+:\d+/);
  return lines[0]!;
}

/** The one entry of an area of the cache. */
function onlyEntry(cache: string, area: string): string {
  const entries = fs.readdirSync(path.join(cache, area)).filter((name) => /^[A-Za-z0-9_-]{8,64}$/.test(name));
  expect(entries, area).toHaveLength(1);
  return path.join(cache, area, entries[0]!);
}

/** The entry of the validators area of `cache` holding the code of `kind`'s validators. */
function kindEntry(cache: string, kind: string): string {
  const area = path.join(cache, 'validators');
  const entries = fs.readdirSync(area).filter((name) => fs.existsSync(path.join(area, name, `${kind}.cjs`)));
  expect(entries, kind).toHaveLength(1);
  return path.join(area, entries[0]!);
}

/** Gives an entry's list the hash of the file at `name` as it now is, as someone who edits the cache with care would. */
function rehash(entry: string, name: string): void {
  const list = path.join(entry, '.entry.json');
  if (!fs.existsSync(list)) return; // a cache that keeps no hashes
  const manifest = JSON.parse(fs.readFileSync(list, 'utf8')) as { files: Record<string, string> };
  manifest.files[name] = createHash('sha256')
    .update(fs.readFileSync(path.join(entry, name)))
    .digest('hex');
  fs.writeFileSync(list, JSON.stringify(manifest));
}

/** Edits the record of the file `rel` (as the cache names it) in the checked records a cache holds. */
function forge(cache: string, rel: string, edit: (record: Record<string, unknown>) => void, withHash = true): void {
  for (const key of fs.readdirSync(path.join(cache, 'records'))) {
    const file = path.join(cache, 'records', key, 'records');
    if (!fs.existsSync(file)) continue;
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((line) => line.startsWith(`${rel}\t`));
    if (at < 0) continue;
    const [name, hash, json] = lines[at]!.split('\t');
    const record = JSON.parse(json!) as Record<string, unknown>;
    edit(record);
    lines[at] = [name, hash, JSON.stringify(record)].join('\t');
    fs.writeFileSync(file, lines.join('\n'));
    if (withHash) rehash(path.join(cache, 'records', key), 'records');
    return;
  }
  throw new Error(`no record of ${rel} in the cache`);
}

/** Sets the times of everything under `dir`, and its own, to long ago: the first a pruning would remove. */
function age(dir: string): void {
  for (const name of fs.readdirSync(dir, { recursive: true })) fs.utimesSync(path.join(dir, String(name)), 1000, 1000);
  fs.utimesSync(dir, 1000, 1000);
}

/** A folder of a user's: look-alike key folders with files in them, and a file. */
function userFolder(dir: string, under: string): void {
  for (const name of ['holiday-photos', 'taxes-2024', 'thesis_drafts', 'old-laptop', 'recipes1', 'music-mixes']) {
    fs.mkdirSync(path.join(dir, under, name), { recursive: true });
    fs.writeFileSync(path.join(dir, under, name, 'notes.txt'), `${name}\n`);
  }
  fs.mkdirSync(path.join(dir, 'drafts.tmp'));
  fs.writeFileSync(path.join(dir, 'drafts.tmp', 'draft.txt'), 'a draft\n');
  fs.writeFileSync(path.join(dir, 'todo.md'), '- water the plants\n');
  age(dir);
}

/** A cache folder holding what the clean build left, to edit. */
function copyOf(cache: string, to: string): string {
  fs.cpSync(cache, to, { recursive: true, verbatimSymlinks: true });
  return to;
}

let world: { root: string; data: string };
let cleanCache: string;
let clean: Map<string, string>;
let files: number;

beforeAll(async () => {
  world = await fixtureWorld('starter');
  cleanCache = path.join(world.root, 'clean-cache');
  const out = path.join(world.root, 'clean');
  expect(counts(await build(cleanCache, world.data, out))).toMatchObject({ cached: 0 });
  clean = await snapshot(out);
  files = fs.readdirSync(world.data, { recursive: true }).filter((f) => String(f).endsWith('.yaml')).length;
});

describe('a checked record edited in the cache', () => {
  it('is never published, even with its hash written again: its file is checked anew, and the output is a clean build', async () => {
    const cache = copyOf(cleanCache, path.join(world.root, 'forged-cache'));
    forge(cache, 'data/type/fire.yaml', (r) => (r.name = 'FIRE!'));
    forge(cache, 'data/type/water.yaml', (r) => (r.id = -7));
    forge(cache, 'data/stat/attack.yaml', (r) => (r.game_index = 2 ** 31));
    forge(cache, 'data/stat/defense.yaml', (r) => (r.move_damage_class = { url: 'javascript:alert(1)' }));
    const out = path.join(world.root, 'forged');
    expect(counts(await build(cache, world.data, out))).toEqual({ parsed: 4, cached: files - 4 });
    expect(await snapshot(out)).toEqual(clean);
    // The lines are kept again as the build checked them.
    expect(counts(await build(cache, world.data, path.join(world.root, 'after-forged')))).toEqual({ parsed: 0, cached: files });
  });

  it('is never published when the checking threads take the records either: its file is checked anew there', async () => {
    const cache = path.join(world.root, 'threads-cache');
    await withCacheDir(cache, async () => {
      const out = (name: string) => path.join(world.root, name);
      const onThreads = (name: string) => buildWorld({ dataDir: world.data, outDir: out(name), plain: true }, { checkOnThreads: true });
      expect(await onThreads('threads-cold')).toMatchObject({ cached: 0 });
      forge(cache, 'data/type/fire.yaml', (r) => (r.name = 'FIRE!'));
      forge(cache, 'data/stat/defense.yaml', (r) => (r.move_damage_class = { url: 'javascript:alert(1)' }));
      expect(await onThreads('threads-forged')).toMatchObject({ parsed: 2, cached: files - 2 });
      expect(await snapshot(out('threads-forged'))).toEqual(await snapshot(out('threads-cold')));
    });
  });

  it('without its hash written again makes the kind it is of a miss', async () => {
    const cache = copyOf(cleanCache, path.join(world.root, 'edited-cache'));
    forge(cache, 'data/type/fire.yaml', (r) => (r.name = 'FIRE!'), false);
    const out = path.join(world.root, 'edited');
    const types = fs.readdirSync(path.join(world.data, 'type')).length;
    expect(counts(await build(cache, world.data, out))).toEqual({ parsed: types, cached: files - types });
    expect(await snapshot(out)).toEqual(clean);
  });
});

describe('code in the cache', () => {
  // Code and pages are kept only in the project's own root, beside its packages: a project copied
  // with a cache of its own, built once, holds them there.
  let project: string;
  let own: string;
  beforeAll(async () => {
    project = await copyProject(['schemas', 'explorer', 'vite.config.ts', 'tsconfig.json', 'hosts/serve.json', 'hosts/cloudflare']);
    own = path.join(project, 'node_modules/.cache/creature-reference-service');
    counts(await build(undefined, world.data, path.join(world.root, 'own-first'), project));
  });

  it('is never taken from CRS_CACHE_DIR, even an entry whose hashes were written again', async () => {
    const cache = copyOf(cleanCache, path.join(world.root, 'planted-cache'));
    const ran = path.join(world.root, 'planted-ran');
    for (const area of ['build', 'validators']) fs.cpSync(path.join(own, area), path.join(cache, area), { recursive: true });
    const bundle = onlyEntry(cache, 'build');
    fs.writeFileSync(
      path.join(bundle, 'build.js'),
      `import fs from 'node:fs'; fs.writeFileSync(${JSON.stringify(ran)}, 'ran'); export const main = async () => 0;`,
    );
    rehash(bundle, 'build.js');
    const validators = kindEntry(cache, 'type');
    fs.writeFileSync(
      path.join(validators, 'type.cjs'),
      `require('node:fs').writeFileSync(${JSON.stringify(ran)}, 'ran'); module.exports = {};`,
    );
    rehash(validators, 'type.cjs');
    const out = path.join(world.root, 'planted');
    counts(await build(cache, world.data, out, project));
    expect(fs.existsSync(ran)).toBe(false);
    expect(await snapshot(out)).toEqual(clean);
  });

  it("is never run when edited in the project's own cache: the validators", async () => {
    const ran = path.join(world.root, 'validators-ran');
    fs.writeFileSync(
      path.join(kindEntry(own, 'type'), 'type.cjs'),
      `require('node:fs').writeFileSync(${JSON.stringify(ran)}, 'ran'); module.exports = {};`,
    );
    const out = path.join(world.root, 'validators');
    counts(await build(path.join(world.root, 'validators-records'), world.data, out, project));
    expect(fs.existsSync(ran)).toBe(false);
    expect(await snapshot(out)).toEqual(clean);
  });

  it("is compiled anew when V8's code cache of the validators is edited, even with its hash written again, and a good one kept", async () => {
    const entry = kindEntry(own, 'type');
    const codeCache = path.join(entry, 'type.run.v8-cache');
    const garbage = Buffer.alloc(fs.statSync(codeCache).size, 7);
    fs.writeFileSync(codeCache, garbage);
    rehash(entry, 'type.run.v8-cache');
    const out = path.join(world.root, 'code-cache');
    counts(await build(path.join(world.root, 'code-cache-records'), world.data, out, project));
    expect(await snapshot(out)).toEqual(clean);
    // V8 refused it; the build kept the code cache it made, which the next build takes.
    const kept = fs.readFileSync(path.join(kindEntry(own, 'type'), 'type.run.v8-cache'));
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.equals(garbage)).toBe(false);
  });

  it("is never run when edited in the project's own cache: the launcher's bundle", async () => {
    const ran = path.join(world.root, 'bundle-ran');
    fs.writeFileSync(
      path.join(onlyEntry(own, 'build'), 'build.js'),
      `import fs from 'node:fs'; fs.writeFileSync(${JSON.stringify(ran)}, 'ran'); export const main = async () => 0;`,
    );
    const out = path.join(world.root, 'bundle');
    counts(await build(path.join(world.root, 'bundle-records'), world.data, out, project));
    expect(fs.existsSync(ran)).toBe(false);
    expect(await snapshot(out)).toEqual(clean);
  });

  it("is never copied into the output when edited in the project's own cache: the explorer page and the worker", async () => {
    fs.writeFileSync(path.join(onlyEntry(own, 'explorer'), 'files', 'index.html'), '<script>planted()</script>');
    fs.writeFileSync(path.join(onlyEntry(own, 'host-code'), 'files', '_worker.js'), 'planted();');
    const out = path.join(world.root, 'page');
    counts(await build(path.join(world.root, 'page-records'), world.data, out, project));
    expect(await snapshot(out)).toEqual(clean);
  });

  it('prunes only what it made: folders it did not make among its entries are left alone', async () => {
    const entry = path.basename(kindEntry(own, 'type'));
    // Foreign folders among the validators' entries, older than any: the first a pruning would take.
    userFolder(path.join(own, 'validators'), '.');
    const foreign = await snapshot(path.join(own, 'validators'));
    for (const name of [...foreign.keys()]) if (name.startsWith(`${entry}/`)) foreign.delete(name);
    fs.writeFileSync(path.join(own, 'validators', entry, 'type.cjs'), 'module.exports = (');
    counts(await build(path.join(world.root, 'pruned-records'), world.data, path.join(world.root, 'pruned'), project));
    // The damaged entry was made again, beside every foreign folder.
    const after = await snapshot(path.join(own, 'validators'));
    for (const [name, text] of foreign) expect(after.get(name), name).toBe(text);
    expect(after.get(`${entry}/type.cjs`)).toContain('exports');
  });

  it("is derived anew when the kept schemas are edited in the project's own cache: without their hash, or as bytes V8 cannot read with it", async () => {
    const entry = onlyEntry(own, 'schemas');
    const kept = path.join(entry, 'schemas.v8');
    const good = fs.readFileSync(kept);
    // A kept set whose published schemas say otherwise, its hash left as it was: a miss.
    const forged = v8.deserialize(good) as { documents: Map<string, { description?: string }> };
    for (const doc of forged.documents.values()) doc.description = 'Forged';
    fs.writeFileSync(kept, v8.serialize(forged));
    const out = path.join(world.root, 'schemas-forged');
    counts(await build(path.join(world.root, 'schemas-forged-records'), world.data, out, project));
    expect(await snapshot(out)).toEqual(clean);
    // Made again: the same set (v8.serialize writes an array dense or sparse as V8 holds it, so the bytes can differ).
    expect(v8.deserialize(fs.readFileSync(kept))).toEqual(v8.deserialize(good));
    fs.writeFileSync(kept, Buffer.alloc(good.length, 7));
    rehash(entry, 'schemas.v8');
    const garbled = path.join(world.root, 'schemas-garbled');
    counts(await build(path.join(world.root, 'schemas-garbled-records'), world.data, garbled, project));
    expect(await snapshot(garbled)).toEqual(clean);
  });

  it('keeps the schemas apart for other schema files: one edited is a miss, and its words are published', async () => {
    const file = path.join(project, 'schemas/gender.json');
    const schema = JSON.parse(fs.readFileSync(file, 'utf8')) as { description: string };
    schema.description = 'A gender, as the edited schema file says.';
    fs.writeFileSync(file, JSON.stringify(schema, null, 2));
    const out = path.join(world.root, 'schemas-edited');
    counts(await build(path.join(world.root, 'schemas-edited-records'), world.data, out, project));
    expect(fs.readdirSync(path.join(own, 'schemas')).filter((name) => !name.startsWith('.'))).toHaveLength(2);
    const published = JSON.parse(fs.readFileSync(path.join(out, 'schema/v2/gender.json'), 'utf8')) as { description: string };
    expect(published.description).toBe(schema.description);
  });
});

describe('CRS_CACHE_DIR', () => {
  it("inside a build's output is refused: that build's next would replace it", async () => {
    const inside = path.join(world.root, 'clean', 'cache');
    expect(refusal(await build(inside, world.data, path.join(world.root, 'elsewhere')))).toMatch(
      /^CRS_CACHE_DIR .*clean\/cache: is inside .*clean, a build's output, which the next build replaces/,
    );
    expect(fs.existsSync(inside)).toBe(false);
  });

  it('set to nothing, as a CI may leave a variable, is the default cache, not the folder the build runs in', async () => {
    const out = path.join(world.root, 'unset-cache');
    counts(await build('', world.data, out));
    expect(await snapshot(out)).toEqual(clean);
  });

  it("naming a user's folder that holds look-alike key folders is refused, and the folder left as it was", async () => {
    const user = path.join(await tempDir(), 'work');
    userFolder(user, 'build');
    const before = await snapshot(user);
    const out = path.join(world.root, 'user-out');
    expect(refusal(await build(user, world.data, out))).toMatch(/^CRS_CACHE_DIR .*work: holds build, drafts\.tmp, todo\.md/);
    expect(await snapshot(user)).toEqual(before);
    expect(fs.existsSync(out)).toBe(false);
  });

  it('naming the data folder, or a folder inside it, is refused, and the data left as it was', async () => {
    const before = await snapshot(world.data);
    const out = path.join(world.root, 'data-out');
    expect(refusal(await build(world.data, world.data, out))).toContain(`is the data folder`);
    const inside = path.join(world.data, '.cache');
    expect(refusal(await build(inside, world.data, out))).toContain(`is inside the data folder`);
    expect(await snapshot(world.data)).toEqual(before);
  });

  it('naming the project, or a folder holding it, is refused, and the project left as it was', async () => {
    const root = await copyProject();
    const before = await snapshot(path.join(root, 'build'));
    const out = path.join(world.root, 'project-out');
    expect(refusal(await build(root, world.data, out, root))).toBe(`CRS_CACHE_DIR ${root}: is the project; choose another folder`);
    expect(refusal(await build(path.dirname(root), world.data, out, root))).toContain('holds the project');
    expect(await snapshot(path.join(root, 'build'))).toEqual(before);
    expect(fs.readdirSync(root).sort()).toEqual(['build', 'node_modules', 'package-lock.json', 'package.json']);
  });

  it('left unset, adopts the default folder an older build left unmarked: what it held is cleared, and never run', async () => {
    const root = await copyProject(['schemas', 'explorer', 'vite.config.ts', 'tsconfig.json', 'hosts/serve.json', 'hosts/cloudflare']);
    const ran = path.join(root, 'ran');
    const old = path.join(root, 'node_modules/.cache/creature-reference-service/build/Old-Bundle-Key');
    fs.mkdirSync(old, { recursive: true });
    fs.writeFileSync(path.join(old, 'build.js'), `import fs from 'node:fs'; fs.writeFileSync(${JSON.stringify(ran)}, 'ran');`);
    const out = path.join(root, 'dist');
    counts(await build(undefined, world.data, out, root));
    expect(fs.existsSync(ran)).toBe(false);
    expect(fs.existsSync(old)).toBe(false);
    expect(fs.readFileSync(path.join(root, 'node_modules/.cache/creature-reference-service/CACHEDIR.TAG'), 'utf8')).toMatch(/^Signature: /);
    expect(await snapshot(out)).toEqual(clean);
  });
});

/** A copy of the project's build code (and `more` of it) beside its libraries, with no cache of its own. */
async function copyProject(more: string[] = []): Promise<string> {
  const root = await tempDir();
  for (const dir of ['build', ...more]) fs.cpSync(path.join(projectRoot, dir), path.join(root, dir), { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(projectRoot, file), path.join(root, file));
  fs.mkdirSync(path.join(root, 'node_modules'));
  for (const name of fs.readdirSync(path.join(projectRoot, 'node_modules'))) {
    if (name !== '.cache') fs.symlinkSync(path.join(projectRoot, 'node_modules', name), path.join(root, 'node_modules', name));
  }
  return root;
}

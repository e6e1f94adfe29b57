// A kind of one's own, as docs/KINDS.md adds it: in a copy of the project, a schema (trinket.json), a
// list of the records pointing at a type declared on the type's schema (x-inverse), `npm run types`
// and two YAML records, no code. The kind is then everywhere a kind is: the index, its list, its
// records by id and by name, its NDJSON file, the OpenAPI document, /schema/v2/, the types, the
// editors' settings, the list on the records it points at, and the explorer in Chromium.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { launchChromium } from './browser.ts';
import { fixturesDir, serve, tempDir } from './helpers.ts';

const run = promisify(execFile);
const BASE = 'http://localhost:3000';
// The build's own default address (vitest sets BASE_URL to one of its own).
const env = { ...process.env, BASE_URL: BASE };

const TRINKET = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'trinket.json',
  title: 'Trinket',
  description: 'A small bead a creature may wear.',
  type: 'object',
  required: ['id', 'name', 'size', 'type', 'names'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    size: { type: 'integer', minimum: 1, description: 'Across, in millimetres.' },
    type: { $ref: 'common.json#/$defs/NamedRef', 'x-ref': 'type' },
    names: { $ref: 'common.json#/$defs/Names' },
  },
};
const TRINKETS = {
  type: 'array',
  items: { $ref: 'common.json#/$defs/NamedRef', 'x-ref': 'trinket' },
  'x-inverse': { kind: 'trinket', field: 'type' },
};
const record = (id: number, name: string, type: string, en: string) =>
  `id: ${id}\nname: ${name}\nsize: ${id * 10}\ntype: ${type}\nnames:\n  - { name: ${en}, language: en }\n`;

/** A copy of what the project builds from, beside its libraries (its own cache: none is shared). */
async function copyProject(): Promise<string> {
  const root = await tempDir('crs-own-kind-');
  for (const entry of ['build', 'schemas', 'explorer', 'hosts/cloudflare', 'hosts/serve.json', '.vscode'])
    fs.cpSync(path.join(projectRoot, entry), path.join(root, entry), { recursive: true });
  for (const file of ['package.json', 'package-lock.json', 'tsconfig.json', 'vite.config.ts'])
    fs.copyFileSync(path.join(projectRoot, file), path.join(root, file));
  fs.mkdirSync(path.join(root, 'node_modules'));
  for (const name of fs.readdirSync(path.join(projectRoot, 'node_modules')))
    if (name !== '.cache') fs.symlinkSync(path.join(projectRoot, 'node_modules', name), path.join(root, 'node_modules', name));
  fs.cpSync(path.join(fixturesDir, 'starter'), path.join(root, 'data'), { recursive: true });
  return root;
}

async function command(root: string, file: string, args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd: root, env });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const { code, stdout, stderr } = err as { code: number; stdout: string; stderr: string };
    return { code, out: stdout + stderr };
  }
}

let root: string;
let out: string;
let built: { code: number; out: string };
let types: { code: number; out: string };
const readJson = (rel: string) => JSON.parse(fs.readFileSync(path.join(out, rel), 'utf8'));
const read = (rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');

beforeAll(async () => {
  root = await copyProject();
  out = path.join(root, 'dist');
  fs.writeFileSync(path.join(root, 'schemas/trinket.json'), `${JSON.stringify(TRINKET, null, 2)}\n`);
  const typeSchema = JSON.parse(read('schemas/type.json'));
  typeSchema.properties.trinkets = TRINKETS;
  typeSchema.required.push('trinkets');
  fs.writeFileSync(path.join(root, 'schemas/type.json'), `${JSON.stringify(typeSchema, null, 2)}\n`);
  fs.mkdirSync(path.join(root, 'data/trinket'));
  fs.writeFileSync(path.join(root, 'data/trinket/pearl.yaml'), record(2, 'pearl', 'water', 'Pearl Bead'));
  fs.writeFileSync(path.join(root, 'data/trinket/ember.yaml'), record(1, 'ember', 'fire', 'Ember Bead'));
  types = await command(root, 'npm', ['run', 'types']);
  built = await command(root, process.execPath, ['build/launch.mjs', 'build']);
}, 600_000);

afterAll(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

describe('a kind from a schema alone', () => {
  it('builds, and its records are counted', () => {
    expect(types.code, types.out).toBe(0);
    expect(built.code, built.out).toBe(0);
    expect(built.out).toMatch(/^ {2}trinket +2$/m);
  });

  it('is in the index, and its list holds its records by id', () => {
    expect(readJson('api/v2/index.json').trinket).toBe(`${BASE}/api/v2/trinket/`);
    expect(readJson('api/v2/trinket/index.json')).toEqual({
      count: 2,
      next: null,
      previous: null,
      results: [
        { name: 'ember', url: `${BASE}/api/v2/trinket/1/` },
        { name: 'pearl', url: `${BASE}/api/v2/trinket/2/` },
      ],
    });
  });

  it('publishes each record by id and by name, its reference resolved, and all of them in its NDJSON file', () => {
    const ember = readJson('api/v2/trinket/1/index.json');
    expect(ember).toEqual({
      id: 1,
      name: 'ember',
      size: 10,
      type: { name: 'fire', url: `${BASE}/api/v2/type/2/` },
      names: [{ name: 'Ember Bead', language: { name: 'en', url: `${BASE}/api/v2/language/1/` } }],
    });
    expect(readJson('api/v2/trinket/ember/index.json')).toEqual(ember);
    const lines = fs.readFileSync(path.join(out, 'api/v2/trinket/all.ndjson'), 'utf8').trim().split('\n');
    expect(lines.map((line) => JSON.parse(line).name)).toEqual(['ember', 'pearl']);
    expect(readJson('api/v2/ndjson/index.json').results).toContainEqual({ name: 'trinket', url: `${BASE}/api/v2/trinket/all.ndjson` });
  });

  it('lists the trinkets on the type each names: the list declared in the schema, no code', () => {
    const types = readJson('api/v2/type/index.json').results as Array<{ name: string; url: string }>;
    const trinketsOf = (name: string) => readJson(`api/v2/type/${name}/index.json`).trinkets;
    expect(trinketsOf('fire')).toEqual([{ name: 'ember', url: `${BASE}/api/v2/trinket/1/` }]);
    expect(trinketsOf('water')).toEqual([{ name: 'pearl', url: `${BASE}/api/v2/trinket/2/` }]);
    for (const { name } of types.filter((t) => !['fire', 'water'].includes(t.name))) expect(trinketsOf(name), name).toEqual([]);
  });

  it('is described by the OpenAPI document and /schema/v2/, with the type’s new list', () => {
    const doc = readJson('api/v2/openapi.json');
    expect(doc.paths['/api/v2/trinket/'].get.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/NamedRefList',
    );
    expect(doc.paths['/api/v2/trinket/{id}/'].get.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/Trinket',
    );
    expect(doc.components.schemas.Trinket.properties.size).toEqual({ type: 'integer', minimum: 1, description: 'Across, in millimetres.' });
    expect(doc.components.schemas.Type.properties.trinkets).toEqual({ type: 'array', items: { $ref: '#/components/schemas/NamedRef' } });
    const schema = readJson('schema/v2/trinket.json');
    expect(schema.$id).toBe(`${BASE}/schema/v2/trinket.json`);
    expect(schema.properties.type).toEqual({ $ref: 'common.json#/$defs/NamedRef' });
    expect(readJson('schema/v2/type.json').properties.trinkets.items).toEqual({ $ref: 'common.json#/$defs/NamedRef' });
  });

  it('has its TypeScript type, its source schema for editors and its line in the editor settings, from `npm run types`', () => {
    const api = read('build/api-types.ts');
    expect(api).toMatch(/export interface Trinket \{/);
    expect(api).toMatch(/trinket: Trinket;/);
    expect(api).toMatch(/trinkets: NamedRef\[\];/);
    const source = JSON.parse(read('schemas/source/trinket.json'));
    expect(source.properties.type['x-ref']).toBe('type');
    expect(JSON.parse(read('schemas/source/type.json')).properties.trinkets).toBeUndefined(); // derived: never written
    expect(JSON.parse(read('.vscode/settings.json'))['yaml.schemas']['.editor-schemas/trinket.json']).toEqual([
      'data/trinket/*.yaml',
      'data/trinket/*.yml',
    ]);
  });

  describe('in the explorer', () => {
    let browser: Browser;
    let server: Awaited<ReturnType<typeof serve>>;
    beforeAll(async () => {
      server = await serve(out);
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      await server?.close();
    });

    it('is in the kind menu and on the home page, and a trinket has its page, linked from its type', async () => {
      const page = await browser.newPage();
      await page.goto(`${server.url}/`);
      await expect.poll(() => page.locator('#kind option[value="trinket"]').textContent()).toBe('Trinket');
      await expect.poll(() => page.locator('.kind-card .kind-name').allTextContents()).toContain('Trinket');
      await page.selectOption('#kind', 'trinket');
      await page.waitForURL(/#\/trinket$/);
      await expect.poll(() => page.locator('#results li a .name').allTextContents()).toEqual(['ember', 'pearl']);
      await page.goto(`${server.url}/#/type/fire`);
      await page.locator('a[href="#/trinket/1"]').click();
      await page.waitForURL(/#\/trinket\/1$/);
      await page
        .locator('.record h1')
        .filter({ hasText: /^Ember Bead$/ })
        .waitFor();
      expect(await page.locator('.record a[href="#/type/2"]').count()).toBeGreaterThan(0);
      await page.close();
    });
  });

  it('refuses, in one line, a sub-resource publishing whole a list that is not of x-ref-by objects', async () => {
    const written = read('schemas/trinket.json');
    const trinket = JSON.parse(written);
    trinket.properties.names['x-sub-resource'] = {
      name: 'all-names',
      whole: true,
      title: 'AllNames',
      description: 'Every name.',
      schema: {},
    };
    fs.writeFileSync(path.join(root, 'schemas/trinket.json'), JSON.stringify(trinket));
    try {
      const { code, out: said } = await command(root, process.execPath, ['build/launch.mjs', 'build', '--check']);
      expect(code).toBe(2);
      expect(said.trim().split('\n').at(-1)).toBe(
        'schemas/trinket.json: an x-sub-resource "whole" is for a written list of x-ref-by objects, which names is not',
      );
      expect(said).not.toMatch(/\n\s+at /);
    } finally {
      fs.writeFileSync(path.join(root, 'schemas/trinket.json'), written);
    }
  });

  it('refuses, in one line, an x-inverse naming a field that does not point at the kind holding the list', async () => {
    const typeSchema = JSON.parse(read('schemas/type.json'));
    typeSchema.properties.trinkets['x-inverse'].field = 'size';
    fs.writeFileSync(path.join(root, 'schemas/type.json'), JSON.stringify(typeSchema));
    const { code, out: said } = await command(root, process.execPath, ['build/launch.mjs', 'build', '--check']);
    expect(code).toBe(2);
    expect(said.trim().split('\n').at(-1)).toBe(
      'schemas/type.json: the x-inverse of trinkets: trinket.size is not a reference to a type, nor a list of them',
    );
    expect(said).not.toMatch(/\n\s+at /); // no stack trace
  });
});

// The OpenAPI document and the published JSON Schemas: a real OpenAPI 3.1 validator accepts the
// document, every kind has its paths, and every file a build writes conforms to the schema the
// document declares for the url it is served at.
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../build/pipeline/build.ts';
import { descriptionFiles, openapiDocument, schemaFiles } from '../build/schemas/openapi.ts';
import { apiPaths } from '../build/paths.ts';
import { DEFAULT_WORLD } from '../build/pipeline/world.ts';
import { loadSchemas, type Schema } from '../build/schemas/schemas.ts';
import { fixtureWorld, listFiles, serve } from './helpers.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const schemas = loadSchemas();
const kinds = [...schemas.kinds.keys()];
const BASE = 'http://127.0.0.1:9';
/** The title and description a world's settings file gives the document. */
const ABOUT = { title: 'The Test World', description: 'A world that the document describes.' };

/** An Ajv holding the whole document, so `#/components/...` refs resolve as they do in it. */
function documentAjv(doc: Schema): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi.json');
  return ajv;
}

/** Compiles the schema found at `pointer` inside the document. */
function compileAt(ajv: Ajv2020, pointer: string): ValidateFunction {
  const fragment = pointer
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/');
  const fn = ajv.getSchema(`openapi.json#${fragment}`);
  if (!fn) throw new Error(`no schema at ${pointer}`);
  return fn as ValidateFunction;
}

const readUtf8 = (file: string) => readFileSync(file, 'utf8');
const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** The document path (template) that answers `urlPath`, with its parameters. */
function matchPath(doc: Schema, urlPath: string): { template: string; params: Record<string, string> } | undefined {
  const found: { template: string; params: Record<string, string> }[] = [];
  for (const template of Object.keys(doc.paths)) {
    const names: string[] = [];
    const re = new RegExp(
      '^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{([^}]+)\\?\}/g, (_, n: string) => (names.push(n), '([^/]+)')) + '$',
    );
    const m = re.exec(urlPath);
    if (m) found.push({ template, params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)])) });
  }
  // A literal path wins over a template, as OpenAPI says; there should never be two of either.
  found.sort((a, b) => Object.keys(a.params).length - Object.keys(b.params).length);
  return found[0];
}

/** Resolves a `$ref` inside the document (one level: parameters and responses). */
function deref(doc: Schema, node: Schema): Schema {
  if (typeof node.$ref !== 'string') return node;
  let target: any = doc;
  for (const seg of node.$ref.replace(/^#\//, '').split('/')) target = target[seg.replace(/~1/g, '/').replace(/~0/g, '~')];
  return deref(doc, target);
}

describe('the OpenAPI document', () => {
  const doc = openapiDocument(schemas, BASE, ABOUT);

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as never);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('would be rejected by the same validator if it broke the OpenAPI rules', async () => {
    const optionalPathParam = structuredClone(doc);
    optionalPathParam.components.parameters.id.required = false;
    expect((await new Validator().validate(optionalPathParam as never)).valid).toBe(false);
    const noVersion = structuredClone(doc);
    delete noVersion.info.version;
    expect((await new Validator().validate(noVersion as never)).valid).toBe(false);
  });

  it('has the index, and a list and a record path for every kind in schemas/', () => {
    expect(kinds).toEqual(
      expect.arrayContaining(['type', 'creature-form', 'location-area', 'athlon-stat', 'gender', 'stat', 'language', 'move']),
    );
    const expected = ['/api/v2/', '/api/v2/ndjson/', '/api/v2/meta/', ...kinds.flatMap((k) => [`/api/v2/${k}/`, `/api/v2/${k}/{id}/`])];
    const ndjson = kinds.map((k) => `/api/v2/${k}/all.ndjson`);
    // A creature's encounters, PokeAPI's one sub-resource of a record, and a form's trigger conditions
    // whole, each with its shape stated where it is.
    const encounters = '/api/v2/creature/{id}/encounters/';
    const triggers = '/api/v2/creature-form/{id}/trigger-conditions/';
    expect(Object.keys(doc.paths).sort()).toEqual([...expected, ...ndjson, encounters, triggers].sort());
    expect(doc.paths[encounters].get.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/LocationAreaEncounters',
    );
    expect(doc.components.schemas.LocationAreaEncounters.type).toBe('array');
    expect(doc.paths[triggers].get.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/FormTriggerConditions',
    );
    expect(doc.components.schemas.FormTriggerConditions.items.required).toEqual(['trigger']);
    for (const p of expected)
      expect(doc.paths[p].get.responses['200'].content['application/json'].schema.$ref).toMatch(/^#\/components\/schemas\//);
    for (const p of ndjson) expect(Object.keys(doc.paths[p].get.responses['200'].content), p).toEqual(['application/x-ndjson']);
    expect(doc.servers).toEqual([{ url: BASE }]);
    // The index lists kinds and meta only, as PokeAPI's: the document says where the NDJSON files are.
    expect(Object.keys(doc.components.schemas.ApiIndex.properties).sort()).toEqual([...kinds, 'meta'].sort());
    expect(doc.info.description).toContain('/api/v2/ndjson/');
    expect(doc.info.title).toBe(ABOUT.title);
    expect(doc.info.description.startsWith(`${ABOUT.description}\n`)).toBe(true);
  });

  it('declares the record schema of each kind, the list shape, and the JSON 404', () => {
    for (const [kind, info] of schemas.kinds) {
      const op = doc.paths[`/api/v2/${kind}/{id}/`].get;
      const ref: string = op.responses['200'].content['application/json'].schema.$ref;
      expect(doc.components.schemas[ref.split('/').pop()!].title).toBe(info.title);
      expect(op.responses['404']).toEqual({ $ref: '#/components/responses/NotFound' });
      // A kind whose records publish no name (characteristic) is listed by url alone, as PokeAPI lists it.
      const list = info.unpublished.includes('name') ? 'UrlList' : 'NamedRefList';
      expect(doc.paths[`/api/v2/${kind}/`].get.responses['200'].content['application/json'].schema.$ref, kind).toBe(
        `#/components/schemas/${list}`,
      );
    }
    expect(schemas.kinds.get('characteristic')!.unpublished).toContain('name');
    const notFound = deref(doc, doc.components.responses.NotFound).content['application/json'].schema;
    const ajv = documentAjv(doc);
    const urlList = compileAt(ajv, '/components/schemas/UrlList');
    const page = { count: 1, next: null, previous: null, results: [{ url: `${BASE}/api/v2/characteristic/1/` }] };
    expect(urlList(page)).toBe(true);
    expect(urlList({ ...page, results: [{ name: 'likes-to-run', url: `${BASE}/api/v2/characteristic/1/` }] })).toBe(false);
    const check = compileAt(ajv, '/components/responses/NotFound/content/application~1json/schema');
    expect(notFound.$ref).toBe('#/components/schemas/NotFound');
    expect(check({ detail: 'Not found.' })).toBe(true);
    expect(check({ detail: 'Gone.' })).toBe(false);
  });

  it('takes the id as a name or an integer, and only an integer for location-area', () => {
    for (const [kind, info] of schemas.kinds) {
      const [param] = doc.paths[`/api/v2/${kind}/{id}/`].get.parameters.map((p: Schema) => deref(doc, p));
      expect(param).toMatchObject({ name: 'id', in: 'path', required: true });
      expect(param.schema.type).toBe(info.byName ? 'string' : 'integer');
    }
    expect(schemas.kinds.get('location-area')!.byName).toBe(false);
    expect(schemas.kinds.get('type')!.byName).toBe(true);
  });

  it('carries no x- annotation and no ref outside itself', () => {
    const text = JSON.stringify(doc);
    expect(text).not.toMatch(/"x-[a-z-]+":/);
    const refs = [...text.matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(50);
    for (const ref of refs) expect(() => deref(doc, { $ref: ref }), ref).not.toThrow();
    for (const ref of refs) expect(deref(doc, { $ref: ref }), ref).toBeTypeOf('object');
  });

  it('is generated the same way every time', () => {
    expect(JSON.stringify(openapiDocument(loadSchemas(), BASE, ABOUT))).toBe(JSON.stringify(doc));
  });
});

describe('a built world against the document', () => {
  let world: { root: string; data: string; out: string };
  let server: { url: string; close: () => Promise<void> };
  let doc: Schema;
  let files: string[];

  beforeAll(async () => {
    world = await fixtureWorld('starter');
    await fs.mkdir(world.out, { recursive: true });
    server = await serve(world.out);
    await build({ dataDir: world.data, outDir: world.out, baseUrl: server.url });
    // The description files, as the emit stage publishes them; where the build wrote them
    // already, they must be these very bytes.
    // The starter world has no settings file: it has the default title and description.
    for (const [rel, body] of descriptionFiles(schemas, server.url, DEFAULT_WORLD)) {
      const file = path.join(world.out, rel);
      const written = await fs.readFile(file, 'utf8').catch(() => undefined);
      if (written !== undefined) expect(written, rel).toBe(body);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, body);
    }
    doc = openapiDocument(schemas, server.url, DEFAULT_WORLD);
    files = await listFiles(world.out);
  });
  afterAll(async () => {
    await server?.close();
    if (world) await fs.rm(world.root, { recursive: true, force: true });
  });

  it('has every record, list and index file conform to the 200 schema of its operation', () => {
    const ajv = documentAjv(doc);
    const compiled = new Map<string, ValidateFunction>();
    const checkedPerKind = new Map<string, number>();
    let checked = 0;
    for (const rel of files) {
      if (!rel.startsWith('api/v2/') || (!rel.endsWith('/index.json') && rel !== 'api/v2/index.json')) continue;
      const urlPath = '/' + rel.replace(/index\.json$/, '');
      const match = matchPath(doc, urlPath);
      expect(match, `${rel} is served at ${urlPath}, which the document does not describe`).toBeDefined();
      const op = doc.paths[match!.template].get;
      for (const param of (op.parameters ?? []).map((p: Schema) => deref(doc, p))) {
        if (param.in !== 'path') continue;
        const value = match!.params[param.name]!;
        if (param.schema.type === 'integer') expect(value, `${rel}: ${param.name}`).toMatch(/^[1-9][0-9]*$/);
        else expect(new RegExp(param.schema.pattern).test(value), `${rel}: ${param.name}=${value}`).toBe(true);
      }
      const pointer = `/paths/${esc(match!.template)}/get/responses/200/content/${esc('application/json')}/schema`;
      let check = compiled.get(pointer);
      if (!check) compiled.set(pointer, (check = compileAt(ajv, pointer)));
      const body = JSON.parse(readUtf8(path.join(world.out, rel)));
      const ok = check(body);
      expect(ok ? [] : check.errors, rel).toEqual([]);
      const kind = urlPath.split('/')[3] || 'index';
      checkedPerKind.set(kind, (checkedPerKind.get(kind) ?? 0) + 1);
      checked++;
    }
    // Every kind was checked: its list and at least one record (by id, and by name where it has names).
    for (const [kind, info] of schemas.kinds) expect(checkedPerKind.get(kind), kind).toBeGreaterThanOrEqual(info.byName ? 3 : 2);
    expect(checkedPerKind.get('index')).toBe(1);
    expect(checked).toBeGreaterThan(100);
  });

  it('has a record that breaks its declared schema rejected (the check can fail)', () => {
    const ajv = documentAjv(doc);
    const check = compileAt(ajv, `/paths/${esc('/api/v2/stat/{id}/')}/get/responses/200/content/${esc('application/json')}/schema`);
    const stat = JSON.parse(readUtf8(path.join(world.out, 'api/v2/stat/1/index.json')));
    expect(check(stat)).toBe(true);
    expect(check({ ...stat, base_stat: 5 })).toBe(false);
    expect(check({ ...stat, game_index: 'one' })).toBe(false);
  });

  it('has the 404 body conform to the NotFound response', () => {
    const check = compileAt(documentAjv(doc), '/components/responses/NotFound/content/application~1json/schema');
    expect(check(JSON.parse(readUtf8(path.join(world.out, '404.json'))))).toBe(true);
  });

  it('serves the document and the schemas as JSON, and a missing record as the declared 404', async () => {
    const res = await fetch(`${server.url}/${apiPaths.openapi}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(doc);
    const missing = await fetch(`${server.url}/api/v2/type/no-such-type/`);
    expect(missing.status).toBe(404);
    const check = compileAt(documentAjv(doc), '/components/responses/NotFound/content/application~1json/schema');
    expect(check(await missing.json())).toBe(true);
  });

  it('publishes schemas that a validator fetches from the server and checks every record with', async () => {
    const ajv = new Ajv2020({
      strict: true,
      allErrors: true,
      allowUnionTypes: true,
      loadSchema: async (uri) => {
        const res = await fetch(uri);
        if (!res.ok) throw new Error(`${uri}: ${res.status}`);
        return res.json();
      },
    });
    addFormats(ajv);
    let checked = 0;
    for (const kind of kinds) {
      const url = `${server.url}/schema/v2/${kind}.json`;
      const schema = await (await fetch(url)).json();
      expect(schema.$id).toBe(url);
      const check = await ajv.compileAsync(schema);
      const list = JSON.parse(readUtf8(path.join(world.out, `api/v2/${kind}/index.json`)));
      expect(list.count, kind).toBeGreaterThan(0);
      for (const ref of list.results as { url: string }[]) {
        const record = await (await fetch(ref.url)).json();
        expect(check(record) ? [] : check.errors, ref.url).toEqual([]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(ajv.getSchema(`${server.url}/schema/v2/common.json`)).toBeDefined();
  });
});

describe('the published schemas', () => {
  it('are one file per kind and common.json, without annotations', () => {
    const files = schemaFiles(schemas);
    expect([...files.keys()].sort()).toEqual([...kinds.map((k) => `schema/v2/${k}.json`), 'schema/v2/common.json'].sort());
    for (const [rel, text] of files) {
      expect(text, rel).not.toMatch(/"x-[a-z-]+":/);
      // Without a base url the $id stays relative: it resolves against wherever the file was fetched.
      expect(JSON.parse(text).$id).toBe(path.posix.basename(rel));
    }
    expect(schemas.documents.get('location-area.json')!['x-lookup']).toEqual(['id']);
  });

  it('have absolute $ids under the base url when given one', () => {
    const files = schemaFiles(schemas, 'https://example.org/crs');
    expect(JSON.parse(files.get('schema/v2/type.json')!).$id).toBe('https://example.org/crs/schema/v2/type.json');
    expect(JSON.parse(files.get('schema/v2/type.json')!).properties.generation.$ref).toBe('common.json#/$defs/NamedRef');
  });
});

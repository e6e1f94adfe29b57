// Every record the build publishes holds to PokeAPI's own shapes: the JSON Schemas PokeAPI infers
// from its real responses (test/fixtures/pokeapi-schema/), with "creature" read as "pokemon" and
// "athlon" as "pokeathlon" in keys and url paths. A field PokeAPI has may be missing here; none may
// have another shape, and none may be unknown to PokeAPI. Typed clients (pokenode-ts, PokeAPI's own
// schemas) rely on exactly this.
import fs from 'node:fs';
import path from 'node:path';
import { Ajv, type AnySchemaObject, type ValidateFunction } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiPaths, defaultDataDir } from '../build/paths.ts';
import { loadSchemas } from '../build/schemas/schemas.ts';
import { BASE, buildWorld, fixtureWorld, fixturesDir, tempDir } from './helpers.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const POKEAPI_DIR = path.join(fixturesDir, 'pokeapi-schema');
const POKEAPI = 'https://pokeapi.co';
const KINDS = [...loadSchemas().kinds.keys()];

/** A name of this API as PokeAPI spells it. */
const pokeapiName = (name: string) => name.replace(/creature/g, 'pokemon').replace(/athlon/g, 'pokeathlon');

/** A published record as PokeAPI would spell it: keys, and the path parts of its urls, renamed. */
function asPokeapi(value: Json): Json {
  if (Array.isArray(value)) return value.map(asPokeapi);
  if (typeof value === 'string' && value.startsWith(`${BASE}/`)) {
    return `${POKEAPI}/${value
      .slice(BASE.length + 1)
      .split('/')
      .map(pokeapiName)
      .join('/')}`;
  }
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [pokeapiName(k), asPokeapi(v)]));
}

/**
 * PokeAPI's inferred schema, made to say "no field PokeAPI lacks, no shape it does not have":
 * every object it describes takes no other keys, and none of its keys is required.
 */
function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) if (key !== 'required' && key !== '$schema') out[key] = closed(value);
  if (out.properties) out.additionalProperties = false;
  return out;
}

/**
 * The exceptions, each where this API's shape is set by its specification rather than by PokeAPI's
 * sample. They are kept to what the specification fixes; every other field is held as it is.
 */
const EXCEPTIONS: Record<string, (schema: AnySchemaObject) => void> = {
  // The specification (2.2) makes a type's sprite keys free-form: they are this world's generations
  // and version groups, where PokeAPI's sample lists its own by name. Each icon keeps PokeAPI's shape.
  type: (schema) => {
    const generations = schema.properties.sprites;
    const groups = Object.values(generations.properties as Record<string, AnySchemaObject>)[0]!;
    const icon = Object.values(groups.properties as Record<string, AnySchemaObject>)[0]!;
    schema.properties.sprites = { type: 'object', additionalProperties: { type: 'object', additionalProperties: icon } };
  },
  // A creature's sprite versions are this world's generations and version groups (the one its
  // default form came in), where PokeAPI's sample lists its own by name. Each keeps the shape of a
  // version group of PokeAPI's with all eight variants (generation-iv's platinum).
  creature: (schema) => {
    const versions = schema.properties.sprites.properties.versions;
    const group = versions.properties['generation-iv'].properties.platinum;
    schema.properties.sprites.properties.versions = {
      type: 'object',
      additionalProperties: { type: 'object', additionalProperties: group },
    };
  },
  // PokeAPI's sample has a number for every form's order and form_order, but its own description
  // of a form (and the specification, 2.3) lets either be null: a null is held to that.
  'creature-form': (schema) => {
    for (const field of ['order', 'form_order']) schema.properties[field] = { type: ['integer', 'null'] };
  },
  // PokeAPI's sample region has a main generation, but its own orre and hisui have none (null).
  region: (schema) => {
    schema.properties.main_generation = { oneOf: [schema.properties.main_generation, { type: 'null' }] };
  },
  // The specification (2.4) makes encounter_details one object and its condition_values one
  // reference, where PokeAPI gives lists of them: each is held to the shape of PokeAPI's list items.
  'location-area': (schema) => {
    const detail = schema.properties.pokemon_encounters.items.properties.version_details.items.properties;
    detail.encounter_details = detail.encounter_details.items;
    detail.encounter_details.properties.condition_values = detail.encounter_details.properties.condition_values.items;
  },
};

/** The vendored schema files, by the url PokeAPI gives them, so their `/schema/v2/…` refs resolve. */
function pokeapiValidators(): (kind: string) => ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: false });
  for (const file of fs.readdirSync(POKEAPI_DIR, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'))) {
    const schema = closed(JSON.parse(fs.readFileSync(path.join(POKEAPI_DIR, file), 'utf8'))) as AnySchemaObject;
    const rel = file.split(path.sep).join('/');
    const kind = /^v2\/([a-z-]+)\/\$id\/index\.json$/.exec(rel)?.[1];
    const exception = Object.entries(EXCEPTIONS).find(([k]) => pokeapiName(k) === kind)?.[1];
    exception?.(schema);
    ajv.addSchema({ ...schema, $id: `${POKEAPI}/schema/${rel}` });
  }
  return (kind) => ajv.getSchema(`${POKEAPI}/schema/v2/${pokeapiName(kind)}/$id/index.json`)!;
}
const pokeapi = pokeapiValidators();

/** Every published record of a built tree, by kind, read at its id path. */
function publishedRecords(out: string): Map<string, Array<{ id: number; record: Json }>> {
  const byKind = new Map<string, Array<{ id: number; record: Json }>>();
  for (const kind of KINDS) {
    const list = JSON.parse(fs.readFileSync(path.join(out, apiPaths.list(kind)), 'utf8')) as { results: Array<{ url: string }> };
    byKind.set(
      kind,
      list.results.map(({ url }) => {
        const id = Number(url.split('/').at(-2));
        return { id, record: JSON.parse(fs.readFileSync(path.join(out, apiPaths.record(kind, id)), 'utf8')) as Json };
      }),
    );
  }
  return byKind;
}

/** Where a record breaks PokeAPI's shape: `kind id pointer: message`, none when it holds. */
function conflicts(kind: string, id: number, record: Json): string[] {
  const validate = pokeapi(kind);
  if (validate(asPokeapi(record))) return [];
  return (validate.errors ?? []).map((e) => {
    const extra = e.keyword === 'additionalProperties' ? ` (${String(e.params.additionalProperty)})` : '';
    return `${kind} ${id} ${e.instancePath || '/'}: ${e.message}${extra}`;
  });
}

/** Every url path under /api/v2/ in a record, as PokeAPI would spell the kind it names. */
function* linkedKinds(value: Json): Generator<string> {
  if (typeof value === 'string' && value.startsWith(`${BASE}/api/v2/`)) yield pokeapiName(value.split('/')[5]!);
  else if (Array.isArray(value)) for (const v of value) yield* linkedKinds(v);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) yield* linkedKinds(v);
}

const worlds: Record<string, Map<string, Array<{ id: number; record: Json }>>> = {};
beforeAll(async () => {
  const starter = await fixtureWorld('starter');
  await buildWorld({ dataDir: starter.data, outDir: starter.out });
  const shipped = path.join(await tempDir('crs-pokeapi-'), 'dist');
  await buildWorld({ dataDir: defaultDataDir, outDir: shipped });
  worlds.starter = publishedRecords(starter.out);
  worlds.shipped = publishedRecords(shipped);
});

describe("PokeAPI's shapes", () => {
  it('has a vendored PokeAPI schema for every kind the API publishes', () => {
    for (const kind of KINDS) expect(pokeapi(kind), kind).toBeTypeOf('function');
  });

  for (const world of ['shipped', 'starter']) {
    it(`holds every record of the ${world} world to PokeAPI's schema of its kind`, () => {
      const found: string[] = [];
      for (const [kind, records] of worlds[world]!) {
        expect(records.length, kind).toBeGreaterThan(0);
        for (const { id, record } of records) found.push(...conflicts(kind, id, record));
      }
      expect(found).toEqual([]);
    });

    it(`links, in the ${world} world, only to kinds PokeAPI has`, () => {
      const pokeapiKinds = new Set(KINDS.map(pokeapiName));
      const linked = new Set([...worlds[world]!.values()].flatMap((records) => records.flatMap(({ record }) => [...linkedKinds(record)])));
      expect([...linked].filter((kind) => !pokeapiKinds.has(kind))).toEqual([]);
      expect(linked.size).toBeGreaterThan(10);
    });
  }

  it('reports a field PokeAPI lacks, a shape it does not have and a field under this API’s own spelling', () => {
    const [first] = worlds.starter!.get('creature')!;
    const record = first!.record as Record<string, Json>;
    expect(conflicts('creature', first!.id, record)).toEqual([]);
    expect(conflicts('creature', first!.id, { ...record, colour: 'red' })).toEqual([
      `creature ${first!.id} /: must NOT have additional properties (colour)`,
    ]);
    expect(conflicts('creature', first!.id, { ...record, stats: 'high' })).toEqual([`creature ${first!.id} /stats: must be array`]);
    // A key renamed back would be unknown: the renaming, not a loose schema, is what lets it pass.
    expect(pokeapi('creature')({ ...record, creature_forms: [] })).toBe(false);
    const species = worlds.starter!.get('creature-species')![0]!.record as Record<string, Json>;
    expect(conflicts('creature-species', 1, { ...species, varieties: [{ is_default: true, creature: 'x' }] })).not.toEqual([]);
  });
});

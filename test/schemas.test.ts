// The response schemas say what the specification says, and the source format derived from them
// leaves out exactly what the build derives.
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { derivations } from '../build/pipeline/derive.ts';
import { loadSchemas, stripAnnotations } from '../build/schemas/schemas.ts';
import { buildWorld, fixtureWorld, listFiles } from './helpers.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const schemas = loadSchemas();
const SPEC_KINDS = ['type', 'creature-form', 'location-area', 'athlon-stat', 'gender', 'stat'];

/** A fresh validator per kind, compiled from the schema files as a consumer would. */
function validators() {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  for (const doc of schemas.documents.values()) ajv.addSchema(stripAnnotations(doc));
  return (kind: string) => ajv.getSchema(`${kind}.json`)!;
}
const check = validators();

let out: string;
beforeAll(async () => {
  const world = await fixtureWorld();
  out = world.out;
  await buildWorld({ dataDir: world.data, outDir: world.out });
});

describe('response schemas', () => {
  it('has one schema per spec kind, and every built record validates against its kind', async () => {
    for (const kind of SPEC_KINDS) expect(schemas.kinds.has(kind)).toBe(true);
    const files = (await listFiles(out)).filter((f) => /^api\/v2\/[a-z-]+\/[^/]+\/index\.json$/.test(f));
    expect(files.length).toBeGreaterThan(100);
    for (const file of files) {
      const kind = file.split('/')[2]!;
      const validate = check(kind);
      const record = JSON.parse(fs.readFileSync(path.join(out, file), 'utf8'));
      expect(validate(record), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  const record = (kind: string, id: number) =>
    JSON.parse(fs.readFileSync(path.join(out, 'api/v2', kind, String(id), 'index.json'), 'utf8'));

  it('rejects a stat name of 201 characters and accepts 200', () => {
    const stat = record('stat', 1);
    expect(check('stat')({ ...stat, name: 'a'.repeat(200) })).toBe(true);
    expect(check('stat')({ ...stat, name: 'a'.repeat(201) })).toBe(false);
    const names = [{ ...stat.names[0], language: { ...stat.names[0].language, name: 'l'.repeat(201) } }];
    expect(check('stat')({ ...stat, names })).toBe(false);
    expect(check('stat')({ ...stat, move_damage_class: { ...stat.move_damage_class, name: 'm'.repeat(201) } })).toBe(false);
  });

  it('bounds stat.game_index and int32 fields to the signed 32-bit range', () => {
    const stat = record('stat', 1);
    expect(check('stat')({ ...stat, game_index: 2147483647 })).toBe(true);
    expect(check('stat')({ ...stat, game_index: 2147483648 })).toBe(false);
    expect(check('stat')({ ...stat, game_index: -2147483649 })).toBe(false);
    const area = record('location-area', 1);
    const rates = structuredClone(area.encounter_method_rates);
    rates[0].version_details[0].rate = 2 ** 31;
    expect(check('location-area')({ ...area, encounter_method_rates: rates })).toBe(false);
  });

  it('rejects a location-area whose encounter_details is an array', () => {
    const area = record('location-area', 1);
    expect(check('location-area')(area)).toBe(true);
    const bad = structuredClone(area);
    const vd = bad.creature_encounters[0].version_details[0];
    vd.encounter_details = [vd.encounter_details];
    expect(check('location-area')(bad)).toBe(false);
  });

  it('rejects a record missing a required field, and one with a field the spec does not list', () => {
    const type = record('type', 1);
    const { moves: _moves, ...withoutMoves } = type;
    expect(check('type')(withoutMoves)).toBe(false);
    expect(check('type')({ ...type, colour: 'red' })).toBe(false);
    const form = record('creature-form', 1);
    const { order: _order, is_mega: _mega, ...optionalGone } = form;
    expect(check('creature-form')(optionalGone)).toBe(true);
    expect(check('creature-form')({ ...form, order: null, form_order: null })).toBe(true);
  });

  it('keeps the spec shapes: trigger conditions, type creature items, sprites, characteristics', () => {
    const form = record('creature-form', 6);
    expect(form.trigger_conditions[0]).toEqual({
      trigger: 'held-item',
      name: 'emberite',
      url: expect.stringMatching(/\/api\/v2\/item\/4\/$/),
    });
    expect(record('creature-form', 8).trigger_conditions[0]).toEqual({
      trigger: 'ability',
      name: 'blaze-heart',
      url: expect.stringMatching(/\/api\/v2\/ability\/1\/$/),
    });
    expect(check('creature-form')({ ...form, trigger_conditions: [{ trigger: 'held-item', name: 'x' }] })).toBe(false);
    const type = record('type', 2);
    expect(check('type')({ ...type, creature: [{}, { slot: 1 }, { creature: {} }] })).toBe(true);
    expect(check('type')({ ...type, sprites: { 'generation-i': { 'dawn-dusk': { name_icon: 'not a uri' } } } })).toBe(false);
    expect(check('type')({ ...type, sprites: { 'generation-i': { 'dawn-dusk': {} } } })).toBe(true);
    const stat = record('stat', 1);
    expect(stat.characteristics[0]).toEqual({ url: expect.stringMatching(/\/api\/v2\/characteristic\/\d+\/$/) });
  });

  it('defines the shared shapes once', () => {
    const texts = [...fs.readdirSync('schemas')]
      .filter((f) => f.endsWith('.json'))
      .map((f) => fs.readFileSync(path.join('schemas', f), 'utf8'));
    const definitions = texts.filter((t) => /"title": "NamedRef"/.test(t));
    expect(definitions).toHaveLength(1);
  });
});

describe('source format', () => {
  it('leaves out (or completes) every derived field, and every derived field has a derivation', () => {
    const omitted: string[] = [];
    const walk = (node: any, kind: string) => {
      if (!node || typeof node !== 'object') return;
      for (const [name, sub] of Object.entries<any>(node.properties ?? {})) {
        const mode = sub['x-source'];
        const completed = mode === 'omit' || sub['x-inverse'] || typeof mode === 'object' || (mode === 'optional' && !('default' in sub));
        if (completed && !omitted.includes(`${kind}.${name}`)) omitted.push(`${kind}.${name}`);
        walk(sub, kind);
      }
      if (node.items) walk(node.items, kind);
    };
    for (const [kind, info] of schemas.kinds) walk(info.response, kind);
    expect(omitted.sort()).toEqual(Object.keys(derivations).sort());
    for (const [kind, info] of schemas.kinds) {
      for (const field of info.derived) expect(info.source.properties[field], `${kind}.${field}`).toBeUndefined();
    }
  });

  it('keeps source-only fields in the source and out of the response and the published schemas', () => {
    const unpublished = [...schemas.kinds.values()].flatMap((info) => info.unpublished.map((field) => `${info.kind}.${field}`));
    expect(unpublished.sort()).toEqual([
      'characteristic.name',
      'contest-effect.name',
      'creature-species.evolution_details',
      'creature-species.gender_required_to_evolve',
      'evolution-chain.name',
      'item.affected_stats',
      'machine.name',
      'super-contest-effect.name',
    ]);
    for (const key of unpublished) {
      const [kind, field] = key.split('.') as [string, string];
      const info = schemas.kinds.get(kind)!;
      expect(info.source.properties[field], key).toBeDefined();
      expect(info.response.properties[field], key).toBeUndefined();
      expect(info.response.required, key).not.toContain(field);
      const published = schemas.documents.get(`${kind}.json`)!;
      expect(published.properties[field], key).toBeUndefined();
      expect(published.required, key).not.toContain(field);
    }
    // A list the author may leave out, as any other; a nullable reference defaults to null.
    expect(schemas.kinds.get('item')!.source.properties.affected_stats.default).toEqual([]);
    expect(schemas.kinds.get('creature-species')!.source.required).not.toContain('gender_required_to_evolve');
    expect(schemas.kinds.get('item')!.refSites).toContainEqual({ path: ['affected_stats', '*'], kind: 'stat' });
  });

  it("takes PokeAPI's names with two hyphens, and refuses names a path could misread", () => {
    const validate = new Ajv2020({ strict: false }).compile(schemas.kinds.get('item')!.source);
    const named = (name: string) => validate({ id: 1, name, names: [] });
    for (const name of ['fire', 'route-12', 'aloraichium-z--bag', 'acid-downpour--physical', 'alola-route-1--hauoli-outskirts', 'x1'])
      expect(named(name), name).toBe(true);
    const refused = [
      '123',
      'a---b',
      '-a',
      'a-',
      'a--',
      '--a',
      'A',
      'a/b',
      'a\\b',
      'a..b',
      'a.b',
      'a%2fb',
      'a b',
      'a\tb',
      'a\u0000b',
      'p\u043etion',
    ];
    for (const name of refused) expect(named(name), JSON.stringify(name)).toBe(false);
  });

  it('publishes a record named with two hyphens at its name path, and resolves references to it', async () => {
    const world = await fixtureWorld();
    fs.writeFileSync(path.join(world.data, 'item/aloraichium-z--bag.yaml'), 'id: 90\nname: aloraichium-z--bag\nnames: []\n');
    const form = path.join(world.data, 'creature-form/emberpup-blaze.yaml');
    fs.writeFileSync(form, fs.readFileSync(form, 'utf8').replace('name: emberite', 'name: aloraichium-z--bag'));
    await buildWorld({ dataDir: world.data, outDir: world.out });
    const read = (rel: string) => JSON.parse(fs.readFileSync(path.join(world.out, rel), 'utf8'));
    expect(read('api/v2/item/aloraichium-z--bag/index.json')).toEqual(read('api/v2/item/90/index.json'));
    expect(read('api/v2/creature-form/emberpup-blaze/index.json').trigger_conditions[0]).toMatchObject({ name: 'aloraichium-z--bag' });
  });

  it('writes references as a name or an id, and requires id and a slug name', () => {
    const source = schemas.kinds.get('version')!.source;
    expect(source.required).toEqual(expect.arrayContaining(['id', 'name', 'version_group']));
    expect(source.properties.version_group.type).toEqual(['string', 'integer']);
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(source);
    const base = { id: 1, name: 'dawn', names: [], version_group: 'dawn-dusk' };
    expect(validate(base)).toBe(true);
    expect(validate({ ...base, version_group: 1 })).toBe(true);
    expect(validate({ ...base, name: '123' })).toBe(false);
    expect(validate({ ...base, name: 'Dawn' })).toBe(false);
    expect(validate({ ...base, id: 0 })).toBe(false);
    expect(validate({ ...base, version_group: { name: 'x', url: 'http://x/' } })).toBe(false);
  });
});

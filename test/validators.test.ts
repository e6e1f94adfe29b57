// The code Ajv makes of the validators is kept between builds. Loaded from there, the validators must
// judge every record as Ajv's own compiled ones do, errors and defaults included; kept code that is
// damaged, or made from other schemas, is compiled again.
import { isAscii } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { defaultDataDir } from '../build/paths.ts';
import { loadSchemas, type Schema, type SchemaSet } from '../build/schemas/schemas.ts';
import { compileValidators, KEYWORDS, OPTIONS, type Validators } from '../build/schemas/validators.ts';
import { tempDir } from './helpers.ts';

const schemas = loadSchemas();
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020, options: { mode: 'full' | 'fast' }) => void;

/**
 * Every validator compiled by Ajv in this process, as the build did before it kept them: a source is
 * held to ajv-formats' full formats, a response (the build's own urls) to its fast ones.
 */
function compiledHere(): Record<string, unknown> {
  const ajv = (mode: 'full' | 'fast') => {
    const made = new Ajv2020({ ...OPTIONS });
    addFormats(made, { mode });
    for (const keyword of KEYWORDS) made.addKeyword({ keyword });
    return made;
  };
  const [full, fast] = [ajv('full'), ajv('fast')];
  const out: Record<string, unknown> = {};
  for (const [kind, info] of schemas.kinds) {
    out[`source:${kind}`] = full.compile(info.source);
    out[`response:${kind}`] = fast.compile(info.response);
  }
  return out;
}

/** A record of each kind from the shipped world, and ways of breaking it. */
function samples(): Array<{ side: 'source' | 'response'; kind: string; record: unknown }> {
  const out: Array<{ side: 'source' | 'response'; kind: string; record: unknown }> = [];
  for (const kind of schemas.kinds.keys()) {
    const dir = path.join(defaultDataDir, kind);
    const first = fs.readdirSync(dir).sort()[0]!;
    const record = parse(fs.readFileSync(path.join(dir, first), 'utf8')) as Record<string, unknown>;
    for (const variant of [
      record,
      { ...record, unknown_field: 1 },
      { ...record, id: 'seven' },
      { ...record, name: 'Not A Slug' },
      { id: record.id },
      { ...record, names: [{ name: 5 }] },
    ]) {
      out.push({ side: 'source', kind, record: variant });
      out.push({ side: 'response', kind, record: variant });
    }
  }
  return out;
}

/** What a validator says of a record: its verdict, its errors and the record as it left it. */
function judge(validators: Record<string, any>, side: string, kind: string, record: unknown) {
  const copy = structuredClone(record);
  const validate = validators[`${side}:${kind}`];
  const valid = validate(copy);
  return { valid, errors: validate.errors, record: copy };
}

/** Every kind's validators by `side:kind`, each kind's loaded now. */
function table(validators: Validators): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kind of schemas.kinds.keys()) {
    out[`source:${kind}`] = validators.source.get(kind);
    out[`response:${kind}`] = validators.response.get(kind);
  }
  return out;
}

/** The cache entry holding a kind's code, in the validators area `dir`. */
function entryOf(dir: string, kind: string): string {
  const entries = fs.readdirSync(dir).filter((name) => fs.existsSync(path.join(dir, name, `${kind}.cjs`)));
  expect(entries, kind).toHaveLength(1);
  return path.join(dir, entries[0]!);
}

describe('validators kept between builds', () => {
  it('judge every record as the ones Ajv compiles in process do', async () => {
    const dir = await tempDir();
    const fresh = compileValidators(schemas, dir);
    const freshTable = table(fresh);
    expect(fresh.compiled().sort()).toEqual([...schemas.kinds.keys()].sort());
    expect(fs.readdirSync(dir)).toHaveLength(schemas.kinds.size);
    // Kept as ASCII, descriptions' "é" and "…" as escapes: the judgments below hold their schemas, so the text is as written.
    for (const kind of schemas.kinds.keys())
      expect(isAscii(fs.readFileSync(path.join(entryOf(dir, kind), `${kind}.cjs`))), kind).toBe(true);
    const kept = compileValidators(schemas, dir);
    const keptTable = table(kept);
    expect(kept.compiled()).toEqual([]);
    const here = compiledHere();
    let invalid = 0;
    let beyondAscii = 0;
    for (const { side, kind, record } of samples()) {
      const a = judge(here, side, kind, record);
      expect(judge(freshTable, side, kind, record), `${side} ${kind}`).toEqual(a);
      expect(judge(keptTable, side, kind, record), `${side} ${kind}`).toEqual(a);
      if (!a.valid) invalid++;
      if (/[^\0-\x7f]/.test(JSON.stringify(a.errors))) beyondAscii++;
    }
    expect(invalid).toBeGreaterThan(schemas.kinds.size * 5);
    expect(beyondAscii).toBeGreaterThan(0);
  });

  it("load a kind's only when they are asked for", async () => {
    const dir = await tempDir();
    const validators = compileValidators(schemas, dir);
    expect([...validators.source.keys()]).toHaveLength(schemas.kinds.size);
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(validators.source.get('type')).toBeTypeOf('function');
    expect(validators.response.get('type')).toBeTypeOf('function');
    expect(validators.source.get('no-such-kind')).toBeUndefined();
    expect(validators.compiled()).toEqual(['type']);
    expect(fs.readdirSync(dir)).toHaveLength(1);
  });

  it('check every url however often it comes, passing only what Ajv passes', async () => {
    const validators = table(compileValidators(schemas, await tempDir()));
    const here = compiledHere();
    const version = (url: string) => ({
      id: 1,
      name: 'red',
      names: [{ name: 'Red', language: { name: 'en', url } }],
      version_group: { name: 'red-blue', url },
    });
    const good = 'http://localhost:3000/api/v2/language/1/';
    const verdicts: boolean[] = [];
    // The kept validators remember the urls that passed; one that failed is checked again each time.
    // A response's url is held to the fast format, a scheme and no space: `http://[x/` passes it.
    for (const url of [good, 'not a url', good, 'http://a b/', 'not a url', good, 'http://[x/']) {
      const a = judge(here, 'response', 'version', version(url));
      expect(judge(validators, 'response', 'version', version(url)), url).toEqual(a);
      verdicts.push(a.valid);
    }
    expect(verdicts).toEqual([true, false, true, false, false, true, true]);
  });

  it('are compiled again when the kept code is damaged', async () => {
    const dir = await tempDir();
    table(compileValidators(schemas, dir));
    fs.writeFileSync(path.join(entryOf(dir, 'type'), 'type.cjs'), 'module.exports = (');
    const again = compileValidators(schemas, dir);
    table(again);
    expect(again.compiled()).toEqual(['type']);
    expect(judge(table(again), 'source', 'type', { id: 1 }).valid).toBe(false);
    const third = compileValidators(schemas, dir);
    table(third);
    expect(third.compiled()).toEqual([]);
  });

  // One V8 refuses is tested through the command (cache-trust): in one process V8 compiles the same
  // code from its own memory, and never reads the code cache given.
  it("keep V8's code cache beside the code once they have run, and judge the same with it", async () => {
    const dir = await tempDir();
    const fresh = compileValidators(schemas, dir);
    const freshTable = table(fresh);
    const codeCaches = () => [...schemas.kinds.keys()].map((kind) => path.join(entryOf(dir, kind), `${kind}.run.v8-cache`));
    // Made only once the validators have run, so that it holds those compiled while running.
    for (const file of codeCaches()) expect(fs.existsSync(file)).toBe(false);
    for (const { side, kind, record } of samples()) judge(freshTable, side, kind, record);
    fresh.keepCodeCache();
    const made = codeCaches().map((file) => fs.readFileSync(file));
    for (const bytes of made) expect(bytes.length).toBeGreaterThan(0);
    const here = compiledHere();
    const taken = compileValidators(schemas, dir);
    const takenTable = table(taken);
    expect(taken.compiled()).toEqual([]);
    for (const { side, kind, record } of samples())
      expect(judge(takenTable, side, kind, record), `${side}:${kind}`).toEqual(judge(here, side, kind, record));
    // Taken as it is: no entry is written again, by either. Compared as booleans: a diff of two buffers this long takes long to draw.
    const before = codeCaches().map((file) => fs.statSync(file).mtimeMs);
    fresh.keepCodeCache();
    taken.keepCodeCache();
    expect(codeCaches().map((file, i) => fs.readFileSync(file).equals(made[i]!))).not.toContain(false);
    expect(codeCaches().map((file) => fs.statSync(file).mtimeMs)).toEqual(before);
  });

  it("are kept apart for other schemas: a kind's changed is compiled again, and a few versions of each kept", async () => {
    const dir = await tempDir();
    table(compileValidators(schemas, dir));
    const type = schemas.kinds.get('type')!;
    const withType = (source: Schema): SchemaSet => ({ ...schemas, kinds: new Map([...schemas.kinds, ['type', { ...type, source }]]) });
    const other = compileValidators(withType({ ...type.source, maxProperties: 1 }), dir);
    const otherTable = table(other);
    expect(other.compiled()).toEqual(['type']);
    expect(fs.readdirSync(dir)).toHaveLength(schemas.kinds.size + 1);
    expect(judge(otherTable, 'source', 'type', { id: 1, name: 'fire' }).errors).toContainEqual(
      expect.objectContaining({ keyword: 'maxProperties' }),
    );
    // Four versions of the schemas are kept for each kind: entries past four times the kinds go, the least recently used first.
    const two: SchemaSet = { ...schemas, kinds: new Map(['type', 'gender'].map((kind) => [kind, schemas.kinds.get(kind)!])) };
    const small = await tempDir();
    for (const max of [2, 3, 4, 5, 6]) {
      const kinds = new Map([...two.kinds].map(([kind, info]) => [kind, { ...info, source: { ...info.source, maxProperties: max } }]));
      const validators = compileValidators({ ...two, kinds }, small);
      validators.source.get('type');
      validators.source.get('gender');
      validators.keepCodeCache();
    }
    expect(fs.readdirSync(small)).toHaveLength(8);
  });
});

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
import { loadSchemas, type SchemaSet } from '../build/schemas/schemas.ts';
import { KEYWORDS, loadValidators, OPTIONS } from '../build/schemas/validators.ts';
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

describe('validators kept between builds', () => {
  it('judge every record as the ones Ajv compiles in process do', async () => {
    const dir = await tempDir();
    const fresh = loadValidators(schemas, dir);
    expect(fresh.cached).toBe(false);
    expect(fs.readdirSync(dir)).toHaveLength(1);
    // Kept as ASCII, its descriptions' "é" and "…" as escapes: the judgments below hold their schemas, so the text is as written.
    expect(isAscii(fs.readFileSync(path.join(dir, fs.readdirSync(dir)[0]!, 'validators.cjs')))).toBe(true);
    const kept = loadValidators(schemas, dir);
    expect(kept.cached).toBe(true);
    const here = compiledHere();
    let invalid = 0;
    let beyondAscii = 0;
    for (const { side, kind, record } of samples()) {
      const a = judge(here, side, kind, record);
      expect(judge(fresh.validators, side, kind, record), `${side} ${kind}`).toEqual(a);
      expect(judge(kept.validators, side, kind, record), `${side} ${kind}`).toEqual(a);
      if (!a.valid) invalid++;
      if (/[^\0-\x7f]/.test(JSON.stringify(a.errors))) beyondAscii++;
    }
    expect(invalid).toBeGreaterThan(schemas.kinds.size * 5);
    expect(beyondAscii).toBeGreaterThan(0);
  });

  it('check every url however often it comes, passing only what Ajv passes', async () => {
    const { validators } = loadValidators(schemas, await tempDir());
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
    loadValidators(schemas, dir);
    const [entry] = fs.readdirSync(dir);
    fs.writeFileSync(path.join(dir, entry!, 'validators.cjs'), 'module.exports = (');
    const again = loadValidators(schemas, dir);
    expect(again.cached).toBe(false);
    expect(judge(again.validators, 'source', 'type', { id: 1 }).valid).toBe(false);
    expect(loadValidators(schemas, dir).cached).toBe(true);
  });

  // One V8 refuses is tested through the command (cache-trust): in one process V8 compiles the same
  // code from its own memory, and never reads the code cache given.
  it("keep V8's code cache beside the code once they have run, and judge the same with it", async () => {
    const dir = await tempDir();
    const fresh = loadValidators(schemas, dir);
    const [entry] = fs.readdirSync(dir);
    const codeCache = path.join(dir, entry!, 'validators.run.v8-cache');
    // Made only once the validators have run, so that it holds those compiled while running.
    expect(fs.existsSync(codeCache)).toBe(false);
    for (const { side, kind, record } of samples()) judge(fresh.validators, side, kind, record);
    fresh.keepCodeCache();
    const made = fs.readFileSync(codeCache);
    expect(made.length).toBeGreaterThan(0);
    const here = compiledHere();
    const taken = loadValidators(schemas, dir);
    expect(taken.cached).toBe(true);
    for (const { side, kind, record } of samples())
      expect(judge(taken.validators, side, kind, record), `${side}:${kind}`).toEqual(judge(here, side, kind, record));
    // Taken as it is: the entry is not written again, by either. Compared as a boolean: a diff of two buffers this long takes minutes to draw.
    const before = fs.statSync(codeCache).mtimeMs;
    fresh.keepCodeCache();
    taken.keepCodeCache();
    expect(fs.readFileSync(codeCache).equals(made)).toBe(true);
    expect(fs.statSync(codeCache).mtimeMs).toBe(before);
  });

  it('are kept apart for other schemas', async () => {
    const dir = await tempDir();
    loadValidators(schemas, dir);
    const type = schemas.kinds.get('type')!;
    const changed: SchemaSet = {
      ...schemas,
      kinds: new Map([...schemas.kinds, ['type', { ...type, source: { ...type.source, maxProperties: 1 } }]]),
    };
    const other = loadValidators(changed, dir);
    expect(other.cached).toBe(false);
    expect(fs.readdirSync(dir)).toHaveLength(2);
    expect(judge(other.validators, 'source', 'type', { id: 1, name: 'fire' }).errors).toContainEqual(
      expect.objectContaining({ keyword: 'maxProperties' }),
    );
    // The code of the four most recent schemas is kept, no more.
    for (const max of [2, 3, 4, 5]) {
      loadValidators(
        { ...changed, kinds: new Map([...changed.kinds, ['type', { ...type, source: { ...type.source, maxProperties: max } }]]) },
        dir,
      );
    }
    expect(fs.readdirSync(dir)).toHaveLength(4);
    expect(loadValidators(changed, dir).cached).toBe(false);
  });
});

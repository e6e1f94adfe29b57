// The compiled validators: every kind's source and response schema, compiled by Ajv once and kept
// as code under a hash of everything it depends on, so that later builds load it instead.
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { isAscii } from 'node:buffer';
import { createRequire } from 'node:module';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Cache } from '../cache.mjs';
import { hashText } from '../hash.ts';
import { cacheArea } from '../paths.ts';
import type { SchemaSet } from './schemas.ts';

// Ajv is loaded when validators are first needed: a rebuild with nothing changed never needs them.
const require = createRequire(import.meta.url);

export interface Validators {
  source: ValidatorSet;
  response: ValidatorSet;
  /**
   * Keeps V8's code cache of the validators beside their code, when the cache has none that V8
   * takes: called once they have run, so that it holds the validators compiled while running.
   */
  keepCodeCache(): void;
}

/** A validator per kind. */
export interface ValidatorSet {
  get(kind: string): ValidateFunction | undefined;
  keys(): Iterable<string>;
}

export const OPTIONS = { allErrors: true, strict: true, allowUnionTypes: true, verbose: true, useDefaults: true } as const;
/** The schemas' own annotations (schemas.ts), which Ajv is told to let be. */
export const KEYWORDS = ['x-ref', 'x-ref-by', 'x-source', 'x-lookup', 'x-inverse', 'x-sub-resource', 'x-media'];

/**
 * Every kind's validators. Compiling them takes a third of a second, longer than a small build spends
 * on anything else, so the code Ajv makes of them is kept in the cache's `validators` area, under a
 * hash of everything it depends on, and loaded from there while the schemas stay the same.
 */
export function compileValidators(schemas: SchemaSet): Validators {
  const loaded = loadValidators(schemas);
  const set = (side: 'source' | 'response'): ValidatorSet => ({
    get: (kind) => (schemas.kinds.has(kind) ? loaded.validators[`${side}:${kind}`] : undefined),
    keys: () => schemas.kinds.keys(),
  });
  return { source: set('source'), response: set('response'), keepCodeCache: loaded.keepCodeCache };
}

/**
 * The validators' code, from the cache in `dir` (the very bytes checked against the hash they were
 * kept with, so code changed in the cache is never run) or compiled now (and then kept); `cached`
 * says which. Beside the code the entry keeps V8's code cache of it, which spares compiling it: the
 * code of 49 kinds is some 3 MB (docs/PERFORMANCE.md, "Validator code cache"). V8 compiles a
 * function when it is first called, so a code cache made as the code is loaded holds little more
 * than its top level; one is made by `keepCodeCache`, once the validators have run, and holds the
 * ones this world calls. V8 takes it only for the very code, V8 and flags it was made by, and
 * otherwise compiles the code as it would without it.
 */
export function loadValidators(
  schemas: SchemaSet,
  dir = cacheArea('validators'),
): { validators: Record<string, ValidateFunction>; cached: boolean; keepCodeCache: () => void } {
  const versions = ['ajv', 'ajv-formats'].map((name) => (require(`${name}/package.json`) as { version: string }).version);
  const kinds = [...schemas.kinds].map(([kind, info]) => [kind, info.source, info.response]);
  // V8's tag of its version and flags too: its code cache is of no use to another (the scripts start
  // node with flags of their own, a test process without), and each keeps its own.
  const key = hashText(JSON.stringify([CODE_FORMAT, versions, v8.cachedDataVersionTag(), OPTIONS, KEYWORDS, SIDE_FORMATS, kinds]));
  const cache = new Cache(dir);
  const loaded = (code: string, script: vm.Script | undefined) => ({
    // Kept once: V8 takes the code cache made after the first build's validators ran.
    keepCodeCache: () => {
      if (script) cache.write(key, [[FILE, code], [CODE_CACHE, script.createCachedData()]], true);
      script = undefined;
    },
  });
  const bytes = cache.read(key, FILE);
  const kept = bytes && (isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8'));
  if (kept !== undefined) {
    try {
      const { validators, script } = evaluate(kept, cache.read(key, CODE_CACHE));
      // Without a code cache, or with one V8 refused, the code is kept again with one made once it has run.
      const taken = script.cachedDataRejected === false;
      return { validators, cached: true, ...loaded(kept, taken ? undefined : script) };
    } catch {} // damaged before it was kept: made again
  }
  const code = compile(schemas);
  const { validators, script } = evaluate(code);
  cache.write(key, [[FILE, code]], true); // replacing damaged code
  return { validators, cached: false, ...loaded(code, script) };
}

const FILE = 'validators.cjs';
/** How `compile` writes the code, beyond what Ajv makes of the schemas: code kept in another way is another entry. */
const CODE_FORMAT = 'ascii';
/** V8's code cache of FILE, made once the validators have run (`keepCodeCache`). */
const CODE_CACHE = 'validators.run.v8-cache';

/**
 * Ajv's code for every kind's source and response validators, as one CommonJS module. A response's
 * urls are the build's own, made from the checked base url, and there are millions of them: they
 * are held to ajv-formats' fast `uri` (a scheme, no space) rather than its full grammar, which took
 * half a second of a PokeAPI build (docs/PERFORMANCE.md, "Validator code cache"). A source's are
 * an author's, and held to the full grammar.
 */
function compile(schemas: SchemaSet): string {
  const { _ } = require('ajv') as typeof import('ajv');
  const code = (side: 'source' | 'response') => {
    const mode = SIDE_FORMATS[side];
    const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
    const standaloneCode = (require('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js')).default;
    const addFormats = require('ajv-formats') as (ajv: Ajv2020, options: { mode: 'full' | 'fast' }) => void;
    // ajv-formats' modes, `full` and `fast`, are its `fullFormats` and `fastFormats`.
    const ajv = new Ajv2020({ ...OPTIONS, code: { source: true, formats: _`require(${FORMATS})[${`${mode}Formats`}]` } });
    addFormats(ajv, { mode });
    for (const keyword of KEYWORDS) ajv.addKeyword({ keyword });
    const names: Record<string, string> = {};
    for (const [kind, info] of schemas.kinds) {
      names[`${side}:${kind}`] = `${side}:${kind}`;
      ajv.addSchema(info[side], `${side}:${kind}`);
    }
    return standaloneCode(ajv, names);
  };
  // Two modules in one: each runs in a function of its own, and their exports are merged.
  const inner = (text: string) => `(function () {\nconst module = { exports: {} }; const exports = module.exports;\n${text}\nreturn module.exports;\n})()`;
  return escapeNonAscii(`module.exports = Object.assign({}, ${inner(code('source'))}, ${inner(code('response'))});\n`);
}

/**
 * The code with each character past ASCII (a schema's description: "Pokédex", "…") written as its
 * `\u` escape, which means the same in the strings, regular expressions and comments Ajv writes:
 * ASCII bytes are read into a string in a quarter of the time UTF-8's take, some 8 ms of each build
 * that loads the validators.
 */
const escapeNonAscii = (code: string) => code.replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** Runs the validators' code, with V8's code cache of it if one is given (`script.cachedDataRejected` says whether V8 took it). */
function evaluate(code: string, cachedData?: Buffer): { validators: Record<string, ValidateFunction>; script: vm.Script } {
  const script = new vm.Script(`(function (require, module, exports) {\n${code}\n})`, { filename: FILE, cachedData });
  const module = { exports: {} as Record<string, ValidateFunction> };
  (script.runInThisContext() as (...args: unknown[]) => void)(require, module, module.exports);
  return { validators: module.exports, script };
}

/** The formats each side's validators are held to (`compile`). */
const SIDE_FORMATS = { source: 'full', response: 'fast' } as const;

/** Where the validators' code takes its formats from (`compile`). */
const FORMATS = 'ajv-formats/dist/formats';

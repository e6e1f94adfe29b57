// The compiled validators: every kind's source and response schema, compiled by Ajv once and kept
// as code under a hash of everything it depends on, so that later builds load it instead.
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { createRequire } from 'node:module';
import { Cache } from '../cache.mjs';
import { hashText } from '../hash.ts';
import { cacheArea } from '../paths.ts';
import type { SchemaSet } from './schemas.ts';

// Ajv is loaded when validators are first needed: a rebuild with nothing changed never needs them.
const require = createRequire(import.meta.url);

export interface Validators {
  source: ValidatorSet;
  response: ValidatorSet;
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
  const exports = loadValidators(schemas).validators;
  const set = (side: 'source' | 'response'): ValidatorSet => ({
    get: (kind) => (schemas.kinds.has(kind) ? exports[`${side}:${kind}`] : undefined),
    keys: () => schemas.kinds.keys(),
  });
  return { source: set('source'), response: set('response') };
}

/**
 * The validators' code, from the cache in `dir` (the very bytes checked against the hash they were
 * kept with, so code changed in the cache is never run) or compiled now (and then kept); `cached`
 * says which.
 */
export function loadValidators(
  schemas: SchemaSet,
  dir = cacheArea('validators'),
): { validators: Record<string, ValidateFunction>; cached: boolean } {
  const versions = ['ajv', 'ajv-formats'].map((name) => (require(`${name}/package.json`) as { version: string }).version);
  const kinds = [...schemas.kinds].map(([kind, info]) => [kind, info.source, info.response]);
  const key = hashText(JSON.stringify([versions, OPTIONS, KEYWORDS, kinds]));
  const cache = new Cache(dir);
  const kept = cache.read(key, FILE)?.toString('utf8');
  if (kept !== undefined) {
    try {
      return { validators: evaluate(kept), cached: true };
    } catch {} // damaged before it was kept: made again
  }
  const code = compile(schemas);
  cache.write(key, [[FILE, code]], true); // replacing damaged code
  return { validators: evaluate(code), cached: false };
}

const FILE = 'validators.cjs';

/** Ajv's code for every kind's source and response validators, as one CommonJS module. */
function compile(schemas: SchemaSet): string {
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const { _ } = require('ajv') as typeof import('ajv');
  const standaloneCode = (require('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js')).default;
  const addFormats = require('ajv-formats') as (ajv: Ajv2020) => void;
  const ajv = new Ajv2020({ ...OPTIONS, code: { source: true, formats: _`require(${FORMATS}).fullFormats` } });
  addFormats(ajv);
  for (const keyword of KEYWORDS) ajv.addKeyword({ keyword });
  const names: Record<string, string> = {};
  for (const [kind, info] of schemas.kinds) {
    for (const side of ['source', 'response'] as const) {
      names[`${side}:${kind}`] = `${side}:${kind}`;
      ajv.addSchema(info[side], `${side}:${kind}`);
    }
  }
  return standaloneCode(ajv, names);
}

function evaluate(code: string): Record<string, ValidateFunction> {
  const module = { exports: {} as Record<string, ValidateFunction> };
  new Function('require', 'module', 'exports', code)(require, module, module.exports);
  return module.exports;
}

/** Where the validators' code takes its formats from (`compile`). */
const FORMATS = 'ajv-formats/dist/formats';

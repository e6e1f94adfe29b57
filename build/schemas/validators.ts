// The compiled validators: every kind's source and response schema, compiled by Ajv once and kept
// as code under a hash of everything it depends on, so that later builds load it instead.
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { hashText } from '../hash.ts';
import { cacheDirs } from '../paths.ts';
import { VALIDATOR_CACHES_KEPT } from '../tuning.ts';
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
export const KEYWORDS = ['x-ref', 'x-ref-by', 'x-source', 'x-lookup'];

/**
 * Every kind's validators. Compiling them takes a third of a second, longer than a small build spends
 * on anything else, so the code Ajv makes of them is kept in `cacheDirs.validators`, under a hash of everything
 * it depends on, and loaded from there while the schemas stay the same.
 */
export function compileValidators(schemas: SchemaSet, dir = cacheDirs.validators): Validators {
  const exports = loadValidators(schemas, dir).validators;
  const set = (side: 'source' | 'response'): ValidatorSet => ({
    get: (kind) => (schemas.kinds.has(kind) ? exports[`${side}:${kind}`] : undefined),
    keys: () => schemas.kinds.keys(),
  });
  return { source: set('source'), response: set('response') };
}

/** The validators' code, from the cache or compiled now (and then kept); `cached` says which. */
export function loadValidators(
  schemas: SchemaSet,
  dir = cacheDirs.validators,
): { validators: Record<string, ValidateFunction>; cached: boolean } {
  const versions = ['ajv', 'ajv-formats'].map((name) => (require(`${name}/package.json`) as { version: string }).version);
  const kinds = [...schemas.kinds].map(([kind, info]) => [kind, info.source, info.response]);
  const file = path.join(dir, `validators-${hashText(JSON.stringify([versions, OPTIONS, KEYWORDS, kinds]))}.cjs`);
  let code: string | undefined;
  try {
    code = fs.readFileSync(file, 'utf8');
    return { validators: evaluate(code), cached: true };
  } catch {} // none yet, or damaged: made again
  code = compile(schemas);
  try {
    fs.mkdirSync(dir, { recursive: true });
    const temp = `${file}.${process.pid}.${threadId}.tmp`;
    fs.writeFileSync(temp, code);
    fs.renameSync(temp, file);
    prune(dir);
  } catch {} // a cache that cannot be written costs the next build the compiling, nothing more
  return { validators: evaluate(code), cached: false };
}

/** Keeps the code for the few most recent schemas (switching branches back and forth stays cheap). */
function prune(dir: string): void {
  const kept = fs
    .readdirSync(dir)
    .filter((name) => /^validators-.*\.cjs$/.test(name))
    .map((name) => ({ file: path.join(dir, name), at: fs.statSync(path.join(dir, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const old of kept.slice(VALIDATOR_CACHES_KEPT)) fs.rmSync(old.file, { force: true });
}

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
    for (const [side, schema] of [
      ['source', info.source],
      ['response', info.response],
    ] as const) {
      ajv.addSchema(schema, `${side}:${kind}`);
      names[`${side}:${kind}`] = `${side}:${kind}`;
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

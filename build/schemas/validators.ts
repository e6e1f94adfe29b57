// The compiled validators: each kind's source and response schema, compiled by Ajv once and kept
// as code under a hash of everything they depend on, so that later builds load them instead.
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { isAscii } from 'node:buffer';
import { createRequire } from 'node:module';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Cache } from '../cache.mjs';
import { hashText } from '../hash.ts';
import { cacheArea } from '../paths.ts';
import type { Schema, SchemaSet } from './schemas.ts';

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
  /** The kinds whose validators were compiled in this process, rather than read from the cache. */
  compiled(): string[];
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
 * Every kind's validators, each kind's loaded when they are first asked for: a build loads those of
 * the kinds it checks or publishes anew, where loading all 49 kinds' took a tenth of a small
 * rebuild (docs/PERFORMANCE.md, "Validators by kind"). Compiling takes longer than a small build
 * spends on anything else, so the code Ajv makes of a kind's schemas is kept in the cache's
 * `validators` area (`loadKind`), and loaded from there while they stay the same.
 */
export function compileValidators(schemas: SchemaSet, dir = cacheArea('validators')): Validators {
  // A kind's entries of a few versions of the schemas and the build.
  const cache = new Cache(dir, KEPT_VERSIONS * schemas.kinds.size);
  const base = baseKey();
  const loaded = new Map<string, KindValidators>();
  const of = (kind: string) => {
    let kindValidators = loaded.get(kind);
    if (!kindValidators) loaded.set(kind, (kindValidators = loadKind(schemas, kind, cache, base)));
    return kindValidators;
  };
  const set = (side: Side): ValidatorSet => ({
    get: (kind) => (schemas.kinds.has(kind) ? of(kind)[side] : undefined),
    keys: () => schemas.kinds.keys(),
  });
  return {
    source: set('source'),
    response: set('response'),
    keepCodeCache: () => {
      if ([...loaded.values()].filter((kind) => kind.keepCodeCache()).length > 0) cache.prune();
    },
    compiled: () => [...loaded].filter(([, kind]) => !kind.cached).map(([name]) => name),
  };
}

const KEPT_VERSIONS = 4;

type Side = 'source' | 'response';

/** A kind's two validators, and how they were loaded. */
interface KindValidators {
  source: ValidateFunction;
  response: ValidateFunction;
  /** Read from the cache, not compiled now. */
  cached: boolean;
  /** Keeps V8's code cache of them if the entry has none V8 takes; whether it wrote the entry. */
  keepCodeCache(): boolean;
}

/** What every kind's key holds: Ajv's versions and settings, and V8's tag of its version and flags. */
function baseKey(): unknown[] {
  const versions = ['ajv', 'ajv-formats'].map((name) => (require(`${name}/package.json`) as { version: string }).version);
  // V8's code cache is of no use to another V8, or to one with other flags (the scripts start node
  // with flags of their own, a test process without), and each keeps its own.
  return [CODE_FORMAT, versions, v8.cachedDataVersionTag(), OPTIONS, KEYWORDS, SIDE_FORMATS];
}

/**
 * A kind's validators, from its entry in `cache` (the very bytes checked against the hash they were
 * kept with, so code changed in the cache is never run) or compiled now (and then kept). Beside the
 * code the entry keeps V8's code cache of it, which spares compiling it. V8 compiles a function
 * when it is first called, so a code cache made as the code is loaded holds little more than its
 * top level; one is made by `keepCodeCache`, once the validators have run. V8 takes it only for the
 * very code, V8 and flags it was made by, and otherwise compiles the code as it would without it.
 */
function loadKind(schemas: SchemaSet, kind: string, cache: Cache, base: unknown[]): KindValidators {
  const info = schemas.kinds.get(kind)!;
  const key = hashText(JSON.stringify([...base, kind, info.source, info.response]));
  const file = `${kind}.cjs`;
  const codeCache = `${kind}.run.v8-cache`;
  const loaded = (code: string, { validators, script }: Evaluated, cached: boolean): KindValidators => ({
    source: validators[`source:${kind}`]!,
    response: validators[`response:${kind}`]!,
    cached,
    keepCodeCache: () => {
      // Kept once: V8 takes the code cache made after the first build's validators ran.
      if (!script) return false;
      cache.write(key, [[file, code], [codeCache, script.createCachedData()]], true, false);
      script = undefined;
      return true;
    },
  });
  const bytes = cache.read(key, file);
  const kept = bytes && (isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8'));
  if (kept !== undefined) {
    try {
      const { validators, script } = evaluate(kept, file, cache.read(key, codeCache));
      // Without a code cache, or with one V8 refused, the code is kept again with one made once it has run.
      return loaded(kept, { validators, script: script.cachedDataRejected === false ? undefined : script }, true);
    } catch {} // damaged before it was kept: made again
  }
  const code = compile(kind, key, info.source, info.response);
  const evaluated = evaluate(code, file);
  cache.write(key, [[file, code]], true, false); // replacing damaged code
  return loaded(code, evaluated, false);
}

/**
 * Ajv's code for a kind's source and response validators, as one CommonJS module. A response's
 * urls are the build's own, made from the checked base url, and there are millions of them: they
 * are held to ajv-formats' fast `uri` (a scheme, no space) rather than its full grammar, which took
 * half a second of a PokeAPI build (docs/PERFORMANCE.md, "Validator code cache"). A source's are
 * an author's, and held to the full grammar.
 */
function compile(kind: string, key: string, source: Schema, response: Schema): string {
  const code = (side: Side, schema: Schema) => {
    const ajv = compiler(side);
    // Named by the key too: one process may compile a kind's schemas as they were and as they are.
    const id = `${side}:${kind}:${key}`;
    if (!ajv.getSchema(id)) ajv.addSchema(schema, id);
    return standaloneCode(ajv, { [`${side}:${kind}`]: id });
  };
  // Two modules in one: each runs in a function of its own, and their exports are merged.
  const inner = (text: string) => `(function () {\nconst module = { exports: {} }; const exports = module.exports;\n${text}\nreturn module.exports;\n})()`;
  return escapeNonAscii(`module.exports = Object.assign({}, ${inner(code('source', source))}, ${inner(code('response', response))});\n`);
}

/**
 * Each side's Ajv, made when a kind's validators are first compiled in this process and kept for
 * the others: one made for each kind, with its formats, took twice as long to compile all 49.
 */
function compiler(side: Side): Ajv2020 {
  let ajv = compilers.get(side);
  if (ajv) return ajv;
  const { _ } = require('ajv') as typeof import('ajv');
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const addFormats = require('ajv-formats') as (ajv: Ajv2020, options: { mode: 'full' | 'fast' }) => void;
  const mode = SIDE_FORMATS[side];
  // ajv-formats' modes, `full` and `fast`, are its `fullFormats` and `fastFormats`.
  ajv = new Ajv2020({ ...OPTIONS, code: { source: true, formats: _`require(${FORMATS})[${`${mode}Formats`}]` } });
  addFormats(ajv, { mode });
  for (const keyword of KEYWORDS) ajv.addKeyword({ keyword });
  compilers.set(side, ajv);
  return ajv;
}
const compilers = new Map<Side, Ajv2020>();

const standaloneCode: typeof import('ajv/dist/standalone/index.js').default = (...args) =>
  (require('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js')).default(...args);

/**
 * The code with each character past ASCII (a schema's description: "Pokédex", "…") written as its
 * `\u` escape, which means the same in the strings, regular expressions and comments Ajv writes:
 * ASCII bytes are read into a string in a quarter of the time UTF-8's take.
 */
const escapeNonAscii = (code: string) => code.replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** How `compile` writes the code, beyond what Ajv makes of the schemas: code kept in another way is another entry. */
const CODE_FORMAT = 'ascii, by kind';

interface Evaluated {
  validators: Record<string, ValidateFunction>;
  /** The script, while its code cache is still to be kept. */
  script: vm.Script | undefined;
}

/** Runs a kind's validator code, with V8's code cache of it if one is given (`script.cachedDataRejected` says whether V8 took it). */
function evaluate(code: string, filename: string, cachedData?: Buffer): { validators: Record<string, ValidateFunction>; script: vm.Script } {
  const script = new vm.Script(`(function (require, module, exports) {\n${code}\n})`, { filename, cachedData });
  const module = { exports: {} as Record<string, ValidateFunction> };
  (script.runInThisContext() as (...args: unknown[]) => void)(require, module, module.exports);
  return { validators: module.exports, script };
}

/** The formats each side's validators are held to (`compile`). */
const SIDE_FORMATS = { source: 'full', response: 'fast' } as const;

/** Where the validators' code takes its formats from (`compile`). */
const FORMATS = 'ajv-formats/dist/formats';

// Stage 2: check every source record against the source schema of its kind, then index it by id
// and name. The validators are compiled once, and kept for later builds (`compileValidators`).
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { hashText, parseOne, sourceText, type SourceFile } from './load.ts';
import { apiPaths, cacheDirs } from './paths.ts';
import { locate } from './locate.ts';
import { fileStart, type Problems } from './problems.ts';
import { SLUG, type SchemaSet } from './schemas.ts';
import { Store, type Entry } from './store.ts';
import type { Remembered } from './memory.ts';

// Ajv is loaded when validators are first needed: a rebuild with nothing changed never needs them.
const require = createRequire(import.meta.url);
/** A record's name: what its name path and its file are called. */
export const slug = new RegExp(SLUG);

/**
 * The candidate nearest to `word`, for a hint. The library is loaded on first use, by a build with
 * a problem to report: importing it cost every build a few milliseconds.
 */
export function nearest(word: string, candidates: string[]): string {
  return (require('fastest-levenshtein') as typeof import('fastest-levenshtein')).closest(word, candidates);
}

/**
 * The folders of records by name, known from their files alone (a record is named after its file,
 * `checkFile`): made before the records are read. A file that holds no such record fails the build.
 */
export function nameDirs(files: Iterable<SourceFile>, schemas: SchemaSet): string[] {
  const dirs: string[] = [];
  for (const file of files) {
    if (schemas.kinds.get(file.kind)?.byName && slug.test(file.stem)) dirs.push(apiPaths.recordDir(file.kind, file.stem));
  }
  return dirs;
}

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
function prune(dir: string, keep = 4): void {
  const kept = fs
    .readdirSync(dir)
    .filter((name) => /^validators-.*\.cjs$/.test(name))
    .map((name) => ({ file: path.join(dir, name), at: fs.statSync(path.join(dir, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const old of kept.slice(keep)) fs.rmSync(old.file, { force: true });
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
  const load = (id: string) => (id === FORMATS ? formats() : require(id));
  new Function('require', 'module', 'exports', code)(load, module, module.exports);
  return module.exports;
}

/** Where the validators' code takes its formats from (`compile`). */
const FORMATS = 'ajv-formats/dist/formats';
let memoFormats: { fullFormats: Record<string, unknown> } | undefined;

/**
 * ajv-formats' formats, with a `uri` check that remembers the urls it passed: a published record
 * holds a url per reference, and most of them name the same few thousand records (at scale 10,
 * the check's regular expression took 0.4 s of publishing).
 */
function formats(): { fullFormats: Record<string, unknown> } {
  if (memoFormats) return memoFormats;
  const { fullFormats } = require(FORMATS) as { fullFormats: Record<string, unknown> };
  const uri = fullFormats.uri as (text: string) => boolean;
  const passed = new Set<string>();
  const rememberedUri = (text: string) => {
    if (passed.has(text)) return true;
    if (!uri(text)) return false;
    if (passed.size >= 200_000) passed.clear(); // a bound on what is held
    passed.add(text);
    return true;
  };
  return (memoFormats = { fullFormats: { ...fullFormats, uri: rememberedUri } });
}

/**
 * Parses each file not yet parsed, checks it and indexes its record. `onRecord` is given each record
 * read now that passed its schema, as soon as it has: the build sets the record aside there,
 * keeping memory low. (A remembered record enters with its facts only, and is not given.) Files in
 * `later` are left to be read and checked when they are published (order.ts).
 */
export function validate(
  files: SourceFile[],
  schemas: SchemaSet,
  validators: Validators,
  baseUrl: string,
  problems: Problems,
  onRecord?: (entry: Entry) => void,
  later: ReadonlySet<SourceFile> = new Set(),
): Store {
  const store = new Store(baseUrl, schemas.kinds.keys());
  // Every file is read before any is parsed: the build makes folders as records pass, and reading
  // while folders are being made is slower (77 ms against 211 ms for 9,084 files, measured).
  for (const file of files) if (!file.known && !file.parsed && !later.has(file)) sourceText(file);
  for (const file of files) {
    if (later.has(file)) continue;
    const checked = file.known ? remembered(file, file.known) : checkFile(file, validators, problems);
    const entry = validEntry(checked);
    if (entry && !file.known) onRecord?.(entry);
    index(store, checked, problems);
  }
  store.seal();
  return store;
}

/** What checking a file gives: its record, or the keys it would have gone by, marked broken. */
export type Checked = { entry: Entry } | { kind: string; broken: Array<string | number> } | undefined;

/** The record checked, if it passed its schema. */
export const validEntry = (checked: Checked): Entry | undefined =>
  checked && 'entry' in checked && checked.entry.valid ? checked.entry : undefined;

/** A file unchanged since the last build, and valid then: it enters with its facts alone. */
export function remembered(file: SourceFile, known: Remembered): Checked {
  return {
    entry: {
      kind: file.kind,
      id: known.id,
      name: file.stem,
      file,
      data: JSON.parse(known.facts),
      valid: true,
      partial: true,
      facts: known.facts,
    },
  };
}

/** Parses one file (unless it was parsed already) and checks its record. */
export function checkFile(file: SourceFile, validators: Validators, problems: Problems): Checked {
  const check = validators.source.get(file.kind);
  if (!check) {
    const kindNames = [...validators.source.keys()];
    problems.add({
      ...fileStart(file.rel),
      message: `"${file.kind}" is not a record kind, so this file is not read`,
      hint: `put it in one of: ${kindNames.join(', ')} (nearest: ${nearest(file.kind, kindNames)})`,
    });
    return undefined;
  }
  if (!file.parsed) parseOne(file, problems);
  const value = file.value;
  file.value = undefined;
  if (value === undefined) return { kind: file.kind, broken: [file.stem] };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const what = Array.isArray(value) ? 'a list' : value === null ? 'nothing (null)' : `a single ${typeof value}`;
    problems.add({
      ...fileStart(file.rel),
      kind: file.kind,
      message: `the file holds ${what}; it should hold one record (a mapping of fields)`,
    });
    return { kind: file.kind, broken: [file.stem] };
  }
  const data = value as Record<string, unknown>;
  const label = typeof data.name === 'string' ? data.name : typeof data.id === 'number' ? String(data.id) : file.stem;
  const valid = check(data);
  if (!valid) for (const err of check.errors ?? []) problems.add(describe(err, file, label));
  const idOk = Number.isInteger(data.id) && (data.id as number) > 0;
  const nameOk = typeof data.name === 'string' && slug.test(data.name);
  if (!idOk || !nameOk) return { kind: file.kind, broken: idOk ? [file.stem, data.id as number] : [file.stem] };
  const entry: Entry = { kind: file.kind, id: data.id as number, name: data.name as string, file, data, valid };
  if (entry.name !== file.stem) {
    problems.add({
      ...at(file, '/name'),
      kind: file.kind,
      record: entry.name,
      pointer: '/name',
      message: `the record is named "${entry.name}" but its file is "${file.stem}"`,
      hint: `name the file after the record (${entry.name}.yaml), so it can be found by name`,
    });
    entry.valid = false;
  }
  return { entry };
}

/** Indexes what checking a file gave. */
export function index(store: Store, checked: Checked, problems: Problems): void {
  if (!checked) return;
  if ('broken' in checked) {
    for (const key of checked.broken) store.markBroken(checked.kind, key);
    return;
  }
  add(store, checked.entry, problems);
}

/**
 * Indexes an entry; a taken id or name is a problem, reported in both files (either may be the
 * one that is new, and a report on a pull request shows only the files it changed).
 */
function add(store: Store, entry: Entry, problems: Problems): void {
  const clash = store.add(entry);
  if (clash.id) reportClash(problems, 'id', entry, clash.id, (e) => `id ${e.id}`);
  if (clash.name) reportClash(problems, 'name', entry, clash.name, (e) => `name "${e.name}"`);
}

function reportClash(problems: Problems, field: 'id' | 'name', entry: Entry, first: Entry, what: (e: Entry) => string): void {
  const pointer = `/${field}`;
  const hint = `every record of a kind needs its own ${field}`;
  const sides = [
    [entry, first, 'already'],
    [first, entry, 'also'],
  ] as const;
  for (const [self, other, when] of sides) {
    const message = `${what(self)} is ${when} used by ${other.file.rel}`;
    problems.add({ ...at(self.file, pointer), kind: entry.kind, record: self.name, pointer, message, hint });
  }
}

export function at(file: SourceFile, pointer: string, key = false) {
  return { file: file.rel, ...locate(sourceText(file), pointer, key) };
}

function describe(err: ErrorObject, file: SourceFile, label: string) {
  const base = { kind: file.kind, record: label };
  const path = err.instancePath;
  const p = err.params as Record<string, any>;
  switch (err.keyword) {
    case 'additionalProperties': {
      const pointer = `${path}/${escape(p.additionalProperty)}`;
      const known = Object.keys((err.parentSchema as any)?.properties ?? {});
      return {
        ...at(file, pointer, true),
        ...base,
        pointer,
        message: `unknown field "${p.additionalProperty}"`,
        hint: known.length ? `did you mean "${nearest(p.additionalProperty, known)}"? fields here: ${known.join(', ')}` : undefined,
      };
    }
    case 'required': {
      const pointer = `${path}/${escape(p.missingProperty)}`;
      return { ...at(file, path), ...base, pointer, message: `missing required field "${p.missingProperty}"` };
    }
    case 'type':
      return { ...at(file, path), ...base, pointer: path, message: `expected ${[p.type].flat().join(' or ')}, got ${show(err.data)}` };
    case 'pattern':
      return p.pattern === SLUG
        ? {
            ...at(file, path),
            ...base,
            pointer: path,
            message: `${show(err.data)} is not a valid name`,
            hint: 'names are lowercase letters and digits joined by single hyphens, and not only digits (e.g. "fire", "route-12")',
          }
        : { ...at(file, path), ...base, pointer: path, message: `${show(err.data)} must match ${p.pattern}` };
    case 'enum':
      return {
        ...at(file, path),
        ...base,
        pointer: path,
        message: `${show(err.data)} is not one of: ${(p.allowedValues as unknown[]).join(', ')}`,
      };
    default:
      return { ...at(file, path), ...base, pointer: path, message: `${err.message ?? 'is invalid'} (got ${show(err.data)})` };
  }
}

const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

export function show(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? value.slice(0, 57) + '...' : value);
  return String(value);
}

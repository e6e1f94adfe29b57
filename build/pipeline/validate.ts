// Stage 3, validate: each source record checked against its kind's source schema, then indexed
// by id and name (check-pool.ts goes through the files). `checkFile` is the one way a file becomes
// a checked record, on the build's thread or on a checking thread.
import type { ErrorObject } from 'ajv/dist/2020.js';
import { at, parseSource } from './parse.ts';
import { serialise } from './serialise.ts';
import { apiPaths } from '../paths.ts';
import { nearest, show } from '../report/hints.ts';
import { fileStart, pointerOf, type Problems } from '../report/problems.ts';
import { projectSchemas, SLUG, type SchemaSet } from '../schemas/schemas.ts';
import type { Validators } from '../schemas/validators.ts';
import type { Data, Entry, Remembered, SourceFile, Store } from '../store.ts';
import type { CheckedRecords } from './checked.ts';

/** A record's name: what its name path and its file are called. */
const slug = new RegExp(SLUG);

/**
 * The folders of records by name, known from their files alone (a record is named after its file,
 * `checkFile`): made before the records are read. A file that holds no such record fails the build.
 */
export function nameDirs(files: SourceFile[], schemas: SchemaSet): string[] {
  return files.filter((f) => schemas.kinds.get(f.kind)?.byName && slug.test(f.stem)).map((f) => apiPaths.recordDir(f.kind, f.stem));
}

/** What checking a file gives: its record, or the keys it would have gone by, marked broken. */
export type Checked = { entry: Entry } | { kind: string; broken: Array<string | number> } | undefined;

/** The record checked, if it passed its schema. */
export const validEntry = (checked: Checked): Entry | undefined =>
  checked && 'entry' in checked && checked.entry.valid ? checked.entry : undefined;

/**
 * A file unchanged since the last build, and valid then: it enters with its facts alone, parsed
 * when first read. Most are never read by a rebuild, and a world's facts can be large: PokeAPI's
 * creatures' moves are some 100 MB (docs/PERFORMANCE.md, "Memory of records and their facts").
 */
export function remembered(file: SourceFile, known: Remembered): Checked {
  const entry = { kind: file.kind, id: known.id, name: file.stem, file, valid: true, facts: known.facts } as Entry;
  let data: Data | undefined;
  Object.defineProperty(entry, 'data', {
    get: () => (data ??= JSON.parse(known.facts) as Data),
    set: (value: Data) => void (data = value),
    enumerable: true,
  });
  return { entry };
}

/**
 * Parses one file (unless it was parsed already) and checks its record; with `cache`, a record
 * checked before from the same bytes is taken from it, and a record checked now with no problem is
 * kept there, its JSON in `entry.source`.
 */
export function checkFile(file: SourceFile, validators: Validators, problems: Problems, cache?: CheckedRecords): Checked {
  const taken = file.parsed === undefined ? cache?.take(file, validators.source) : undefined;
  if (taken) return { entry: checkedBefore(file, taken) };
  const before = problems.count;
  const checked = checkAnew(file, validators, problems);
  const entry = validEntry(checked);
  if (cache && entry && problems.count === before) cache.keep(file, (entry.source = serialise(entry.data)));
  return checked;
}

/** A record the cache holds as checked: named after its file, as every record taken from there is. */
function checkedBefore(file: SourceFile, { data, json }: { data: Data; json: string }): Entry {
  file.text = undefined;
  return { kind: file.kind, id: data.id as number, name: file.stem, file, data, valid: true, source: json };
}

function checkAnew(file: SourceFile, validators: Validators, problems: Problems): Checked {
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
  const value = file.parsed ? file.parsed.value : parseSource(file, problems);
  file.parsed = undefined;
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
  // An `if`'s own error only says that its `then` or `else` failed, and a `propertyNames`' that a key
  // did: the error beneath each tells what.
  if (!valid)
    for (const err of check.errors ?? [])
      if (err.keyword !== 'if' && err.keyword !== 'propertyNames') problems.add(describe(err, file, label));
  const idOk = Number.isInteger(data.id) && (data.id as number) >= firstId(file.kind);
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

/** The lowest id a record of `kind` may have (1 but where PokeAPI numbers a kind from 0 or -1): a record below it is not indexed by its id. */
const firstId = (kind: string): number => projectSchemas().kinds.get(kind)?.firstId ?? 1;

/** Indexes what checking a file gave. */
export function index(store: Store, checked: Checked, problems: Problems): void {
  if (!checked) return;
  if ('broken' in checked) {
    for (const key of checked.broken) store.markBroken(checked.kind, key);
    return;
  }
  // A taken id or name is a problem, reported in both files (either may be the one that is new, and
  // a report on a pull request shows only the files it changed).
  const entry = checked.entry;
  const clash = store.add(entry);
  if (clash.id) reportClash(problems, 'id', entry, clash.id, (e) => `id ${e.id}`);
  if (clash.name) reportClash(problems, 'name', entry, clash.name, (e) => `name "${e.name}"`);
  if (clash.id || clash.name) store.setApart(entry, clash);
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

function describe(err: ErrorObject, file: SourceFile, label: string) {
  const path = err.instancePath;
  const p = err.params as Record<string, any>;
  // Placed at the value, or with `key` at the key `pointer` names.
  const problem = (message: string, hint?: string, pointer = path, key = false) => ({
    ...at(file, key ? pointer : path, key),
    kind: file.kind,
    record: label,
    pointer,
    message,
    hint,
  });
  // A key refused by `propertyNames` (a tree of images): placed at the key, worded by its schema.
  if (err.propertyName !== undefined) {
    const pointer = `${path}${pointerOf([err.propertyName])}`;
    return problem(`${show(err.propertyName)} is not a key this place takes`, (err.parentSchema as any)?.description, pointer, true);
  }
  switch (err.keyword) {
    case 'additionalProperties': {
      const known = Object.keys((err.parentSchema as any)?.properties ?? {});
      const hint = known.length ? `did you mean "${nearest(p.additionalProperty, known)}"? fields here: ${known.join(', ')}` : undefined;
      return problem(`unknown field "${p.additionalProperty}"`, hint, `${path}${pointerOf([p.additionalProperty])}`, true);
    }
    case 'required':
      return problem(`missing required field "${p.missingProperty}"`, undefined, `${path}${pointerOf([p.missingProperty])}`);
    case 'type':
      return problem(`expected ${[p.type].flat().join(' or ')}, got ${show(err.data)}`);
    case 'pattern':
      return p.pattern === SLUG
        ? problem(
            `${show(err.data)} is not a valid name`,
            'names are lowercase letters and digits joined by one hyphen or two, and not only digits (e.g. "fire", "route-12", "acid-downpour--physical")',
          )
        : problem(`${show(err.data)} must match ${p.pattern}`);
    case 'enum':
      return problem(`${show(err.data)} is not one of: ${(p.allowedValues as unknown[]).join(', ')}`);
    case 'false schema': {
      // A field a reference may not give: a name beside a word that names no record (`x-ref-by`'s `unnamed`).
      const field = path.slice(path.lastIndexOf('/') + 1);
      return problem(`"${field}" cannot be given: the word beside it names no record`, `remove "${field}"`, path, true);
    }
    default:
      return problem(`${err.message ?? 'is invalid'} (got ${show(err.data)})`);
  }
}

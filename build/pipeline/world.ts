// The world's settings: `world.yaml` at the top of the data folder, beside the kinds' folders. What a
// world says of itself rather than of one record: its title and description, which the explorer and
// the OpenAPI document show, and the languages it is written in, which every list of names then
// gives, each once. A data folder without the file has the default title and description, and no
// rule on languages.
//
// The build takes the file's text and hash first (`worldSource`): a change to it makes the next build
// a full one (build.ts). It is parsed and checked (`worldSettings`) only by a build with work to do.
import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { readInside } from '../guard.mjs';
import { hashText } from '../hash.ts';
import { relativeTo } from '../paths.ts';
import { nearest, show } from '../report/hints.ts';
import { fileStart, pointerOf, Problems, type Problem } from '../report/problems.ts';
import type { KindInfo, Schema, SchemaSet } from '../schemas/schemas.ts';
import type { Data, Entry, SourceFile, Store } from '../store.ts';
import { at, NotUtf8, parseSource, withoutMark } from './parse.ts';

/** The settings file's name, in the data folder itself. */
export const WORLD_FILE = 'world.yaml';

/** What the explorer and the OpenAPI document say the world is. */
export interface WorldText {
  title: string;
  description: string;
}

export const DEFAULT_WORLD: WorldText = {
  title: 'Creature Reference',
  description: 'A fictional game world: its creatures, their types, forms and moves, and the places they are met.',
};

/** The settings file as the build first takes it: its text held, and its hash ('' without a file). */
export interface WorldSource {
  file?: SourceFile;
  hash: string;
}

export interface World extends WorldText {
  /** The file the settings come from, if any: where their problems are placed. */
  file?: SourceFile;
  /** The languages every list of names gives, each once, as written (name or id) and where; empty when the world states none. */
  languages: Array<{ key: string | number; pointer: string }>;
}

const SETTINGS: Record<string, string> = {
  title: 'the name of the world, one line',
  description: 'what the world is, in a sentence or two',
  languages: 'the languages every list of names gives, each once: [en, fr, de]',
};
const MAX_TITLE = 100;
const MAX_DESCRIPTION = 1000;

/** The settings file's text and hash, read inside the data folder under the size limit; a file that cannot be read is a problem. */
export function worldSource(dataDir: string, problems: Problems): WorldSource {
  const abs = path.join(dataDir, WORLD_FILE);
  if (!exists(abs)) return { hash: '' };
  const rel = relativeTo(path.dirname(dataDir), abs);
  const read = readInside(dataDir, abs);
  if ('why' in read) {
    problems.add({ ...fileStart(rel), message: `the world's settings file ${read.why}` });
    return { hash: '' };
  }
  if (!isUtf8(read.bytes)) {
    const err = new NotUtf8(read.bytes);
    problems.add({ file: rel, ...err.position, pointer: '', message: err.message, hint: err.hint });
    return { hash: '' };
  }
  const text = withoutMark(read.bytes.toString('utf8'));
  const file: SourceFile = { rel, abs, kind: '', stem: 'world', size: read.bytes.length, mtimeMs: 0, text };
  return { file, hash: hashText(text) };
}

/** The settings the file states, checked; those it does not state (or states wrongly: a problem each) are the defaults. */
export function worldSettings({ file }: WorldSource, problems: Problems): World {
  const world: World = { ...DEFAULT_WORLD, languages: [], file };
  if (!file || file.text?.trim() === '') return world;
  const text = file.text;
  const value = parseSource(file, problems);
  file.text = text; // kept to place the problems found below
  if (value === undefined) return world;
  const problem = (pointer: string, message: string, hint?: string, key = false) =>
    problems.add({ ...at(file, pointer, key), pointer, message, ...(hint ? { hint } : {}) });
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    problem('', `the world's settings file holds ${show(value)}; it should hold a mapping of settings`, settingsHint());
    return world;
  }
  for (const [key, setting] of Object.entries(value as Data)) {
    const pointer = pointerOf([key]);
    if (!Object.hasOwn(SETTINGS, key)) problem(pointer, `"${key}" is not a setting of the world`, settingsHint(key), true);
    else if (key === 'languages') world.languages = languagesOf(setting, problem);
    else {
      const limit = key === 'title' ? MAX_TITLE : MAX_DESCRIPTION;
      const line = key === 'title';
      if (typeof setting !== 'string' || setting.trim() === '' || setting.length > limit || (line && /[\r\n]/.test(setting)))
        problem(pointer, `${key} is ${show(setting)}; it should be ${line ? 'one line' : 'a text'} of at most ${limit} characters`);
      else world[key as keyof WorldText] = setting.trim();
    }
  }
  return world;
}

/** The world's title and description, its problems left to the build to report (the dev loop's page). */
export function worldText(dataDir: string): WorldText {
  const problems = new Problems();
  const { title, description } = worldSettings(worldSource(dataDir, problems), problems);
  return { title, description };
}

const settingsHint = (key?: string) => {
  const list = Object.entries(SETTINGS).map(([name, what]) => `${name} (${what})`);
  return `${key ? `did you mean "${nearest(key, Object.keys(SETTINGS))}"? ` : ''}the settings are ${list.join(', ')}`;
};

type Place = (pointer: string, message: string, hint?: string) => void;

function languagesOf(value: unknown, problem: Place): World['languages'] {
  if (!Array.isArray(value)) {
    problem('/languages', `languages is ${show(value)}; it should be a list of languages, by name or id`);
    return [];
  }
  const seen = new Set<string | number>();
  const out: World['languages'] = [];
  value.forEach((key, i) => {
    const pointer = pointerOf(['languages', i]);
    if (typeof key !== 'string' && !(Number.isInteger(key) && key > 0)) problem(pointer, `${show(key)} is not a language's name or id`);
    else if (seen.has(key)) problem(pointer, `${key} is listed twice`);
    else out.push({ key, pointer });
    seen.add(key);
  });
  return out;
}

/** A rule checked on each record as it is published, read whole and resolved. */
export type RecordRule = (entry: Entry, data: Data) => void;

/**
 * The rule of a world that states its languages: each list of names (a list whose items hold a
 * `language` and one text) that a record must give, or that gives something, gives each of them
 * once (`nameLists`). Undefined when the world states none. The
 * languages are looked up now, in the records checked: one that is not there is a problem of the
 * settings file.
 */
export function namesRule(world: World, store: Store, schemas: SchemaSet, problems: Problems): RecordRule | undefined {
  if (world.languages.length === 0 || !world.file) return undefined;
  const file = world.file;
  const languages: Entry[] = [];
  for (const { key, pointer } of world.languages) {
    const language = store.get('language', key);
    if (language) languages.push(language);
    else {
      const names = store.namesOf('language');
      const hint = typeof key === 'string' && names.length > 0 ? `did you mean "${nearest(key, names)}"?` : undefined;
      problems.add({ ...at(file, pointer), pointer, message: `there is no language named ${show(key)}`, ...(hint ? { hint } : {}) });
    }
  }
  const listsOf = new Map([...schemas.kinds.values()].map((info) => [info.kind, nameLists(info)]));
  const hint = `the world's languages are ${languages.map((l) => l.name).join(', ')} (${file.rel})`;
  return (entry, data) => {
    for (const { path: list, required } of listsOf.get(entry.kind) ?? []) {
      for (const { items, segs } of reached(data, list, [])) {
        if (!required && items.length === 0) continue;
        const { missing, again } = checkList(items, languages, store);
        const field = list.at(-1);
        if (missing.length > 0) {
          const message = `${field} has nothing in ${missing.map((l) => l.name).join(', ')}: each list of names gives every language of the world, once`;
          problems.add(placed(entry, pointerOf(segs), message, hint));
        }
        for (const { language, index } of again)
          problems.add(placed(entry, pointerOf([...segs, index, 'language']), `${field} gives ${language.name} a second time`, hint));
      }
    }
  };
}

const placed = (entry: Entry, pointer: string, message: string, hint: string): Problem => ({
  ...at(entry.file, pointer),
  kind: entry.kind,
  record: entry.name,
  pointer,
  message,
  hint,
});

/** The world's languages a list lacks, and the items that give one again. */
function checkList(
  items: unknown[],
  languages: Entry[],
  store: Store,
): { missing: Entry[]; again: Array<{ language: Entry; index: number }> } {
  const again: Array<{ language: Entry; index: number }> = [];
  const seen = new Set<Entry>();
  items.forEach((item, index) => {
    const language = store.target((item as Data | null)?.language);
    if (!language || !languages.includes(language)) return;
    if (seen.has(language)) again.push({ language, index });
    seen.add(language);
  });
  return { missing: languages.filter((language) => !seen.has(language)), again };
}

/**
 * The lists of names of a kind: paths to lists whose items hold a `language` reference and one text
 * beside it. A record's own `names` is required: left out or empty, it lacks every language; any
 * other list (a species' genera, its form descriptions) states nothing while empty.
 */
function nameLists(info: KindInfo): Array<{ path: string[]; required: boolean }> {
  const lists: Array<{ path: string[]; required: boolean }> = [];
  for (const site of info.refSites) {
    if (!('kind' in site) || site.kind !== 'language' || site.path.length < 3) continue;
    if (site.path.at(-1) !== 'language' || site.path.at(-2) !== '*') continue;
    const list = site.path.slice(0, -2);
    const item = schemaAt(info.response, [...list, '*']);
    if (item?.properties && Object.keys(item.properties).length === 2) lists.push({ path: list, required: list.join('.') === 'names' });
  }
  return lists;
}

/** The schema of the values `path` reaches ('*' an item or a key). */
function schemaAt(node: Schema | undefined, path: readonly string[]): Schema | undefined {
  for (const seg of path) node = seg === '*' ? (node?.items ?? node?.additionalProperties) : node?.properties?.[seg];
  return node;
}

/** The lists `path` reaches in a record, with the path of each. */
function* reached(
  value: unknown,
  path: readonly string[],
  segs: Array<string | number>,
): Generator<{ items: unknown[]; segs: Array<string | number> }> {
  if (path.length === 0) {
    if (Array.isArray(value)) yield { items: value, segs };
    else if (value === undefined) yield { items: [], segs }; // a list left out is empty
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const [seg, ...rest] = path as [string, ...string[]];
  if (seg !== '*') return yield* reached((value as Data)[seg], rest, [...segs, seg]);
  for (const [key, item] of Object.entries(value)) yield* reached(item, rest, [...segs, Array.isArray(value) ? Number(key) : key]);
}

/** Whether `file` is there; a data folder that is a file holds none, and the listing says what it is. */
function exists(file: string): boolean {
  try {
    return fs.lstatSync(file, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

// What the build keeps of each record while it works, and what it remembers of it for the next build.
//
// A record takes part in other records' derived fields only through a few of its fields, its facts
// (the fields `derivations` read). Once checked, a record is set aside as JSON (`park`), and the
// build goes on with its facts alone: references in them are resolved, the derivations run over all
// records, and only when a record is published is it read whole again (`unpark`), its other
// references resolved and its derived fields added. The build holds one whole record at a time.
//
// In the live tree's manifest the build leaves, per source file: its hash, the record's id, its
// facts and a hash of its derived fields. A rebuild reads only the files that changed; every other
// record enters with its facts alone and, when its derived fields come out as before, keeps its
// published files, carried over from the live tree — otherwise it is read from its file when
// published. When records are removed, renumbered or renamed, every kind that may refer to theirs
// is read again, so that those references are resolved, or reported, anew.
import { crossDerived, deriveOwn, factFields } from './derive.ts';
import { serialise } from './serialise.ts';
import { hashText } from '../hash.ts';
import { parseSource, sourceHash, sourceText } from './parse.ts';
import { fileStart, type Problems } from '../report/problems.ts';
import { resolveEntry } from './resolve.ts';
import { kindsOf, type RefSite, type SchemaSet } from '../schemas/schemas.ts';
import type { Data, Entry, Remembered, SourceFile, Store } from '../store.ts';
import type { Validators } from '../schemas/validators.ts';
import type { RecordRule } from './world.ts';

const memo = <T>(make: (kind: string) => T) => {
  const cache = new Map<string, T>();
  return (kind: string) => {
    let value = cache.get(kind);
    if (value === undefined) cache.set(kind, (value = make(kind)));
    return value;
  };
};
const factsOf = memo(factFields);
const crossOf = memo(crossDerived);
/** Fields a published record takes from its facts as the build left them: resolved, or derived. */
const overlaid = memo((kind) => new Set([...factsOf(kind), ...crossOf(kind)]));

/** Sets a checked record aside as JSON; it goes on with its facts (taken now, before resolution). */
export function park(entry: Entry): void {
  // Both in order (serialise.ts), as the record is published: what is parsed from them is written as it is.
  entry.facts = serialise(factsOnly(entry));
  entry.source ??= serialise(entry.data); // checkFile gives it when it keeps the record (checked.ts)
  entry.data = JSON.parse(entry.facts);
}

function factsOnly(entry: Entry): Data {
  const facts: Data = {};
  for (const field of factsOf(entry.kind)) if (entry.data[field] !== undefined) facts[field] = entry.data[field];
  // The names in its own folder are its files in the output: one added or removed changes the files
  // the build publishes, which a rebuild given only its changes cannot (factsKept).
  if (entry.file.media) facts[MEDIA_FACT] = entry.file.media.map((m) => m.name);
  return facts;
}

/** Where a record's facts name the files of its folder: no field of a schema is so named. */
const MEDIA_FACT = 'media files';

const kindOfPath = (rel: string) => rel.split('/').at(-2) ?? '';

/**
 * Decides which files are read — the changed ones, and every file of a kind that may refer to a kind
 * whose records were removed, renumbered or renamed. The others get what was remembered of them (`known`).
 * Returns the kinds with a record read again or removed.
 */
export function reuse(files: SourceFile[], memory: Map<string, Remembered>, schemas: SchemaSet, problems: Problems): Set<string> {
  const remembered = files.map((f) => memory.get(f.rel));
  const changed = new Set(files.filter((f, i) => remembered[i]?.hash !== f.hash));
  const moved = new Set<string>();
  // A record renumbered, or renamed (its name is no longer its file's, which is a problem): the
  // records that name it are read again, for the problems a clean build finds in them.
  for (const file of changed) {
    const now = parseSource(file, problems) as Data | undefined;
    file.parsed = { value: now };
    const before = memory.get(file.rel);
    if (before && (now?.id !== before.id || now?.name !== file.stem)) moved.add(file.kind);
  }
  // Fewer of the remembered files listed now than remembered: some were removed (or renamed).
  if (remembered.reduce((n, known) => (known ? n + 1 : n), 0) < memory.size) {
    const present = new Set(files.map((f) => f.rel));
    for (const rel of memory.keys()) if (!present.has(rel)) moved.add(kindOfPath(rel));
  }
  const referring = new Set(
    [...schemas.kinds.values()]
      .filter((info) => info.refSites.some((site) => kindsOf(site).some((k) => moved.has(k))))
      .map((info) => info.kind),
  );
  const read = new Set(moved);
  files.forEach((file, i) => {
    if (changed.has(file) || referring.has(file.kind)) {
      read.add(file.kind);
      return;
    }
    file.known = remembered[i];
    file.text = undefined;
  });
  return read;
}

/**
 * Whether every record has the facts it had when the live tree was built: no file added or removed
 * since, and each record read again (`read` are their kinds) has the id and facts it had. Derived
 * fields come from facts alone, so then only the records read again can have new ones.
 */
export function factsKept(store: Store, files: SourceFile[], memory: Map<string, Remembered>, read: ReadonlySet<string>): boolean {
  // A file added is read again and has no memory; so with as many files as remembered, none is gone.
  if (files.length !== memory.size) return false;
  for (const kind of read)
    for (const entry of store.valid(kind)) {
      if (entry.file.known) continue;
      const was = memory.get(entry.file.rel);
      if (was?.id !== entry.id || was.facts !== entry.facts) return false;
    }
  return true;
}

/**
 * Once derived: hashes the derived fields of the records filled in (those `only` picks, of the kinds
 * `derived`; every record without them), and marks to be carried over each record that entered from
 * memory and whose derived fields came out as before. Every other record entered from memory (a
 * rebuild reads again only records of the kinds it derives) and keeps the hash it had. (Memory is of
 * the live tree, and is used only with that tree's list of files whole: each remembered record's
 * files are in it.)
 */
export function settle(store: Store, derived?: ReadonlySet<string>, only?: (entry: Entry) => boolean): void {
  for (const kind of store.kinds()) {
    const fields = crossOf(kind);
    const fresh = !derived || derived.has(kind);
    for (const entry of store.valid(kind)) {
      const known = entry.file.known;
      entry.derived = fresh && (!only || only(entry)) ? derivedHash(entry.data, fields) : known?.derived;
      entry.carry = known !== undefined && entry.derived === known.derived;
    }
  }
}

function derivedHash(data: Data, fields: string[]): string {
  if (fields.length === 0) return '';
  const values: Data = {};
  for (const field of fields) values[field] = data[field];
  return hashText(serialise(values));
}

/** What reading a parked record back needs. */
export interface Context {
  store: Store;
  schemas: SchemaSet;
  validators: Validators;
  problems: Problems;
  /** A rule of the world's (world.ts) each whole record is held to. */
  rule?: RecordRule;
}

/** References outside the overlaid fields: the ones resolved when the record is published. */
const laterSites = new Map<string, RefSite[]>();

/**
 * The whole record, for publishing: from its parked JSON (or its file, for a record that entered
 * from memory), with its facts as resolved and its derived fields as derived, its other references
 * resolved, its own derivations done and the world's rule held. Undefined, with a problem, if it
 * cannot be had. The entry keeps its facts alone: the whole record is resolved and derived beside it.
 */
export function unpark(entry: Entry, { store, schemas, validators, problems, rule }: Context): Data | undefined {
  const data = entry.source !== undefined ? (JSON.parse(entry.source) as Data) : reread(entry, validators, problems);
  if (!data) return undefined;
  entry.source = undefined;
  for (const field of overlaid(entry.kind)) if (entry.data[field] !== undefined) data[field] = entry.data[field];
  let sites = laterSites.get(entry.kind);
  if (!sites)
    laterSites.set(entry.kind, (sites = schemas.kinds.get(entry.kind)!.refSites.filter((s) => !overlaid(entry.kind).has(s.path[0]!))));
  const whole = { ...entry, data };
  resolveEntry(store, sites, whole, problems);
  deriveOwn(whole, problems, store);
  rule?.(entry, data);
  return data;
}

/** A remembered record's file, read again: it must be as it was when the build began. */
function reread(entry: Entry, validators: Validators, problems: Problems): Data | undefined {
  const file = entry.file;
  const changed = (message: string) => void problems.add({ ...fileStart(file.rel), message, hint: 'build again' });
  file.known = undefined;
  const text = sourceText(file);
  if (sourceHash(file, text) !== file.hash) return changed('the file changed while the build was reading it');
  file.text = text;
  const data = parseSource(file, problems) as Data | undefined;
  if (!data || typeof data !== 'object' || !validators.source.get(entry.kind)!(data))
    return changed('the file no longer reads as it did when the build began');
  return data;
}

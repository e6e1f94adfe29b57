// The build's model of its data: the source files, what the last build remembered of each, and the
// records read from them, indexed by kind, id and name (a record's url is read back to its kind and
// id). Below every folder of build/: the stages make it, incremental/ remembers it, site/ draws from it.
import { parseRecordUrl, urls, type Urls } from './paths.ts';
import type { NamedRef } from './api-types.ts';

/** A source file, and what the build has learnt of it so far. */
export interface SourceFile {
  /** Path relative to the data folder's parent, with '/' (`data/type/fire.yaml`). */
  rel: string;
  abs: string;
  /** The folder name: the record kind the file claims to hold. */
  kind: string;
  /** The file name without its extension: the name of the record it should hold. */
  stem: string;
  size: number;
  mtimeMs: number;
  /**
   * The files of the record's own folder (`<kind>/<name>/` beside it), by name, when it has one: its
   * images and sounds, published with it and part of its identity (`hash`).
   */
  media?: MediaFile[];
  /** Why the file is not read at all (it is too large); its problem is reported already. */
  refused?: string;
  /** Hash of the text, once read or remembered: what tells a changed file from an unchanged one. */
  hash?: string;
  /** The line of the live manifest's sources that gives this file's size, time and hash as they are. */
  stampLine?: number;
  /** The text, while the build holds it. */
  text?: string;
  /**
   * Parsed ahead of checking (a rebuild looks at a changed file's id first): the value, held until
   * the file is checked; undefined when the file could not be read as a record.
   */
  parsed?: { value: unknown };
  /** What the last build remembered of this unchanged file, when the record is not read in full. */
  known?: Remembered;
}

/** A file of a record's folder: its name and where it is (a link is followed only when checked, media.ts). */
export interface MediaFile {
  name: string;
  abs: string;
  /** The data folder, which the file must lie inside. */
  root: string;
}

/** What a build remembers of a source file to know, without reading it, that it has not changed. */
export type SourceStamp = [size: number, mtimeMs: number, hash: string];

/** What the last build remembered of an unchanged source file's record (incremental/memory.ts). */
export interface Remembered {
  hash: string;
  id: number;
  /** Hash of the record's derived fields. */
  derived: string;
  /** Its facts, as JSON. */
  facts: string;
  /** The memory's text, and where this record's line lies in it (its newline included). */
  text: string;
  /** The text's bytes, where each character is one: the same offsets hold. */
  bytes?: Buffer;
  start: number;
  end: number;
}

export type Data = Record<string, any>;

export interface Entry {
  kind: string;
  id: number;
  name: string;
  file: SourceFile;
  /**
   * The record as checked; once it passed its schema, only its facts (pipeline/facts.ts), resolved
   * and then derived: the whole record waits in `source`, or, for a record the last build
   * remembered, in its file.
   */
  data: Data;
  /** False when the record broke its schema; it is indexed but not resolved or published. */
  valid: boolean;
  /** The whole record as checked, as JSON, until it is published. */
  source?: string;
  /** Its facts as JSON, taken before references are resolved. */
  facts?: string;
  /** Hash of its derived fields, once derived. */
  derived?: string;
  /** Its published files are the live tree's, unchanged: it is not read or written again. */
  carry?: boolean;
}

export class Store {
  readonly urls: Urls;
  private readonly ids = new Map<string, Map<number, Entry>>();
  private readonly names = new Map<string, Map<string, Entry>>();
  /** `kind/name` of records whose own file has a problem: references to them are not reported again. */
  private readonly broken = new Set<string>();

  constructor(
    readonly baseUrl: string,
    kinds: Iterable<string>,
    /** Kinds whose records are published without a name: a reference to one is `{url}` alone, as PokeAPI's are. */
    private readonly unnamed: ReadonlySet<string> = new Set(),
  ) {
    this.urls = urls(baseUrl);
    for (const kind of kinds) {
      this.ids.set(kind, new Map());
      this.names.set(kind, new Map());
    }
  }

  /** Adds an entry unless its id or name is taken; returns the entry holding it otherwise. */
  add(entry: Entry): { id?: Entry; name?: Entry } {
    const ids = this.ids.get(entry.kind)!;
    const names = this.names.get(entry.kind)!;
    const id = ids.get(entry.id);
    const name = names.get(entry.name);
    if (id || name) return { id, name };
    ids.set(entry.id, entry);
    names.set(entry.name, entry);
    return {};
  }

  /**
   * Keeps an entry whose id or name another record holds: it is not indexed, but its references are
   * still resolved, for their problems, and references to it by the key it does not share are not
   * reported (its own file has the problem).
   */
  setApart(entry: Entry, taken: { id?: Entry; name?: Entry }): void {
    if (!taken.id) this.markBroken(entry.kind, entry.id);
    if (!taken.name) this.markBroken(entry.kind, entry.name);
    if (entry.valid) this.apartEntries.push(entry);
  }
  /** The valid records set apart for a taken id or name, of one kind. */
  apart(kind: string): Entry[] {
    return this.apartEntries.filter((entry) => entry.kind === kind);
  }
  private readonly apartEntries: Entry[] = [];

  markBroken(kind: string, key: string | number): void {
    this.broken.add(`${kind}/${key}`);
  }
  isBroken(kind: string, key: string | number): boolean {
    return this.broken.has(`${kind}/${key}`);
  }

  /** Sets aside the valid records of every kind, ordered by id; call once loading is done. */
  seal(): void {
    for (const [kind, ids] of this.ids) {
      const valid = [...ids.values()].filter((e) => e.valid);
      this.validEntries.set(
        kind,
        valid.sort((a, b) => a.id - b.id),
      );
    }
  }
  private readonly validEntries = new Map<string, Entry[]>();

  kinds(): string[] {
    return [...this.ids.keys()];
  }
  /** The records of a kind that passed their schema, ordered by id. */
  valid(kind: string): Entry[] {
    return this.validEntries.get(kind) ?? [];
  }
  get(kind: string, key: string | number): Entry | undefined {
    return typeof key === 'number' ? this.ids.get(kind)?.get(key) : this.names.get(kind)?.get(key);
  }
  namesOf(kind: string): string[] {
    return [...(this.names.get(kind)?.keys() ?? [])];
  }
  /** The entry a resolved NamedRef points at. */
  target(ref: unknown): Entry | undefined {
    // Most are the shared ones `ref` made, known without reading their url.
    const known = ref !== null && typeof ref === 'object' ? this.targets.get(ref) : undefined;
    if (known) return known;
    const url = (ref as NamedRef | null)?.url;
    const at = typeof url === 'string' ? parseRecordUrl(this.baseUrl, url) : undefined;
    return at && this.ids.get(at.kind)?.get(at.id);
  }
  /**
   * The NamedRef of an entry (`{url}` alone for a kind published without names); one shared object
   * per entry, never changed after it is made.
   */
  ref(entry: Entry): NamedRef {
    let ref = this.refs.get(entry);
    if (!ref) {
      const url = this.urls.record(entry.kind, entry.id);
      ref = Object.freeze(this.unnamed.has(entry.kind) ? ({ url } as NamedRef) : { name: entry.name, url });
      this.refs.set(entry, ref);
      this.targets.set(ref, entry);
    }
    return ref;
  }
  private readonly refs = new Map<Entry, NamedRef>();
  /** The entry of each NamedRef `ref` made. */
  private readonly targets = new WeakMap<object, Entry>();
}

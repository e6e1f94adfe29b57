// The records of a build, indexed by kind, id and name (a record's url is read back to its kind and id).
import type { SourceFile } from './discover.ts';
import { parseRecordUrl, urls, type Urls } from '../paths.ts';
import type { NamedRef } from '../api-types.ts';

export type Data = Record<string, any>;

export interface Entry {
  kind: string;
  id: number;
  name: string;
  file: SourceFile;
  /** The record: the source values, then resolved, then completed with derived fields. */
  data: Data;
  /** False when the record broke its schema; it is indexed but not resolved or published. */
  valid: boolean;
  /**
   * True when `data` holds only the record's facts (facts.ts), resolved and then derived: the
   * whole record waits in `source`, or, for a record the last build remembered, in its file.
   */
  partial?: boolean;
  /** The whole record as checked, as JSON, until it is published. */
  source?: string;
  /** Its facts as JSON, taken before references are resolved. */
  facts?: string;
  /** Hash of its derived fields, once derived. */
  derived?: string;
  /**
   * Its published files are the live tree's, unchanged: it is not read or written again. Their
   * paths: the id path, then the name path for a kind published by name.
   */
  carry?: string[];
}

export class Store {
  readonly urls: Urls;
  private readonly entries = new Map<string, Entry[]>();
  private readonly ids = new Map<string, Map<number, Entry>>();
  private readonly names = new Map<string, Map<string, Entry>>();
  /** `kind/name` of records whose own file has a problem: references to them are not reported again. */
  private readonly broken = new Set<string>();

  constructor(
    readonly baseUrl: string,
    kinds: Iterable<string>,
  ) {
    this.urls = urls(baseUrl);
    for (const kind of kinds) {
      this.entries.set(kind, []);
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
    this.entries.get(entry.kind)!.push(entry);
    ids.set(entry.id, entry);
    names.set(entry.name, entry);
    return {};
  }

  /** The name of a record still to be read (order.ts), known from its file's name: for hints alone. */
  expect(kind: string, name: string): void {
    this.expected.add(`${kind}/${name}`);
  }
  /** A record of `kind` goes by `key`, or a file still to be read is named so. */
  mentions(kind: string, key: string | number): boolean {
    return this.get(kind, key) !== undefined || this.expected.has(`${kind}/${key}`);
  }
  private readonly expected = new Set<string>();

  markBroken(kind: string, key: string | number): void {
    this.broken.add(`${kind}/${key}`);
  }
  isBroken(kind: string, key: string | number): boolean {
    return this.broken.has(`${kind}/${key}`);
  }

  /** Sorts every kind by id and sets aside the valid records; call once loading is done (and again after records read late). */
  seal(): void {
    for (const [kind, list] of this.entries) {
      list.sort((a, b) => a.id - b.id);
      this.validEntries.set(
        kind,
        list.filter((e) => e.valid),
      );
    }
  }
  private readonly validEntries = new Map<string, Entry[]>();

  kinds(): string[] {
    return [...this.entries.keys()];
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
  /** The NamedRef of an entry; one shared object per entry, never changed after it is made. */
  ref(entry: Entry): NamedRef {
    let ref = this.refs.get(entry);
    if (!ref) {
      ref = Object.freeze({ name: entry.name, url: this.urls.record(entry.kind, entry.id) });
      this.refs.set(entry, ref);
      this.targets.set(ref, entry);
    }
    return ref;
  }
  private readonly refs = new Map<Entry, NamedRef>();
  /** The entry of each NamedRef `ref` made. */
  private readonly targets = new WeakMap<object, Entry>();
}

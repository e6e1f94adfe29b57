// Stage 4, resolve: turn every reference an author wrote (a name or an id) into a NamedRef {name, url},
// in every kind, or in the kinds a rebuild given only its changes needs (build.ts, `render`). It runs
// after every record is loaded, so a reference's target may live in any file.
import { pointerOf, type Problems } from '../report/problems.ts';
import type { RefSite, SchemaSet } from '../schemas/schemas.ts';
import type { Entry, Store } from '../store.ts';
import { at } from './parse.ts';
import { nearest, show } from '../report/hints.ts';

/**
 * Resolves the records of every kind, or of the kinds `kinds` names: each whole, or only the
 * references under the top-level fields it gives (a kind whose records are only read by the
 * derivations of others, and not published again).
 */
export function resolve(
  store: Store,
  schemas: SchemaSet,
  problems: Problems,
  kinds?: ReadonlyMap<string, ReadonlySet<string> | undefined>,
): void {
  for (const [kind, info] of schemas.kinds) {
    if (kinds && !kinds.has(kind)) continue;
    const fields = kinds?.get(kind);
    const sites = fields ? info.refSites.filter((site) => fields.has(site.path[0]!)) : info.refSites;
    for (const entry of store.valid(kind)) resolveEntry(store, sites, entry, problems);
    // A record whose id or name another holds is not published, but its references are read for their problems.
    for (const entry of store.apart(kind)) resolveEntry(store, sites, entry, problems);
  }
}

export function resolveEntry(store: Store, sites: readonly RefSite[], entry: Entry, problems: Problems): void {
  for (const site of sites) {
    visit(entry.data, site.path, 0, [], (value, segs) => resolveOne(store, entry, site, value, segs, problems));
  }
}

type Visitor = (value: unknown, at: (string | number)[]) => unknown;

/**
 * Calls `fn` on every value `path` reaches ('*' is every item or key) and stores what it returns.
 * `segs` is the path so far; it is shared and changed in place, so `fn` copies it if it keeps it.
 */
function visit(value: any, path: readonly string[], i: number, segs: (string | number)[], fn: Visitor): unknown {
  if (i === path.length) return fn(value, segs);
  if (value === null || typeof value !== 'object') return value;
  // Loops rather than a helper closure: this runs for every reference of every record.
  const seg = path[i]!;
  if (seg !== '*') {
    if (Object.hasOwn(value, seg)) {
      segs.push(seg);
      value[seg] = visit(value[seg], path, i + 1, segs, fn);
      segs.pop();
    }
  } else if (Array.isArray(value)) {
    for (let k = 0; k < value.length; k++) {
      segs.push(k);
      value[k] = visit(value[k], path, i + 1, segs, fn);
      segs.pop();
    }
  } else {
    for (const k of Object.keys(value)) {
      segs.push(k);
      value[k] = visit(value[k], path, i + 1, segs, fn);
      segs.pop();
    }
  }
  return value;
}

function resolveOne(store: Store, entry: Entry, site: RefSite, value: unknown, segs: (string | number)[], problems: Problems): unknown {
  if (value === null || value === undefined) return value;
  if ('kind' in site) {
    // A list where one reference may be many (`x-source: "many"`): each of its references.
    if (site.many && Array.isArray(value))
      return value.map((one, i) => {
        const target = find(store, entry, site.kind, one, () => pointerOf([...segs, i]), problems);
        return target ? store.ref(target) : one;
      });
    const target = find(store, entry, site.kind, value, () => pointerOf(segs), problems);
    return target ? store.ref(target) : value;
  }
  // A reference whose kind a word beside it names: {trigger: held-item, name: x} → {trigger, name, url} of item x.
  const obj = value as Record<string, unknown>;
  const word = obj[site.byField];
  if (typeof word !== 'string' || !Object.hasOwn(site.kinds, word)) return value;
  const kind = site.kinds[word]!;
  const target = find(store, entry, kind, obj.name, () => pointerOf([...segs, 'name']), problems);
  return target ? { ...obj, name: target.name, url: store.urls.record(target.kind, target.id) } : value;
}

/** The record `key` names; a problem (placed by `where`, made only then) when there is none. */
function find(store: Store, entry: Entry, kind: string, key: unknown, where: () => string, problems: Problems): Entry | undefined {
  if (typeof key !== 'string' && typeof key !== 'number') return undefined;
  const target = store.get(kind, key);
  if (target || store.isBroken(kind, key)) return target;
  const pointer = where();
  const problem = { ...at(entry.file, pointer), kind: entry.kind, record: entry.name, pointer };
  if (typeof key === 'number') {
    problems.add({ ...problem, message: `there is no ${kind} with id ${key}` });
    return undefined;
  }
  const elsewhere = store.kinds().find((k) => k !== kind && store.get(k, key) !== undefined);
  const message = elsewhere ? `${show(key)} is a ${elsewhere}, but a ${kind} is expected here` : `there is no ${kind} named ${show(key)}`;
  // The nearest name is sought among every record of the kind: past the first problems, which are
  // what an author reads, each would cost that much again (10,000 against 10,000 names: 14 s).
  problems.add({ ...problem, message, hint: problems.count < HINTED_PROBLEMS ? hintFor(store, kind, key) : undefined });
  return undefined;
}

/** Problems a build gives a hint of the nearest name, at most. */
const HINTED_PROBLEMS = 200;

function hintFor(store: Store, kind: string, key: string): string | undefined {
  const names = store.namesOf(kind);
  return names.length ? `did you mean "${nearest(key, names)}"?` : `there are no ${kind} records yet`;
}

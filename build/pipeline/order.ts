// The order in which kinds are read and published. Most of a record's files wait for every record
// to be read, since they show what other records say of it. But a kind that no record refers to
// (its derived fields aside) and that has no field derived across records takes nothing from other
// records but their ids and names: its records can be read one at a time as they are published,
// after the other kinds' files are on their way to disk. Those kinds are read late; after them
// come the kinds with fields derived from theirs. In a PokeAPI-sized world the location areas are
// most of the sources' bytes, so the writing of everything else overlaps the reading of them.
import { affectedKinds, crossDerived } from './derive.ts';
import { kindsOf, type SchemaSet } from '../schemas/schemas.ts';

export interface Order {
  /** Read before anything is published, and published first, then the site's files and sprites. */
  early: string[];
  /** Read as they are published, after those. */
  late: string[];
  /** Derived from late kinds' records: published once those are all read. */
  after: string[];
}

export function publishOrder(schemas: SchemaSet): Order {
  const kinds = [...schemas.kinds.keys()];
  const referred = new Set<string>();
  for (const info of schemas.kinds.values()) {
    for (const site of info.refSites) {
      // A reference in a field derived entirely is made by a derivation, which says what it reads.
      if (info.derived.includes(site.path[0]!)) continue;
      for (const kind of kindsOf(site)) referred.add(kind);
    }
  }
  const late = kinds.filter((kind) => !referred.has(kind) && crossDerived(kind).length === 0);
  // Kinds derived from late ones, and from those, and so on.
  let reached = new Set(late);
  for (let next = affectedKinds(reached); next.size > reached.size; next = affectedKinds(reached)) reached = next;
  return {
    early: kinds.filter((kind) => !reached.has(kind)),
    late,
    after: kinds.filter((kind) => reached.has(kind) && !late.includes(kind)),
  };
}

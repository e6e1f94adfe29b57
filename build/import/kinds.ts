// What the importer's stages share: the records read, how a reference is followed, what is refused,
// and the names PokeAPI and this project give the same things: "pokemon" is "creature" and
// "pokeathlon" is "athlon", in kinds, fields and url paths alike.

/** A PokeAPI kind or field name as this project spells it. */
export const ourName = (name: string): string => name.replace(/pokeathlon/g, 'athlon').replace(/pokemon/g, 'creature');

/** A PokeAPI record, as read: open JSON. */
export type Poke = Record<string, any>;

/**
 * Something of the source the import did not take, and why: a record (its `index.json`), or an
 * entry of the folder that is not followed. Every one is listed in the report.
 */
export interface Refusal {
  /** The path inside `--from`, with `/`. */
  file: string;
  why: string;
}

/** Where a PokeAPI reference points: the kind (our name) and id its url names, or undefined for another url. */
export function refTarget(ref: unknown): { kind: string; id: number } | undefined {
  const url = (ref as { url?: unknown } | null)?.url;
  if (typeof url !== 'string') return undefined;
  const match = /\/api\/v2\/([a-z0-9-]+)\/(-?\d+)\/?$/.exec(url);
  return match ? { kind: ourName(match[1]!), id: Number(match[2]) } : undefined;
}

/** Every record read, by our kind and id. */
export type World = Map<string, Map<number, Poke>>;

/** The records of a kind, by id (none: an empty map). */
export const recordsOf = (world: World, kind: string): Map<number, Poke> => world.get(kind) ?? new Map();

/**
 * A turn of the event loop, taken now and then by a long stage: a signal's handler runs only
 * between turns, and the command's removes what the import wrote before the process ends.
 */
export const pause = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

// Client-side search over a kind's list: by id ("25", "#25", "-1") or by name, best matches first.
// Each entry is prepared once, so a query over many thousands of entries takes well under a frame.
import { idOf, type ListItem } from './api.ts';

export interface Entry {
  id: number;
  idText: string;
  name: string;
  ref: ListItem;
}

export function prepare(results: readonly ListItem[]): Entry[] {
  return results.map((ref) => {
    const id = idOf(ref);
    // A record that publishes no name is found by its id alone.
    return { id, idText: String(id), name: ref.name?.toLowerCase() ?? '', ref };
  });
}

/** How well `entry` matches; lower is better, undefined is no match. */
function rank(entry: Entry, q: string, qId: string | undefined): number | undefined {
  if (qId !== undefined && entry.idText === qId) return 0;
  if (entry.name === '') return qId !== undefined && entry.idText.startsWith(qId) ? 5 : undefined;
  if (entry.name === q) return 1;
  if (entry.name.startsWith(q)) return 2;
  const at = entry.name.indexOf(q);
  if (at > 0) return entry.name[at - 1] === '-' ? 3 : 4;
  if (qId !== undefined && entry.idText.startsWith(qId)) return 5;
  return undefined;
}

export function normalise(query: string): string {
  return query
    .trim()
    .toLowerCase()
    .replace(/^#/, '')
    .replace(/[\s_]+/g, '-');
}

/** Matching entries, best first and then by id. An empty query matches everything in id order. */
export function search(entries: readonly Entry[], query: string): Entry[] {
  const q = normalise(query);
  if (q === '') return entries.slice();
  // Ids run from -1, as PokeAPI's do (a move ailment's `unknown`).
  const qId = /^-?[0-9]+$/.test(q) ? String(Number(q)) : undefined;
  const hits: Array<{ entry: Entry; rank: number }> = [];
  for (const entry of entries) {
    const r = rank(entry, q, qId);
    if (r !== undefined) hits.push({ entry, rank: r });
  }
  hits.sort((a, b) => a.rank - b.rank || a.entry.id - b.entry.id);
  return hits.map((hit) => hit.entry);
}

// The format of what a build remembers of its records (`.dist-builds/<tree>.records`, see facts.ts):
// a header line, then one line per record — source path, source hash, id, hash of its derived fields
// and its facts as JSON — separated by tabs. Apart from facts.ts so that a build can read it before
// it knows whether there is anything to build.
import type { Store } from './store.ts';

export interface Remembered {
  hash: string;
  id: number;
  /** Hash of the record's derived fields. */
  derived: string;
  /** Its facts, as JSON. */
  facts: string;
}

/** What the memory must match to be used: the tool and the options, and the live tree's key. */
export interface MemoryHeader {
  settings: string;
  key: string;
}

const FORMAT = 'records 1';

/** One line per record: path, hash, id, derived hash and facts, separated by tabs. */
export function formatMemory(header: MemoryHeader, store: Store): string {
  const lines = [JSON.stringify({ format: FORMAT, ...header })];
  for (const kind of store.kinds()) {
    for (const e of store.valid(kind)) {
      if (!/[\t\n]/.test(e.file.rel)) lines.push(`${e.file.rel}\t${e.file.hash}\t${e.id}\t${e.derived ?? ''}\t${e.facts ?? '{}'}`);
    }
  }
  return lines.join('\n') + '\n';
}

/** The records remembered, by source path; undefined when there is no memory or it is not for this build. */
export function parseMemory(text: string | undefined, expected: MemoryHeader): Map<string, Remembered> | undefined {
  if (!text) return undefined;
  const end = text.indexOf('\n');
  try {
    const header = JSON.parse(end < 0 ? text : text.slice(0, end));
    if (header?.format !== FORMAT || header.settings !== expected.settings || header.key !== expected.key) return undefined;
  } catch {
    return undefined;
  }
  const out = new Map<string, Remembered>();
  // Field by field rather than split: there is a line per record.
  for (let at = end < 0 ? text.length : end + 1; at < text.length;) {
    let nl = text.indexOf('\n', at);
    if (nl < 0) nl = text.length;
    if (nl > at) {
      const t1 = text.indexOf('\t', at);
      const t2 = text.indexOf('\t', t1 + 1);
      const t3 = text.indexOf('\t', t2 + 1);
      const t4 = text.indexOf('\t', t3 + 1);
      if (t1 < 0 || t2 < 0 || t3 < 0 || t4 < 0 || t4 > nl) return undefined;
      const id = Number(text.slice(t2 + 1, t3));
      if (!Number.isInteger(id)) return undefined;
      out.set(text.slice(at, t1), { hash: text.slice(t1 + 1, t2), id, derived: text.slice(t3 + 1, t4), facts: text.slice(t4 + 1, nl) });
    }
    at = nl + 1;
  }
  return out;
}

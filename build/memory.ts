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
  const lines = text.split('\n');
  try {
    const header = JSON.parse(lines[0]!);
    if (header?.format !== FORMAT || header.settings !== expected.settings || header.key !== expected.key) return undefined;
  } catch {
    return undefined;
  }
  const out = new Map<string, Remembered>();
  for (let i = 1; i < lines.length; i++) {
    if (!lines[i]) continue;
    const [rel, hash, id, derived, facts] = lines[i]!.split('\t');
    if (facts === undefined || !Number.isInteger(Number(id))) return undefined;
    out.set(rel!, { hash: hash!, id: Number(id), derived: derived!, facts });
  }
  return out;
}

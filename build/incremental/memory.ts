// The format of what a build remembers of its records (`.dist-builds/<tree>.records`, see
// pipeline/facts.ts): a header line, then one line per record — source path, source hash, id, hash of
// its derived fields and its facts as JSON — separated by tabs. Apart from facts.ts so that a build can
// read it before it knows whether there is anything to build.
import type { Remembered, Store } from '../store.ts';

/** What the memory must match to be used: the tool and the options, and the live tree's key. */
export interface MemoryHeader {
  settings: string;
  key: string;
}

const FORMAT = 'records 1';

/**
 * One line per record: path, hash, id, derived hash and facts, separated by tabs. A record remembered
 * (its file unchanged) whose derived fields came out as before has the line it had: runs of such
 * lines are taken from the last memory's text as they are.
 */
export function formatMemory(header: MemoryHeader, store: Store): string {
  const parts = [JSON.stringify({ format: FORMAT, ...header }) + '\n'];
  let run: Remembered | undefined;
  let end = 0;
  const close = () => {
    if (run) parts.push(run.text.slice(run.start, end));
    run = undefined;
  };
  for (const kind of store.kinds()) {
    for (const e of store.valid(kind)) {
      const known = e.file.known;
      if (known && e.derived === known.derived) {
        if (run?.text !== known.text || end !== known.start) {
          close();
          run = known;
        }
        end = known.end;
        continue;
      }
      close();
      if (!/[\t\n]/.test(e.file.rel)) parts.push(`${e.file.rel}\t${e.file.hash}\t${e.id}\t${e.derived ?? ''}\t${e.facts ?? '{}'}\n`);
    }
  }
  close();
  return parts.join('');
}

/** The records remembered, by source path; undefined when there is no memory or it is not for this build. */
export function parseMemory(text: string | undefined, expected: MemoryHeader): Map<string, Remembered> | undefined {
  // Each line ends with a newline: a text that does not was cut short.
  if (!text?.endsWith('\n')) return undefined;
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
      out.set(text.slice(at, t1), {
        hash: text.slice(t1 + 1, t2),
        id,
        derived: text.slice(t3 + 1, t4),
        facts: text.slice(t4 + 1, nl),
        text,
        start: at,
        end: nl + 1,
      });
    }
    at = nl + 1;
  }
  return out;
}

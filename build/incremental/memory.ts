// What a tree's manifest remembers of each record it was built from (its `r` lines, see
// manifest.ts): source path, source hash, id, hash of its derived fields and its facts as JSON,
// separated by tabs. A rebuild reads it to spare every unchanged file (pipeline/facts.ts).
import type { Remembered, Store } from '../store.ts';

/**
 * One `r` line per record, in pieces: a line, or a run of lines. A record remembered (its file
 * unchanged) whose derived fields came out as before has the line it had: runs of such lines are
 * taken from the last manifest's text as they are.
 */
export function formatMemory(store: Store): Array<string | Buffer> {
  const parts: Array<string | Buffer> = [];
  let run: Remembered | undefined;
  let end = 0;
  const close = () => {
    if (run) parts.push(run.bytes ? run.bytes.subarray(run.start, end) : run.text.slice(run.start, end));
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
      if (!/[\t\n]/.test(e.file.rel)) parts.push(`r\t${e.file.rel}\t${e.file.hash}\t${e.id}\t${e.derived ?? ''}\t${e.facts ?? '{}'}\n`);
    }
  }
  close();
  return parts;
}

/**
 * The records remembered by the `r` lines from `at` to the end of `text`, by source path; undefined
 * if one is damaged. `bytes`, when given, are the text's, a byte a character (as a world written in
 * ASCII is): a run of lines kept is then written from them, not encoded again (`formatMemory`).
 */
export function parseMemory(text: string, at: number, bytes?: Buffer): Map<string, Remembered> | undefined {
  // Each line ends with a newline: a text that does not was cut short.
  if (at < text.length && !text.endsWith('\n')) return undefined;
  const out = new Map<string, Remembered>();
  // Field by field rather than split: there is a line per record.
  for (; at < text.length;) {
    const nl = text.indexOf('\n', at);
    const t1 = text.indexOf('\t', at + 2);
    const t2 = text.indexOf('\t', t1 + 1);
    const t3 = text.indexOf('\t', t2 + 1);
    const t4 = text.indexOf('\t', t3 + 1);
    if (!text.startsWith('r\t', at) || t1 < 0 || t2 < 0 || t3 < 0 || t4 < 0 || t4 > nl) return undefined;
    const id = Number(text.slice(t2 + 1, t3));
    if (!Number.isInteger(id)) return undefined;
    out.set(text.slice(at + 2, t1), {
      hash: text.slice(t1 + 1, t2),
      id,
      derived: text.slice(t3 + 1, t4),
      facts: text.slice(t4 + 1, nl),
      text,
      bytes,
      start: at,
      end: nl + 1,
    });
    at = nl + 1;
  }
  return out;
}

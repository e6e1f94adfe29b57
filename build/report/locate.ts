// Turns a JSON pointer inside a source file into a line and column. Only the error path pays for
// it: the file is parsed again here, with positions, when a problem needs one.
import type { Document, LineCounter, Node } from 'yaml';
import { createRequire } from 'node:module';
import { LOCATED_DOCUMENTS_KEPT } from '../tuning.ts';

// `yaml` is loaded when first needed: most builds neither meet an anchor nor place a problem.
const require = createRequire(import.meta.url);
let yamlModule: typeof import('yaml') | undefined;
export const yaml = () => (yamlModule ??= require('yaml') as typeof import('yaml'));
import { segmentsOf } from './problems.ts';

export interface Position {
  line: number;
  column: number;
}

const cache = new Map<string, { doc: Document; lines: LineCounter }>();

/**
 * Where `pointer` sits in `text`. With `key` set, the position of the property's key (for an
 * unknown field); a pointer that leads nowhere gives the deepest node that exists.
 */
export function locate(text: string, pointer: string, key = false): Position {
  try {
    return find(text, pointer, key);
  } catch {
    return { line: 1, column: 1 }; // a document too deep or too broken to walk: its start
  }
}

function find(text: string, pointer: string, key: boolean): Position {
  let parsed = cache.get(text);
  if (!parsed) {
    const { LineCounter, parseDocument } = yaml();
    const lines = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: false });
    parsed = { doc, lines };
    if (cache.size > LOCATED_DOCUMENTS_KEPT) cache.clear();
    cache.set(text, parsed);
  }
  const { doc, lines } = parsed;
  let node: unknown = doc.contents;
  let offset = rangeStart(node) ?? 0;
  const segments = segmentsOf(pointer);
  const { isMap, isSeq, isPair, isScalar } = yaml();
  for (const [i, seg] of segments.entries()) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === seg);
      if (!pair) break;
      offset = rangeStart(pair.key) ?? offset;
      if (key && i === segments.length - 1) break;
      node = pair.value;
      offset = rangeStart(node) ?? offset;
    } else if (isSeq(node)) {
      const item = node.items[Number(seg)];
      if (item === undefined) break;
      node = item;
      offset = rangeStart(node) ?? offset;
    } else break;
  }
  const { line, col } = lines.linePos(offset);
  return { line, column: col };
}

/** Line and column of a character offset. */
export function positionAt(text: string, offset: number): Position {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

function rangeStart(node: unknown): number | undefined {
  return (node as Node | null)?.range?.[0];
}

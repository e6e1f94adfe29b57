// Stage 1: find the source files and parse them. A file is one record: data/<kind>/<name>.yaml
// (or .yml, .json).
import fs from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { parseDocument } from 'yaml';
import { positionAt } from './locate.ts';
import { relativeTo } from './paths.ts';
import type { Problems } from './problems.ts';

export interface SourceFile {
  /** Path relative to the project (or the data folder's parent), with '/'. */
  rel: string;
  abs: string;
  /** The folder name: the record kind the file claims to hold. */
  kind: string;
  /** The file name without its extension. */
  stem: string;
  text: string;
  /** The parsed content; undefined when the file could not be read as a record. */
  value: unknown;
}

export const SOURCE_EXTENSIONS = ['yaml', 'yml', 'json'];
/** Past this a file is refused rather than parsed: no record needs it. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

export async function listSourceFiles(dataDir: string): Promise<string[]> {
  const files = await fg(`*/*.{${SOURCE_EXTENSIONS.join(',')}}`, { cwd: dataDir, onlyFiles: true, dot: false });
  return files.sort();
}

export async function loadFiles(dataDir: string, problems: Problems): Promise<SourceFile[]> {
  const relRoot = path.dirname(dataDir);
  const names = await listSourceFiles(dataDir);
  const out: SourceFile[] = [];
  await mapLimit(names, 32, async (name) => {
    const abs = path.join(dataDir, name);
    const rel = relativeTo(relRoot, abs);
    const [kind = '', file = ''] = name.split('/');
    const stem = file.replace(/\.(ya?ml|json)$/, '');
    const stat = await fs.stat(abs);
    if (stat.size > MAX_FILE_BYTES) {
      problems.add({ file: rel, line: 1, column: 1, pointer: '', message: `the file is ${stat.size} bytes, over the limit of ${MAX_FILE_BYTES}` });
      out.push({ rel, abs, kind, stem, text: '', value: undefined });
      return;
    }
    let text = await fs.readFile(abs, 'utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    out.push({ rel, abs, kind, stem, text, value: parse(text, rel, problems) });
  });
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

function parse(text: string, rel: string, problems: Problems): unknown {
  if (text.trim() === '') {
    problems.add({ file: rel, line: 1, column: 1, pointer: '', message: 'the file is empty; it should hold one record' });
    return undefined;
  }
  if (rel.endsWith('.json')) {
    try {
      return JSON.parse(text);
    } catch (err) {
      const message = (err as Error).message;
      const at = /position (\d+)/.exec(message);
      const pos = at ? positionAt(text, Number(at[1])) : { line: 1, column: 1 };
      problems.add({ file: rel, ...pos, pointer: '', message: `invalid JSON: ${message.replace(/ in JSON at position \d+.*$/, '')}` });
      return undefined;
    }
  }
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0) {
    for (const e of doc.errors) {
      const pos = positionAt(text, e.pos[0]);
      problems.add({ file: rel, ...pos, pointer: '', message: `invalid YAML: ${e.message.split('\n')[0]}` });
    }
    return undefined;
  }
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    problems.add({ file: rel, line: 1, column: 1, pointer: '', message: `invalid YAML: ${(err as Error).message}` });
    return undefined;
  }
}

/** Run `fn` over `items` with at most `limit` calls in flight. */
export async function mapLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

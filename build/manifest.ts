// A tree's manifest: what the tree was built from and what it holds. It is text, one entry a line,
// so that it is quick to read and write at any size, and it is read as far as a build needs: a
// rebuild with nothing changed stops after the sources, and the list of files is parsed only when
// a build asks for it.
//
//   {"format":"manifest 2","key":…,"tool":…,"records":{…},"fileCount":…,"previous":…}
//   s <source path> <size> <modification time> <hash>     one line per source file
//   d <file path> <hash, or nothing>                      how the other tree differs (see `diff`)
//   f <file path> <hash>                                  one line per file of the tree
//
// Fields are separated by tabs. A path holding a tab, a newline or a leading '"' is written as a
// JSON string.
import fs from 'node:fs/promises';
import type { SourceStamp } from './load.ts';

const FORMAT = 'manifest 2';

export interface ManifestHeader {
  /** What the build's inputs were: data, schemas, code and options. Same key, same tree. */
  key: string;
  /** The tool's own fingerprint (schemas and code) when the tree was built. */
  tool: string;
  /** Records published, by kind. */
  records: Record<string, number>;
  /** How many files the tree holds. */
  fileCount: number;
  /** The key of the other tree when this one was built ('' when there was none): `diff` is against it. */
  previous: string;
}

export interface Manifest extends ManifestHeader {
  /** The source files the tree was built from: size, modification time and hash of each. */
  sources: Map<string, SourceStamp>;
  /**
   * The files by which the other tree, as it was when this one was built (key `previous`), differs
   * from this one: its hash of each, or '' where it lacks the file. Every other file is the same.
   */
  diff: Map<string, string>;
  /** Every file of the tree, path → hash, in the order they were written; undefined if the list is damaged. */
  files(): Map<string, string> | undefined;
}

const encode = (rel: string) => (/[\t\n\r]/.test(rel) || rel.startsWith('"') ? JSON.stringify(rel) : rel);
const decode = (field: string) => (field.startsWith('"') ? (JSON.parse(field) as string) : field);

export function formatManifest(
  m: Omit<ManifestHeader, 'fileCount'> & {
    sources: Iterable<[string, SourceStamp]>;
    diff: Map<string, string>;
    files: Iterable<[string, string]>;
  },
): string {
  const { key, tool, records, previous } = m;
  const lines = [''];
  for (const [rel, [size, mtime, hash]] of m.sources) lines.push(`s\t${encode(rel)}\t${size}\t${mtime}\t${hash}`);
  for (const [rel, hash] of m.diff) lines.push(`d\t${encode(rel)}\t${hash}`);
  const first = lines.length;
  for (const [rel, hash] of m.files) lines.push(`f\t${encode(rel)}\t${hash}`);
  lines[0] = JSON.stringify({ format: FORMAT, key, tool, records, fileCount: lines.length - first, previous });
  return lines.join('\n') + '\n';
}

/** The manifest in `text`, or undefined if it is not one this build can read. */
export function parseManifest(text: string): Manifest | undefined {
  const end = text.indexOf('\n');
  const header = parseHeader(end < 0 ? text : text.slice(0, end));
  if (!header || end < 0) return undefined;
  const sources = new Map<string, SourceStamp>();
  const diff = new Map<string, string>();
  let at = end + 1;
  // Field by field rather than split: there is a line per source.
  const tab = (from: number, nl: number) => {
    const i = text.indexOf('\t', from);
    return i < 0 || i > nl ? -1 : i;
  };
  for (; at < text.length && text.charCodeAt(at) !== 0x66 /* f */;) {
    const nl = text.indexOf('\n', at);
    const t1 = nl < 0 ? -1 : tab(at + 2, nl);
    if (t1 < 0 || text.charCodeAt(at + 1) !== 9 /* tab */) return undefined;
    try {
      if (text.charCodeAt(at) === 0x73 /* s */) {
        const t2 = tab(t1 + 1, nl);
        const t3 = t2 < 0 ? -1 : tab(t2 + 1, nl);
        if (t3 < 0) return undefined;
        sources.set(decode(text.slice(at + 2, t1)), [
          Number(text.slice(t1 + 1, t2)),
          Number(text.slice(t2 + 1, t3)),
          text.slice(t3 + 1, nl),
        ]);
      } else if (text.charCodeAt(at) === 0x64 /* d */) diff.set(decode(text.slice(at + 2, t1)), text.slice(t1 + 1, nl));
      else return undefined;
    } catch {
      return undefined; // a path that is not a JSON string after all
    }
    at = nl + 1;
  }
  const rest = text.slice(at);
  let files: Map<string, string> | undefined | null;
  return {
    ...header,
    sources,
    diff,
    files: () => (files === undefined ? (files = parseFiles(rest) ?? null) : files) ?? undefined,
  };
}

function parseFiles(text: string): Map<string, string> | undefined {
  const files = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const tab = line.lastIndexOf('\t');
    if (!line.startsWith('f\t') || tab < 2) return undefined;
    try {
      files.set(decode(line.slice(2, tab)), line.slice(tab + 1));
    } catch {
      return undefined;
    }
  }
  return files;
}

function parseHeader(line: string): ManifestHeader | undefined {
  try {
    const h = JSON.parse(line);
    return h?.format === FORMAT &&
      typeof h.key === 'string' &&
      typeof h.tool === 'string' &&
      typeof h.previous === 'string' &&
      Number.isInteger(h.fileCount) &&
      h.records &&
      typeof h.records === 'object'
      ? { key: h.key, tool: h.tool, records: h.records, fileCount: h.fileCount, previous: h.previous }
      : undefined;
  } catch {
    return undefined;
  }
}

export async function readManifest(file: string): Promise<Manifest | undefined> {
  const text = await fs.readFile(file, 'utf8').catch(() => undefined);
  return text === undefined ? undefined : parseManifest(text);
}

/** Only the first line of a manifest: enough to know which build made the tree. */
export async function readManifestHeader(file: string): Promise<ManifestHeader | undefined> {
  const handle = await fs.open(file).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const chunk = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, 0);
    const text = chunk.toString('utf8', 0, bytesRead);
    const end = text.indexOf('\n');
    return end < 0 ? undefined : parseHeader(text.slice(0, end));
  } finally {
    await handle.close();
  }
}

// Problems are collected by every stage and reported once, grouped by file and counted.
export interface Problem {
  /** Source file, relative to the data folder's parent, with '/'. */
  file: string;
  line?: number;
  column?: number;
  kind?: string;
  /** The record's id or name, as far as it is known. */
  record?: string;
  /** JSON pointer of the offending value inside the record. */
  pointer: string;
  message: string;
  hint?: string;
}

/** Where a problem with a file as a whole is placed: its start. */
export const fileStart = (file: string) => ({ file, line: 1, column: 1, pointer: '' });

export class Problems {
  readonly list: Problem[] = [];
  add(problem: Problem): void {
    this.list.push(problem);
  }
  get count(): number {
    return this.list.length;
  }
}

/** Thrown by a build that found problems in its input; carries them all. */
export class BuildFailed extends Error {
  constructor(readonly problems: Problem[]) {
    super(`${problems.length} problem${problems.length === 1 ? '' : 's'} in the data`);
  }
}

export function sortProblems(problems: Problem[]): Problem[] {
  return [...problems].sort(
    (a, b) =>
      a.file.localeCompare(b.file) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0) ||
      a.pointer.localeCompare(b.pointer) ||
      a.message.localeCompare(b.message),
  );
}

/**
 * Control characters (C0, DEL, C1) and the bidirectional overrides and isolates, which a terminal or
 * a log viewer obeys rather than shows: text from the data holding them could retitle a terminal,
 * recolour or hide lines of a log, or show its words in another order than they are read.
 */
// eslint-disable-next-line no-control-regex
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every unshowable character written as an escape (`\x1b`, `\u202e`), to be seen
 * rather than obeyed. With `breaks`, CR and LF are left for the caller to encode (GitHub's commands).
 */
export function visible(text: string, { breaks = false } = {}): string {
  return text.replace(UNSHOWABLE, (char) => {
    if (breaks && (char === '\n' || char === '\r')) return char;
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * A value as JSON for the terminal: JSON.stringify escapes C0 controls but leaves DEL, C1 and the
 * bidirectional marks as they are; they are written as \u escapes, which read back the same.
 */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Human-readable report: one block per file, one line per problem, then a count; text from the data is made visible. */
export function formatProblems(problems: Problem[]): string {
  const sorted = sortProblems(problems);
  const lines: string[] = [];
  let current: string | undefined;
  const files = new Set<string>();
  for (const p of sorted) {
    const file = visible(p.file);
    if (p.file !== current) {
      if (current !== undefined) lines.push('');
      lines.push(file);
      current = p.file;
      files.add(p.file);
    }
    const where = `${file}:${p.line ?? 1}:${p.column ?? 1}`;
    const who = p.kind ? ` ${visible(p.kind)} ${visible(p.record ?? '?')}` : '';
    const at = p.pointer ? ` at ${visible(p.pointer)}` : '';
    lines.push(`  ${where}${who}${at}: ${visible(p.message)}`);
    if (p.hint) lines.push(`    hint: ${visible(p.hint)}`);
  }
  lines.push('');
  const n = sorted.length;
  lines.push(`${n} problem${n === 1 ? '' : 's'} in ${files.size} file${files.size === 1 ? '' : 's'}`);
  return lines.join('\n');
}

export function pointerOf(segments: readonly (string | number)[]): string {
  return segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

export function segmentsOf(pointer: string): string[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

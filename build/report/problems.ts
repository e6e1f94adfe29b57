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

/** Human-readable report: one block per file, one line per problem, then a count. */
export function formatProblems(problems: Problem[]): string {
  const sorted = sortProblems(problems);
  const lines: string[] = [];
  let current: string | undefined;
  const files = new Set<string>();
  for (const p of sorted) {
    if (p.file !== current) {
      if (current !== undefined) lines.push('');
      lines.push(p.file);
      current = p.file;
      files.add(p.file);
    }
    const where = `${p.file}:${p.line ?? 1}:${p.column ?? 1}`;
    const who = p.kind ? ` ${p.kind} ${p.record ?? '?'}` : '';
    const at = p.pointer ? ` at ${p.pointer}` : '';
    lines.push(`  ${where}${who}${at}: ${p.message}`);
    if (p.hint) lines.push(`    hint: ${p.hint}`);
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

// `--report github`: every problem as a GitHub Actions workflow command, so a pull request shows it
// as an annotation on the offending line of the changed file.
// Escaping follows the Actions toolkit (`@actions/core` command.ts): in a property value `%`, CR,
// LF, `:` and `,` are percent-encoded; in the message only `%`, CR and LF. Before that, text from
// the data has its other control characters made visible (problems.ts, `visible`): a name holding
// an escape sequence must not retitle a terminal or recolour and hide lines of the log.
import path from 'node:path';
import { sortProblems, visible, type Problem } from './problems.ts';

/** Line breaks in data are percent-encoded, as the runner reads them back: shown as breaks in the annotation. */
const KEEP_BREAKS = { breaks: true };

/**
 * One `::error …::message` line per problem, in file, line and column order. `root` is the folder of
 * the data's parent relative to the repository root, when the project is not at the root.
 */
export function formatGithub(problems: Problem[], { root }: { root?: string } = {}): string {
  return sortProblems(problems)
    .map((p) => {
      const file = visible(root ? path.posix.join(root.split(path.sep).join('/'), p.file) : p.file, KEEP_BREAKS);
      const props: [string, string | number | undefined][] = [
        ['file', file],
        ['line', p.line],
        ['col', p.column],
        ['title', title(p)],
      ];
      const list = props
        .filter(([, v]) => v !== undefined && v !== '')
        .map(([k, v]) => `${k}=${escapeProperty(String(v))}`)
        .join(',');
      return `::error ${list}::${escapeData(visible(p.hint ? `${p.message}\nhint: ${p.hint}` : p.message, KEEP_BREAKS))}`;
    })
    .join('\n');
}

function title(p: Problem): string {
  const who = [p.kind, p.record].filter(Boolean).join(' ');
  const at = p.pointer ? `at ${p.pointer}` : '';
  return visible([who, at].filter(Boolean).join(' '), KEEP_BREAKS) || 'problem in the file';
}

export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

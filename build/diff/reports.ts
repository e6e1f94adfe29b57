// The diff of two APIs as a reader sees it: text for a terminal, JSON for tools, Markdown for a
// pull request. Breaking changes come first in each; the text and Markdown are capped so that a
// huge change stays readable (the JSON holds everything).
import { jsonText, visible } from '../report/problems.ts';
import { isBreaking, type ApiDiff, type FieldChange, type KindDiff, type RecordChange } from './compare.ts';

/** How many changed fields are shown per record, and how long a value is before it is shortened. */
const FIELDS_SHOWN = 3;
const VALUE_CHARS = 40;
/** Characters kept before the first difference of two long values. */
const DIFFERENCE_CONTEXT = 12;
/** How many lines a list gets in the text and Markdown before "… and N more". */
const LINES_SHOWN = { text: 20, markdown: 25 };
/** A pull-request comment holds 65,536 characters: the Markdown stops adding details well before. */
const MARKDOWN_BUDGET = 60_000;

/** What the base was: a revision as given with its commit, or a folder. */
export interface Compared {
  base: string;
}

export function jsonReport(diff: ApiDiff, compared: Compared): string {
  const summary = diff.kinds.map((k) => ({ kind: k.kind, ...counts(diff, k) }));
  const breaking = { count: diff.breaking.urls.length + diff.breaking.fields.length, ...diff.breaking };
  return jsonText({ ...compared, baseUrl: diff.baseUrl, breaking, summary, kinds: diff.kinds });
}

export function textReport(diff: ApiDiff, compared: Compared): string {
  const lines = [`API changes against ${plain(compared.base)}`, ''];
  if (diff.kinds.length === 0 && !isBreaking(diff)) return [...lines, 'no change to the API'].join('\n');
  if (isBreaking(diff)) lines.push(`BREAKING: ${breakingSummary(diff)}`, ...breakingLines(diff, LINES_SHOWN.text).map((l) => `  ${l}`), '');
  else lines.push('nothing breaking', '');
  lines.push(...textTable(diff), '');
  for (const k of diff.kinds) lines.push(k.kind, ...kindLines(k, LINES_SHOWN.text, plain).map((l) => `  ${l}`), '');
  return lines.join('\n').trimEnd();
}

export function markdownReport(diff: ApiDiff, compared: Compared): string {
  const head = [`### API changes against ${markdown(compared.base)}`, ''];
  if (diff.kinds.length === 0 && !isBreaking(diff)) return [...head, 'No change to the published API.'].join('\n');
  const parts = [head.join('\n'), breakingMarkdown(diff), markdownTable(diff)];
  let size = parts.join('\n').length;
  const left: string[] = [];
  for (const k of diff.kinds) {
    const block = kindDetails(k);
    if (size + block.length > MARKDOWN_BUDGET) {
      left.push(k.kind);
      continue;
    }
    parts.push(block);
    size += block.length + 1;
  }
  if (left.length) parts.push(`Details left out to keep this short: ${left.join(', ')}. \`npm run diff\` lists them.`);
  return parts.join('\n').trimEnd();
}

/** Per kind: records added, removed, renamed, changed, and the breaking changes among them. */
function counts(diff: ApiDiff, k: KindDiff) {
  const breaking =
    diff.breaking.urls.filter((u) => u.kind === k.kind).length + diff.breaking.fields.filter((f) => f.kind === k.kind).length;
  return { added: k.added.length, removed: k.removed.length, renamed: k.renamed.length, changed: k.changed.length, breaking };
}

const LISTS = ['added', 'removed', 'renamed', 'changed'] as const;
const COLUMNS = [...LISTS, 'breaking'] as const;

/** A kind's counts in the tables' column order. */
function cells(diff: ApiDiff, k: KindDiff): number[] {
  const n = counts(diff, k);
  return COLUMNS.map((c) => n[c]);
}

function textTable(diff: ApiDiff): string[] {
  const width = Math.max(4, ...diff.kinds.map((k) => k.kind.length));
  const row = (label: string, values: (string | number)[]) => `${label.padEnd(width)}${values.map((c) => String(c).padStart(10)).join('')}`;
  return [row('kind', [...COLUMNS]), ...diff.kinds.map((k) => row(k.kind, cells(diff, k)))];
}

function markdownTable(diff: ApiDiff): string {
  const rows = diff.kinds.map((k) => `| ${k.kind} | ${cells(diff, k).join(' | ')} |`);
  return [`| kind | ${COLUMNS.join(' | ')} |`, `| --- |${' ---: |'.repeat(COLUMNS.length)}`, ...rows, ''].join('\n');
}

function breakingSummary(diff: ApiDiff): string {
  const { urls, fields } = diff.breaking;
  const parts = [];
  if (urls.length) parts.push(`${urls.length} ${urls.length === 1 ? 'url no longer answers' : 'urls no longer answer'}`);
  if (fields.length) parts.push(`${fields.length} ${fields.length === 1 ? 'field' : 'fields'} removed from records`);
  return parts.join(', ');
}

/** The breaking changes, one a line: the urls gone, then the fields removed. */
function breakingLines(diff: ApiDiff, shown: number, style: Style = plain): string[] {
  const urls = diff.breaking.urls.map((u) => `${style(u.path)} no longer answers: ${u.why}`);
  const fields = diff.breaking.fields.map((f) => `${f.kind} ${f.name} (${f.id}) lost ${style(f.pointer)}`);
  return [...capped(urls, shown), ...capped(fields, shown)];
}

function breakingMarkdown(diff: ApiDiff): string {
  if (!isBreaking(diff)) return 'Nothing breaking: every url that answered still does, and no record lost a field.\n';
  const lines = breakingLines(diff, LINES_SHOWN.markdown, markdown).map((l) => `- ${l}`);
  return [`**Breaking: ${breakingSummary(diff)}.**`, '', ...lines, ''].join('\n');
}

function kindDetails(k: KindDiff): string {
  const summary = `${k.kind}: ${LISTS.filter((c) => k[c].length > 0)
    .map((c) => `${k[c].length} ${c}`)
    .join(', ')}`;
  const lines = kindLines(k, LINES_SHOWN.markdown, markdown).map((l) => `- ${l}`);
  return ['<details>', `<summary>${summary}</summary>`, '', ...lines, '', '</details>', ''].join('\n');
}

/**
 * How a value is set apart in each format: as it is in text, a code span in Markdown; in both, its
 * unshowable characters written as escapes. A field's name is a record's key, any text an author
 * wrote: a line break in it would end the code span and start a line of the report (a workflow
 * command in CI's log, Markdown of the author's on the pull request), an escape sequence work the terminal.
 */
type Style = (s: string) => string;
const plain: Style = (s) => visible(s);
const markdown: Style = (s) => code(visible(s));

function kindLines(k: KindDiff, shown: number, style: Style): string[] {
  return [
    k.added.map((r) => `added ${r.name} (${r.id})`),
    k.removed.map((r) => `removed ${r.name} (${r.id})`),
    k.renamed.map((r) => `renamed ${r.from} → ${r.to} (${r.id})`),
    k.changed.map((r) => changedLine(r, style)),
  ].flatMap((lines) => capped(lines, shown));
}

/** A changed record and its first few changed fields. */
function changedLine(r: RecordChange, style: Style): string {
  const fields = r.changes.slice(0, FIELDS_SHOWN).map((c) => fieldText(c, style));
  const more = r.changes.length > FIELDS_SHOWN ? `; ${r.changes.length - FIELDS_SHOWN} more` : '';
  return `changed ${r.name} (${r.id}): ${fields.join('; ')}${more}`;
}

function fieldText(c: FieldChange, style: Style): string {
  const [before, after] = shortened(c);
  const side = (text: string | undefined) => (text === undefined ? '(none)' : style(text));
  return `${style(c.pointer)} ${side(before)} → ${side(after)}`;
}

/** Both sides as JSON cut to a readable length, from a little before where they first differ (two urls differ at the end). */
function shortened(c: FieldChange): [string | undefined, string | undefined] {
  const json = (has: boolean, v: unknown) => (has ? (JSON.stringify(v) ?? String(v)) : undefined);
  const [before, after] = [json('before' in c, c.before), json('after' in c, c.after)];
  let from = 0;
  if (before !== undefined && after !== undefined && Math.max(before.length, after.length) > VALUE_CHARS) {
    while (from < before.length && before[from] === after[from]) from++;
    from = Math.max(0, from - DIFFERENCE_CONTEXT);
  }
  const cut = (text: string | undefined) => text && shorten(from > 0 ? `…${text.slice(from)}` : text);
  return [cut(before), cut(after)];
}

/** Text cut to a readable length. */
function shorten(text: string): string {
  return text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS - 1)}…` : text;
}

function capped(lines: string[], shown: number): string[] {
  return lines.length > shown ? [...lines.slice(0, shown), `… and ${lines.length - shown} more`] : lines;
}

/** A Markdown code span that holds any text: fenced by more backticks than it has in a row. */
function code(s: string): string {
  const fence = '`'.repeat(Math.max(0, ...(s.match(/`+/g) ?? []).map((m) => m.length)) + 1);
  return fence.length > 1 || s.startsWith(' ') ? `${fence} ${s} ${fence}` : `${fence}${s}${fence}`;
}

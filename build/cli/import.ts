// `npm run import -- --from DIR [--out DIR]`: a PokeAPI static API into a data folder of records.
import fs from 'node:fs';
import path from 'node:path';
import { importWorld, type ImportResult } from '../import/import.ts';
import { CATEGORIES } from '../import/losses.ts';
import { ImportRefused } from '../import/kinds.ts';
import type { Progress } from '../import/read.ts';
import { defaultDataDir } from '../paths.ts';
import { commandOptions, terminalBar } from './common.ts';

const HELP = `Usage: npm run import -- --from DIR [--out DIR]

Turns a PokeAPI static API (api-data's data/api/v2, or any folder of <kind>/<id>/index.json) into a
data folder of this project's source format: one YAML file per record, at <out>/<kind>/<name>.yaml.
What the source format cannot hold as PokeAPI states it (folded, substituted or dropped) and where
PokeAPI's two statements of a derived fact disagree are listed in <out>.import-report.json.

Options:
  --from DIR   the PokeAPI folder (holding type/, pokemon-form/, …)
  --out DIR    the data folder to make, new or empty (default: data/)
  -h, --help   show this help

Exit codes: 0 imported, 2 wrong usage (no --from, an --out that holds files) or unreadable source.`;

/** A bar per stage on a terminal; one plain line per stage elsewhere (CI, pipes). */
function progressReporter(): Progress & { stop(): void } {
  const bar = terminalBar('files');
  if (!bar) {
    return { start: (stage, total) => console.error(`  ${stage.padEnd(6)} ${total} files`), tick: () => {}, stop: () => {} };
  }
  let running = false;
  return {
    start: (stage, total) => {
      if (running) bar.stop();
      bar.start(total, 0, { stage: stage.padEnd(5) });
      running = true;
    },
    tick: () => bar.increment(),
    stop: () => running && bar.stop(),
  };
}

const count = (n: number) => n.toLocaleString('en-US');

/** The closing summary: records per kind, skipped kinds, losses by category, disagreements by fact, time. */
export function summary(result: ImportResult, report: string): string {
  const rows = (entries: Array<[string, number]>) => entries.map(([label, n]) => `  ${label.padEnd(34)} ${count(n).padStart(7)}`);
  /** The weights of `list`'s items summed by key, in the keys' order. */
  const byKey = <T>(list: T[], keyAndWeight: (item: T) => [string, number]) => {
    const out = new Map<string, number>();
    for (const [key, weight] of list.map(keyAndWeight)) out.set(key, (out.get(key) ?? 0) + weight);
    return [...out].sort(([a], [b]) => (a < b ? -1 : 1));
  };
  const total = Object.values(result.records).reduce((a, b) => a + b, 0);
  const lines = ['records written', ...rows(Object.entries(result.records)), ...rows([['all', total]])];
  const skipped = Object.entries(result.skipped);
  if (skipped.length) lines.push('', 'kinds not published, skipped', ...rows(skipped));
  if (result.losses.length) {
    lines.push('', 'folded, substituted or dropped (times)', ...rows(byKey(result.losses, (l) => [`${l.action} ${l.category}`, l.count])));
  }
  lines.push('', result.disagreements.length ? 'PokeAPI disagrees with itself' : 'PokeAPI agrees with itself on every derived fact');
  lines.push(...rows(byKey(result.disagreements, (d) => [d.fact.replace(/ \(generation-[a-z]+\)/, ''), 1])));
  lines.push('', `${count(result.files)} files in ${(result.ms / 1000).toFixed(2)}s; the report: ${report}`);
  return lines.join('\n');
}

/** The report file: the summary's figures with every record each loss and disagreement touched. */
function reportBody(result: ImportResult, from: string, out: string): string {
  const { records, skipped, losses, disagreements, files } = result;
  const categories = Object.fromEntries(Object.entries(CATEGORIES).filter(([c]) => losses.some((l) => l.category === c)));
  return `${JSON.stringify({ from, out, records, files, skipped, categories, losses, disagreements }, null, 2)}\n`;
}

export async function main(argv: string[]): Promise<number> {
  const values = commandOptions(argv, { from: { type: 'string' }, out: { type: 'string' } }, HELP);
  if (typeof values === 'number') return values;
  if (!values.from) {
    console.error('--from is needed: a PokeAPI folder such as api-data/data/api/v2');
    return 2;
  }
  const from = path.resolve(values.from);
  const out = values.out ? path.resolve(values.out) : defaultDataDir;
  const report = `${out}.import-report.json`;
  const progress = progressReporter();
  try {
    const result = importWorld({ from, out, report, progress });
    progress.stop();
    fs.writeFileSync(report, reportBody(result, from, out));
    const shown = path.relative(process.cwd(), report);
    console.log(summary(result, shown.startsWith('..') ? report : shown));
    return 0;
  } catch (err) {
    progress.stop();
    if (!(err instanceof ImportRefused)) throw err;
    console.error(err.message);
    return 2;
  }
}

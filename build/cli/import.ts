// `npm run import -- --from DIR [--out DIR]`: a PokeAPI static API into a data folder of records.
import path from 'node:path';
import { folderToRead, folderToWrite, realish, UsageError, within } from '../guard.mjs';
import { importWorld, type ImportResult } from '../import/import.ts';
import type { Progress } from '../import/read.ts';
import { checkOut, NotWritten, unmake } from '../import/write.ts';
import { defaultDataDir, projectRoot } from '../paths.ts';
import { visible } from '../report/problems.ts';
import { commandOptions, onStop, stopping, terminalBar, untilStopped } from './common.ts';

const HELP = `Usage: npm run import -- --from DIR [--out DIR]

Turns a PokeAPI static API (api-data's data/api/v2, or any folder of <kind>/<id>/index.json) into a
data folder of this project's source format: one YAML file per record, at <out>/<kind>/<name>.yaml.
What the source format cannot hold as PokeAPI states it (folded, substituted or dropped) and where
PokeAPI's two statements of a derived fact disagree are listed in <out>.import-report.json, and so
is every record not imported, with why: a file that is not a regular file inside --from or is over
the build's size limit, a record that is not JSON of PokeAPI's shape, a name that cannot name a
file, a record the build would refuse. The rest is imported.

Options:
  --from DIR   the PokeAPI folder (holding type/, pokemon-form/, …)
  --out DIR    the data folder to make, new or empty (default: data/, which holds the shipped world
               until it is moved away)
  -h, --help   show this help

Exit codes: 0 imported; 1 imported but for the records refused (listed); 2 wrong usage (no --from,
an --out that holds files, is inside --from or the data folder) or no records; 3 --out not writable;
130 or 143 stopped by Ctrl-C or SIGTERM (nothing is left written).`;

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
  // A label may come from the source (a folder's name, a generation's in a fact): made visible.
  const rows = (entries: Array<[string, number]>) => entries.map(([label, n]) => `  ${visible(label).padEnd(34)} ${count(n).padStart(7)}`);
  /** The weights of `list`'s items summed by key, in the keys' order. */
  const byKey = <T>(list: T[], keyAndWeight: (item: T) => [string, number]) => {
    const out = new Map<string, number>();
    for (const [key, weight] of list.map(keyAndWeight)) out.set(key, (out.get(key) ?? 0) + weight);
    return [...out].sort(([a], [b]) => (a < b ? -1 : 1));
  };
  const total = Object.values(result.records).reduce((a, b) => a + b, 0);
  const lines = ['records written', ...rows(Object.entries(result.records)), ...rows([['all', total]])];
  if (result.refused.length) lines.push('', `not imported (${count(result.refused.length)}), each in the report`, ...refusals(result));
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

/** The first refusals, one a line, as the report has them; the text from the source made visible. */
function refusals({ refused }: ImportResult): string[] {
  const shown = refused.slice(0, REFUSALS_SHOWN).map(({ file, why }) => `  ${visible(file)}: ${visible(why)}`);
  return refused.length > REFUSALS_SHOWN ? [...shown, `  … and ${count(refused.length - REFUSALS_SHOWN)} more`] : shown;
}

/** Refusals listed in the summary: enough to see what went wrong; the report has all. */
const REFUSALS_SHOWN = 20;

/**
 * The folder the import makes, refused before anything is read: not under a file or in /proc, not
 * `--from` nor in or around it, not the project or a folder holding it, and not inside the data
 * folder (the data folder itself, new or empty, is where a project starts from PokeAPI's data).
 */
function outFolder(out: string, from: string): string {
  const abs = folderToWrite('--out', out, { '--from': from });
  const [real, project, data] = [abs, projectRoot, defaultDataDir].map(realish);
  if (within(project!, real!))
    throw new UsageError(`--out ${out}: ${real === project ? 'is' : 'holds'} the project; choose another folder`);
  if (real !== data && within(real!, data!)) throw new UsageError(`--out ${out}: is inside the data folder; choose another folder`);
  return abs;
}

export async function main(argv: string[]): Promise<number> {
  const values = commandOptions(argv, { from: { type: 'string' }, out: { type: 'string' } }, HELP);
  if (typeof values === 'number') return values;
  if (!values.from) {
    console.error('--from is needed: a PokeAPI folder such as api-data/data/api/v2');
    return 2;
  }
  let from: string, out: string;
  try {
    from = folderToRead('--from', values.from);
    out = outFolder(values.out ?? defaultDataDir, from);
    checkOut(out, `${out}.import-report.json`);
  } catch (err) {
    // A path the system will not look at (a name too long, a folder without rights) is refused as well.
    if (!(err instanceof UsageError) && !(err as NodeJS.ErrnoException).code) throw err;
    console.error(err instanceof UsageError ? err.message : `the import cannot start: ${(err as Error).message}`);
    return 2;
  }
  const report = `${out}.import-report.json`;
  const progress = progressReporter();
  // Stopped by a signal, the import removes the folder it writes into, its own (checkOut found
  // none of its name), and the folders above it made, before the process ends; the report is
  // written only after every record.
  const forget = onStop(() => {
    progress.stop();
    unmake(out);
    console.error('the import was stopped: nothing was written');
  });
  try {
    const result = await importWorld({ from, out, report, progress });
    progress.stop();
    const shown = path.relative(process.cwd(), report);
    console.log(summary(result, shown.startsWith('..') ? report : shown));
    if (result.refused.length === 0) return 0;
    console.error(`${count(result.refused.length)} of the source's records or entries were not imported: each is in ${report}, with why`);
    return 1;
  } catch (err) {
    progress.stop();
    if (stopping()) return await untilStopped();
    if (err instanceof UsageError || err instanceof NotWritten) {
      console.error(err.message);
      return err instanceof NotWritten ? 3 : 2;
    }
    throw err;
  } finally {
    forget();
  }
}

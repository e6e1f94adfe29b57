// `npm run diff -- --base REV|DIR [options]`: what the working tree's records do to the published
// API, against a revision or a built API folder; breaking changes first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../config.ts';
import { folderToRead } from '../guard.mjs';
import { defaultDataDir } from '../paths.ts';
import { diffFolders, isBreaking, NotAnApi } from '../diff/compare.ts';
import { jsonReport, markdownReport, textReport } from '../diff/reports.ts';
import { commandOptions, onStop, stopping, untilStopped } from './common.ts';
import { baseSide, SideFailed, workingSide } from '../diff/sides.ts';

const HELP = `Usage: npm run diff -- --base REV|DIR [options]

Builds the API at a base and from the working tree, and reports what changed, per kind: records
added, removed, renamed (same id, new name) and changed, with their first changed fields; and
first, the breaking changes: urls that no longer answer, and fields removed from records.

Options:
  --base REV|DIR       a git revision (main, HEAD~1, a commit), built by its own build code,
                       or a folder holding a built API (npm run build -- --plain --out DIR)
  --data DIR           the working tree's records (default: data/); a revision's are the
                       same folder at that revision
  --report FORMAT      text (default), json, or markdown (for a pull request)
  --fail-on-breaking   exit with 1 when a change is breaking
  -h, --help           show this help

Environment:
  BASE_URL             the address both sides are built with (default http://localhost:3000);
                       a folder as base gives its own

Exit codes: 0 compared, 1 breaking changes with --fail-on-breaking, 2 wrong usage (an unknown
revision, a missing folder, a folder that is not a whole build) or a side that does not build,
130/143 stopped by Ctrl-C/SIGTERM (the base's build, checkout and temp folder removed).`;

const REPORTS = { text: textReport, json: jsonReport, markdown: markdownReport };

interface Options {
  base: string;
  dataDir: string;
  report: keyof typeof REPORTS;
  failOnBreaking: boolean;
}

const OPTIONS = {
  base: { type: 'string' },
  data: { type: 'string' },
  report: { type: 'string', default: 'text' },
  'fail-on-breaking': { type: 'boolean', default: false },
} as const;

function parseOptions(values: { base?: string; data?: string; report: string; 'fail-on-breaking': boolean }): Options {
  if (!values.base) throw new UsageError('--base is needed: a git revision or a built API folder');
  if (!(values.report in REPORTS)) throw new UsageError(`--report must be text, json or markdown, got "${values.report}"`);
  const dataDir = values.data ? folderToRead('--data', values.data) : defaultDataDir;
  return { base: values.base, dataDir, report: values.report as Options['report'], failOnBreaking: values['fail-on-breaking'] };
}

/** Builds both sides into `work` (the base first, as its address decides the working tree's) and compares them. */
async function compare(options: Options, work: string) {
  const base = await baseSide(options.base, { work, dataDir: options.dataDir });
  console.error('building the working tree …');
  const after = await workingSide({ dataDir: options.dataDir, out: path.join(work, 'after'), baseUrl: base.baseUrl });
  try {
    return { diff: diffFolders(base.dir, after.dir), compared: { base: base.label } };
  } catch (err) {
    // A base folder broken past its index (a list or a record cut short) is found as the diff reads it.
    if (err instanceof NotAnApi && err.dir === base.dir) throw new UsageError(`--base ${options.base}: not a whole build: ${err.detail}`);
    throw err;
  }
}

export async function main(argv: string[]): Promise<number> {
  const values = commandOptions(argv, OPTIONS, HELP);
  if (typeof values === 'number') return values;
  let options;
  try {
    options = parseOptions(values);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`${err.message}\n${HELP.split('\n')[0]}`);
    return 2;
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'crs-diff-'));
  const cleanUp = () => fs.rmSync(work, { recursive: true, force: true, maxRetries: 5 });
  // Stopped by a signal, the diff ends the base's build, removes its checkout, then this folder.
  const forget = onStop(cleanUp);
  try {
    const { diff, compared } = await compare(options, work);
    console.log(REPORTS[options.report](diff, compared));
    return options.failOnBreaking && isBreaking(diff) ? 1 : 0;
  } catch (err) {
    // What fails as a signal stops the diff is the stop's doing: it ends the process once it has cleaned up.
    if (stopping()) return await untilStopped();
    if (!(err instanceof UsageError || err instanceof SideFailed)) throw err;
    console.error(err.message);
    return 2;
  } finally {
    forget();
    if (!stopping()) cleanUp();
  }
}

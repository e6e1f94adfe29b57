// `npm run build [-- options]`: builds the API, prints a summary or every problem in the data.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type BuildResult, type Progress } from '../pipeline/build.ts';
import { baseUrlFromEnv, defaults, shown, UsageError } from '../config.ts';
import { OutputFailed } from '../output/failure.ts';
import { Busy } from '../output/trees.ts';
import { defaultDataDir } from '../paths.ts';
import { BuildFailed, formatProblems, jsonText, sortProblems } from '../report/problems.ts';
import { formatGithub } from '../report/github.ts';
import { commandOptions, onStop, terminalBar } from './common.ts';
import { editorSchemasFor } from '../schemas/editor-schemas.ts';

const HELP = `Usage: npm run build -- [options]

Builds the static API from the source records.

Options:
  --data DIR       source records (default: data/)
  --out DIR        output folder (default: dist/)
  --check          validate the data and write nothing
  --pretty         indent the published JSON
  --plain          write the output as a plain folder, not a link to the latest of two
                   trees (for a host to publish from a fresh checkout; rebuilds start over)
  --github-pages   --plain, with each folder's index.json copied to index.html, the only
                   file GitHub Pages answers a folder with (hosts/README.md)
  --report FORMAT  how problems are reported: text (default), json, or github
                   (GitHub workflow commands: annotations on the offending lines)
  -h, --help       show this help

Environment:
  BASE_URL         the address the API is served from (default http://localhost:3000)

Exit codes: 0 built (or checked), 1 problems in the data, 2 wrong usage (or an internal
error), 3 the output could not be written, 4 another build is writing the same output,
130/143 stopped by Ctrl-C/SIGTERM.`;

/** The closing table: records per kind, then what the build did, in how long. `out` names the output folder. */
export function summary(result: BuildResult, check = false, out = 'dist'): string {
  const kinds = Object.entries(result.records);
  const total = kinds.reduce((s, [, n]) => s + n, 0);
  const width = Math.max(...kinds.map(([k]) => k.length), 'records'.length);
  const row = (label: string, value: string | number) => `  ${label.padEnd(width)}  ${String(value).padStart(9)}`;
  const seconds = `${(result.ms / 1000).toFixed(2)}s`;
  const lines = [row('kind', 'records'), ...kinds.map(([k, n]) => row(k, n)), row('all', total), ''];
  const cached = result.cached ? ` (${result.cached} as checked before, from the cache)` : '';
  if (check) lines.push(`checked ${total} records in ${seconds}: no problems${cached}`);
  else if (result.files === 0) lines.push(`nothing changed: ${out}/ is up to date (${result.unchanged} files) in ${seconds}`);
  else {
    lines.push(
      row('files', result.files),
      row('KiB', Math.round(result.bytes / 1024)),
      row('written', result.written),
      row('linked', result.linked),
      row('unchanged', result.unchanged),
      row('removed', result.removed),
      row('files read', result.parsed),
      row('from cache', result.cached),
      row('seconds', (result.ms / 1000).toFixed(2)),
    );
  }
  return lines.join('\n');
}

/** Where the build is: a bar on a terminal, one plain line per stage elsewhere (CI, pipes). */
function progressReporter(): { onProgress: (event: Progress) => void; stop: () => void } {
  const bar = terminalBar('records');
  if (!bar) {
    return {
      onProgress: (e) => {
        if ('ms' in e) console.error(`  ${e.stage.padEnd(9)} ${(e.ms / 1000).toFixed(2)}s`);
      },
      stop: () => {},
    };
  }
  let started = false;
  return {
    onProgress: (e) => {
      if ('done' in e) {
        if (!started) bar.start(e.total, 0, { stage: 'write' });
        started = true;
        bar.update(e.done);
      }
    },
    stop: () => started && bar.stop(),
  };
}

export async function main(argv: string[]): Promise<number> {
  const args = commandOptions(
    argv,
    {
      data: { type: 'string' },
      out: { type: 'string' },
      check: { type: 'boolean', default: false },
      pretty: { type: 'boolean', default: false },
      plain: { type: 'boolean', default: false },
      'github-pages': { type: 'boolean', default: false },
      report: { type: 'string', default: 'text' },
    },
    HELP,
  );
  if (typeof args === 'number') return args;
  if (args.report !== 'text' && args.report !== 'json' && args.report !== 'github') {
    console.error(`--report must be text, json or github, got ${shown(args.report)}`);
    return 2;
  }
  // Stopped, the build leaves the output as a killed one does: the next build finds its tree as it was.
  onStop();
  const progress = args.report === 'text' ? progressReporter() : undefined;
  try {
    const dataDir = args.data ? path.resolve(args.data) : undefined;
    const result = await build({
      onProgress: progress?.onProgress,
      dataDir,
      editorSchemas: editorSchemasFor(dataDir),
      outDir: args.out ? path.resolve(args.out) : undefined,
      check: args.check,
      pretty: args.pretty,
      plain: args.plain || args['github-pages'],
      githubPages: args['github-pages'],
    });
    progress?.stop();
    const unchosen = (args.plain || args['github-pages']) && !args.check ? unchosenBase() : undefined;
    if (unchosen) console.error(`BASE_URL is not set: every url starts with ${unchosen}; set it to the address the folder is served from`);
    if (args.report === 'json') console.log(JSON.stringify({ ok: true, ...result, problems: [] }, null, 2));
    else console.log(summary(result, args.check, args.out?.replace(/\/+$/, '') || 'dist'));
    return 0;
  } catch (err) {
    progress?.stop();
    return reportFailure(err, args.report, args.data);
  }
}

/**
 * The address every url was written with when nobody chose it (no BASE_URL, no host's own address):
 * said for a plain output, a folder meant to be put on a host, where localhost links lead nowhere.
 */
function unchosenBase(): string | undefined {
  if (process.env.BASE_URL) return undefined;
  const base = baseUrlFromEnv();
  return base === defaults.baseUrl ? base : undefined;
}

const STOPPED = 'the build stopped; the output folder was left as it was';

/** The exit code a build's failure gives (the README's), or undefined for one that is no failure of the data, usage or output. */
export function exitCodeOf(err: unknown): number | undefined {
  if (err instanceof BuildFailed) return 1;
  if (err instanceof UsageError) return 2;
  if (err instanceof OutputFailed) return 3;
  if (err instanceof Busy) return 4;
  return undefined;
}

/** Tells why the build failed, in the report asked for, and gives the exit code that says so. */
function reportFailure(err: unknown, report: string, data: string | undefined): number {
  const code = exitCodeOf(err);
  if (code === undefined) {
    console.error(`internal error: ${(err as Error).stack ?? err}`);
    return 2;
  }
  // A refused write says the output was left as it was; wrong usage and a busy output touched nothing.
  if (!(err instanceof BuildFailed)) console.error(err instanceof OutputFailed ? `${err.message}\n${STOPPED}` : (err as Error).message);
  else if (report === 'json') console.log(jsonText({ ok: false, problems: sortProblems(err.problems) }));
  else {
    if (report === 'github') {
      const dataParent = path.dirname(data ? path.resolve(data) : defaultDataDir);
      console.log(formatGithub(err.problems, { root: path.relative(process.env.GITHUB_WORKSPACE || process.cwd(), dataParent) }));
    }
    console.error(`${formatProblems(err.problems)}\n${STOPPED}`);
  }
  return code;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = await main(process.argv.slice(2));

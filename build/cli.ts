// `npm run build [-- options]`: builds the API, prints a summary or every problem in the data.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build, type BuildResult } from './build.ts';
import { UsageError } from './config.ts';
import { defaultDataDir } from './paths.ts';
import { BuildFailed, formatProblems, sortProblems } from './problems.ts';
import { formatGithub } from './report-github.ts';

const HELP = `Usage: npm run build -- [options]

Builds the static API from the source records.

Options:
  --data DIR       source records (default: data/)
  --out DIR        output folder (default: dist/)
  --check          validate the data and write nothing
  --pretty         indent the published JSON
  --plain          write the output as a plain folder, not a link to the latest of two
                   trees (for a host to publish from a fresh checkout; rebuilds start over)
  --report FORMAT  how problems are reported: text (default), json, or github
                   (GitHub workflow commands: annotations on the offending lines)
  -h, --help       show this help

Environment:
  BASE_URL         the address the API is served from (default http://localhost:3000)

Exit codes: 0 built (or checked), 1 problems in the data, 2 wrong usage or internal error.`;

export function summary(result: BuildResult, check = false): string {
  const kinds = Object.entries(result.records);
  const width = Math.max(...kinds.map(([k]) => k.length));
  const lines = kinds.map(([k, n]) => `  ${k.padEnd(width)}  ${String(n).padStart(6)}`);
  const total = kinds.reduce((s, [, n]) => s + n, 0);
  const seconds = `${(result.ms / 1000).toFixed(2)}s`;
  const done = check
    ? `checked ${total} records in ${seconds}: no problems`
    : result.files === 0
      ? `nothing changed: dist/ is up to date (${result.unchanged} files) — ${seconds}`
      : `${result.files} files (${(result.bytes / 1024).toFixed(0)} KiB) for ${total} records: ${result.written} written, ${result.linked} linked, ${result.unchanged} unchanged, ${result.removed} removed — ${seconds}`;
  return ['records per kind:', ...lines, done].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: {
        data: { type: 'string' },
        out: { type: 'string' },
        check: { type: 'boolean', default: false },
        pretty: { type: 'boolean', default: false },
        plain: { type: 'boolean', default: false },
        report: { type: 'string', default: 'text' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (args.help) {
    console.log(HELP);
    return 0;
  }
  if (args.report !== 'text' && args.report !== 'json' && args.report !== 'github') {
    console.error(`--report must be text, json or github, got "${args.report}"`);
    return 2;
  }
  try {
    const result = await build({
      dataDir: args.data ? path.resolve(args.data) : undefined,
      outDir: args.out ? path.resolve(args.out) : undefined,
      check: args.check,
      pretty: args.pretty,
      plain: args.plain,
    });
    if (args.report === 'json') console.log(JSON.stringify({ ok: true, ...result, problems: [] }, null, 2));
    else console.log(summary(result, args.check));
    return 0;
  } catch (err) {
    if (err instanceof BuildFailed) {
      if (args.report === 'json') console.log(JSON.stringify({ ok: false, problems: sortProblems(err.problems) }, null, 2));
      else if (args.report === 'github') {
        const dataParent = path.dirname(args.data ? path.resolve(args.data) : defaultDataDir);
        const root = path.relative(process.env.GITHUB_WORKSPACE || process.cwd(), dataParent);
        console.log(formatGithub(err.problems, { root }));
        console.error(formatProblems(err.problems) + '\nthe build stopped; the output folder was left as it was');
      } else console.error(formatProblems(err.problems) + '\nthe build stopped; the output folder was left as it was');
      return 1;
    }
    if (err instanceof UsageError) {
      console.error(err.message);
      return 2;
    }
    console.error(`internal error: ${(err as Error).stack ?? err}`);
    return 2;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = await main(process.argv.slice(2));

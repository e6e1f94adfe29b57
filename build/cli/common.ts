// What the commands share: reading their options, and the progress bar they show on a terminal.
// Elsewhere (CI, pipes) they print plain lines, and the bar's library is not loaded.
import { createRequire } from 'node:module';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { SingleBar } from 'cli-progress';

const HELP_OPTION = { help: { type: 'boolean', short: 'h', default: false } } as const;

/**
 * A command's options and `-h`/`--help`; or the exit code it ends with here: 0 once the help is
 * shown, 2 for an option it does not take, or one given an empty value, said with the help.
 */
export function commandOptions<O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O, help: string) {
  let values: ReturnType<typeof parseArgs<{ args: string[]; options: O & typeof HELP_OPTION }>>['values'];
  try {
    values = parseArgs({ args: argv, options: { ...options, ...HELP_OPTION } }).values;
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${help}`);
    return 2;
  }
  if ((values as { help?: boolean }).help) {
    console.log(help);
    return 0;
  }
  // `--out "$OUT"` with OUT unset: taken as the default, it would build (or watch, or import) where
  // nobody asked.
  const empty = Object.entries(values).find(([, value]) => typeof value === 'string' && value.trim() === '');
  if (empty) {
    console.error(`--${empty[0]} was given an empty value\n\n${help}`);
    return 2;
  }
  return values;
}

/** A bar on stderr counting `unit`, with a `{stage}` label; undefined where stderr is no terminal, or on CI. */
export function terminalBar(unit: string): SingleBar | undefined {
  if (!process.stderr.isTTY || process.env.CI) return undefined;
  const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof import('cli-progress');
  return new cliProgress.SingleBar(
    { stream: process.stderr, format: `  {stage} [{bar}] {value}/{total} ${unit}`, hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
}

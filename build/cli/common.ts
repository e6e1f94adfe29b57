// What the commands share: reading their options, stopping on a signal, and the progress bar they
// show on a terminal. Elsewhere (CI, pipes) they print plain lines, and the bar's library is not
// loaded.
import { createRequire } from 'node:module';
import type { SingleBar } from 'cli-progress';

// Reading options and stopping on a signal are the tools' too (gen:world, bench), which sit below
// the commands: one implementation, there.
export { commandOptions, onStop, stopping, stopWith, untilStopped } from '../tools/command.ts';

/** A bar on stderr counting `unit`, with a `{stage}` label; undefined where stderr is no terminal, or on CI. */
export function terminalBar(unit: string): SingleBar | undefined {
  if (!process.stderr.isTTY || process.env.CI) return undefined;
  const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof import('cli-progress');
  return new cliProgress.SingleBar(
    { stream: process.stderr, format: `  {stage} [{bar}] {value}/{total} ${unit}`, hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
}

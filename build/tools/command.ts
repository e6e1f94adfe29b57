// What every command shares, the launched ones (build/cli/) and the tools run by tsx (gen:world,
// bench): its command line read strictly, with a suggestion for a misspelt option, and its stop on
// a signal, which ends what it started before the process exits with the signal's code.
import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../guard.mjs';

type Options = NonNullable<ParseArgsConfig['options']>;
const HELP_OPTION = { help: { type: 'boolean', short: 'h', default: false } } as const;
type Values<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O & typeof HELP_OPTION }>>['values'];

/**
 * The values of `argv`, read as `options` and `-h`/`--help`, or a `UsageError` saying in one line
 * what is wrong: an option the command does not take (with the nearest it does), an argument that
 * is no option, an option without its value or with one it does not take, or an empty value.
 */
export function readOptions<O extends Options>(argv: string[], options: O): Values<O> {
  const all: Options = { ...options, ...HELP_OPTION };
  const { tokens } = parseArgs({ args: argv, options: all, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    if (token.kind === 'positional') throw new UsageError(`unexpected argument "${token.value}": this command takes options only`);
    if (token.kind !== 'option') continue;
    const option = all[token.name];
    if (!option) throw new UsageError(unknownOption(argv[token.index]!, Object.keys(all)));
    if (option.type === 'boolean' && token.value !== undefined) throw new UsageError(`${token.rawName} takes no value`);
    if (option.type === 'string' && token.value === undefined) throw new UsageError(`${token.rawName} needs a value`);
    // `--out --check` would take `--check` as the folder.
    if (option.type === 'string' && !token.inlineValue && token.value!.startsWith('-'))
      throw new UsageError(
        `${token.rawName} needs a value, and ${token.value} reads as an option (${token.rawName}=${token.value} gives it as the value)`,
      );
  }
  const values = parseArgs({ args: argv, options: all, strict: false }).values as Values<O>;
  // `--out "$OUT"` with OUT unset: taken as the default, it would build (or watch, or import) where
  // nobody asked.
  const empty = Object.entries(values).find(([, value]) => typeof value === 'string' && value.trim() === '');
  if (empty) throw new UsageError(`--${empty[0]} was given an empty value`);
  return values;
}

/** Says an option is unknown, with the long option nearest to what was typed when one is near. */
function unknownOption(typed: string, names: string[]): string {
  // `-data` is read as `-d -a -t -a`: the word as typed is what to compare.
  const shown = typed.replace(/=.*$/s, '');
  const word = shown.replace(/^-+/, '');
  const { closest, distance } = createRequire(import.meta.url)('fastest-levenshtein') as typeof import('fastest-levenshtein');
  const long = names.filter((name) => name.length > 1);
  const near = closest(word, long);
  // Near enough that it reads as a slip of the keys, not as another word.
  const hint = distance(word, near) <= Math.max(2, Math.ceil(word.length / 3)) ? `; did you mean --${near}?` : '; --help lists the options';
  return `unknown option ${shown}${hint}`;
}

/**
 * A command's options and `-h`/`--help`; or the exit code it ends with here: 0 once the help is
 * shown, 2 for a command line `readOptions` refuses, said in one line with the help's first line
 * (the usage).
 */
export function commandOptions<O extends Options>(argv: string[], options: O, help: string): Values<O> | number {
  let values: Values<O>;
  try {
    values = readOptions(argv, options);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`${err.message}\n${help.split('\n')[0]}`);
    return 2;
  }
  if ((values as { help?: boolean }).help) {
    console.log(help);
    return 0;
  }
  return values;
}

type Cleanup = (signal: NodeJS.Signals) => void | Promise<void>;
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const cleanups: { cleanup: Cleanup }[] = [];
let stoppedBy: NodeJS.Signals | undefined;

/**
 * Runs `cleanup` when a signal (Ctrl-C, SIGTERM, a closed terminal) stops the process: the last
 * registered first, each awaited, then the process exits with 128 plus the signal's number (130,
 * 143, 129), as a shell reports a command a signal ended, and its 'exit' handlers run. Returns what
 * unregisters it; the signals are heard only while a cleanup is registered, so a library call (the
 * bench's, in a test) leaves the process as it found it. A command that works synchronously (gen:world)
 * registers none: a handler would wait for its work to end, where the signal's default ends it now.
 */
export function onStop(cleanup: Cleanup = () => {}): () => void {
  const entry = { cleanup };
  if (cleanups.length === 0) for (const signal of SIGNALS) process.on(signal, stop);
  cleanups.push(entry);
  return () => {
    const at = cleanups.indexOf(entry);
    if (at >= 0) cleanups.splice(at, 1);
    if (cleanups.length === 0 && !stoppedBy) for (const signal of SIGNALS) process.off(signal, stop);
  };
}

/** Whether a signal is stopping the process: what fails meanwhile is its doing, not to be reported. */
export const stopping = (): boolean => stoppedBy !== undefined;

/** A promise that never settles: what a command awaits once a stop, which ends the process, is under way. */
export const untilStopped = (): Promise<never> => new Promise(() => {});

async function stop(signal: NodeJS.Signals): Promise<void> {
  if (stoppedBy) return; // a second Ctrl-C: the cleanups under way finish
  stoppedBy = signal;
  for (const { cleanup } of cleanups.slice().reverse()) {
    try {
      await cleanup(signal);
    } catch (err) {
      console.error(`while stopping: ${(err as Error).message}`);
    }
  }
  process.exit(128 + os.constants.signals[signal]);
}

/** How long a child is given to end on a stop before it is killed outright. */
const CHILD_GRACE_MS = 10_000;

/**
 * Ends `child`, started `detached` (the leader of a process group of its own, so that npm, the
 * shell it starts and the node below it are reached together), when the command is stopped: the
 * same signal to the group, then SIGKILL if it is still there after a grace period. The stop waits
 * for it to exit before the next cleanup (removing the folder it writes into) runs.
 */
export function stopWith(child: ChildProcess): void {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  const off = onStop(async (signal) => {
    signalGroup(child, signal);
    const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), CHILD_GRACE_MS);
    await exited;
    clearTimeout(timer);
  });
  void exited.then(off);
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {} // gone already
}

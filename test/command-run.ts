// How the commands' tests run a command as a user does (commands.test.ts, commands-bad-input.test.ts):
// through the launcher or npm, in an environment that set nothing, in a process group of its own,
// and what of its stderr is its message.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../build/paths.ts';

export const COMMANDS = ['build', 'start', 'dev', 'import', 'diff', 'gen:world', 'bench', 'types'] as const;
export type Command = (typeof COMMANDS)[number];

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The environment of a user who set nothing: no BASE_URL (vitest sets one), no host's address, not CI. */
export function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, BASE_URL: '', ...extra };
  for (const name of ['NETLIFY', 'VERCEL', 'CF_PAGES', 'CI']) delete env[name];
  return env;
}

/**
 * `command` with `args`, run to its end as users start it: the launcher for the build's commands,
 * npm for the tools and for `npm start`. A command that does not end (a server started) is killed,
 * with all it started (its own process group), and fails the test.
 */
export function run(command: Command, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  const [file, argv] =
    command === 'gen:world' || command === 'bench' || command === 'types' || (command === 'start' && args.length)
      ? ['npm', ['run', '--silent', command, '--', ...args]]
      : [process.execPath, [path.join(projectRoot, 'build/launch.mjs'), command, ...args]];
  return runToEnd(file, argv, { cwd: projectRoot, env: userEnv(env), killAfterMs: 45_000 });
}

/**
 * `file` with `argv`, run to its end in a process group of its own, its output gathered; one still
 * running after `killAfterMs` (a server that started, a read that waits) is killed with its group.
 */
export function runToEnd(
  file: string,
  argv: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; killAfterMs: number },
): Promise<Ran> {
  const child = spawn(file, argv, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {} // gone meanwhile
  }, options.killAfterMs);
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) =>
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    }),
  );
}

/** Runs every job, `width` at a time (the machine is shared): each command is a process of its own. */
export async function inTurns<T, R>(jobs: T[], width: number, job: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < jobs.length; i = next++) results[i] = await job(jobs[i]!);
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

/** What a command says on stderr about where it is, which is not its message. */
export const PROGRESS = /^ {2}\S+\s+\d+\.\d+s$|^building the (working tree|base)\b/;
/** The build's word after a write it could not make: the output was left as it was. */
export const LEFT_AS_IT_WAS = 'the build stopped; the output folder was left as it was';

/** The lines of stderr that are the command's message: not where it is, nor the usage said after a wrong command line. */
export const said = (ran: Ran) =>
  ran.stderr.split('\n').filter((line) => line !== '' && !PROGRESS.test(line) && line !== LEFT_AS_IT_WAS && !line.startsWith('Usage: '));

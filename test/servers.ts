// The servers as users start them: `npm start` and `npm run dev` as child processes of this test,
// on free loopback ports, each stopped by its own pid; and what a process holds open, read from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot, serverOutputsDir } from '../build/paths.ts';
import { until } from './helpers.ts';

export interface ServerProcess {
  /** Where it listens, as it printed it, without a trailing slash. */
  url: string;
  pid: number;
  /** The folder it printed that it serves, absolute. */
  outDir: string;
  output: () => string;
  /** SIGTERM, and the folder it built removed when it is one of the servers' own. */
  stop: () => Promise<void>;
}

/** The launcher as `npm start` and `npm run dev` run it, with the build's own default address (vitest sets BASE_URL). */
function launch(args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['build/launch.mjs', ...args], {
    cwd: projectRoot,
    env: { ...process.env, BASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** `npm start` with `env` (PORT 0 unless given); resolves once it says it is serving. */
export async function npmStart(env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const run = launch(['start'], { PORT: '0', ...env });
  let code: number | null | undefined;
  void run.exited.then((c) => (code = c));
  const serving = /serving (\S+)\/ at (\S+)\/api\/v2\//;
  await until(
    async () => {
      if (code !== undefined) throw new Error(`npm start exited (${code}) before serving:\n${run.output()}`);
      return serving.test(run.output());
    },
    120_000,
    run.output,
  );
  const [, folder, url] = serving.exec(run.output())!;
  const outDir = path.resolve(projectRoot, folder!);
  return { url: url!, pid: run.child.pid!, outDir, output: run.output, stop: () => stop(run.child, run.exited, outDir) };
}

/** `npm start` run to its end: its exit code and what it printed. */
export async function npmStartExit(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const run = launch(['start'], env);
  const code = await run.exited;
  return { code, output: run.output() };
}

/** `npm run dev` over `dataDir` on a free loopback port, with `env`; resolves once it says where. */
export async function npmRunDev(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const run = launch(['dev', '--data', dataDir, '--port', '0', '--host', '127.0.0.1'], env);
  const ready = /explorer at (\S+)\//;
  await until(async () => ready.test(run.output()), 120_000, run.output);
  const url = ready.exec(run.output())![1]!;
  return { url, pid: run.child.pid!, outDir: '', output: run.output, stop: () => stop(run.child, run.exited, '') };
}

async function stop(child: ChildProcess, exited: Promise<unknown>, outDir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    await exited;
  }
  if (outDir && path.dirname(outDir) === serverOutputsDir) {
    for (const dir of [outDir, path.join(serverOutputsDir, `.${path.basename(outDir)}-builds`)])
      fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** How many files, sockets and pipes process `pid` holds open. */
export function openFiles(pid: number): number {
  return fs.readdirSync(`/proc/${pid}/fd`).length;
}

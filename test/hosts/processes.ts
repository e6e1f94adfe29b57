// Host emulators as child processes: a free loopback port, a start that waits until the port
// answers (or fails at once with the process's own output), and a stop that ends the whole
// process group it started, and nothing else.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';

export interface HostProcess {
  url: string;
  /** Everything the process printed so far, for failure messages. */
  output: () => string;
  stop: () => Promise<void>;
}

/** A port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Why `command args` cannot run here, or undefined when it can. */
export function cannotRun(command: string, args: string[]): string | undefined {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 60_000 });
  if (result.error) return `${command} cannot be started: ${result.error.message}`;
  if (result.status !== 0)
    return `${command} ${args.join(' ')} exited with ${result.status}: ${(result.stderr || result.stdout).trim().slice(0, 500)}`;
  return undefined;
}

/**
 * The reason a host is skipped, printed; undefined when it can run. On CI (CI set) a host that
 * cannot run fails the run instead: CI installs every host.
 */
export function unavailable(host: string, reason: string | undefined, install: string): string | undefined {
  if (!reason) return undefined;
  const message = `${host} cannot run here (${reason}); install it with: ${install}`;
  if (process.env.CI) throw new Error(message);
  console.warn(`[hosts] skipped: ${message}`);
  return message;
}

export interface StartOptions {
  command: string;
  args: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** The address to wait for; the host is ready when it answers any HTTP status. */
  url: string;
  /** A path on `url` to poll; default `/404.json`. */
  probe?: string;
  timeoutMs?: number;
}

export async function startHost(options: StartOptions): Promise<HostProcess> {
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // Should the test process end without its afterAll, the host's group ends with it.
  const orphan = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  process.once('exit', orphan);
  void exited.then(() => process.off('exit', orphan));
  child.once('error', (err) => keep(Buffer.from(`\n${err.message}\n`)));

  const host: HostProcess = { url: options.url, output: () => output, stop: () => stopGroup(child, exited) };
  const deadline = Date.now() + (options.timeoutMs ?? 90_000);
  const probe = new URL(options.probe ?? '/404.json', options.url);
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code ?? -1));
  while (Date.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`${options.command} exited (${exitCode}) before it answered on ${options.url}:\n${output}`);
    try {
      await fetch(probe, { signal: AbortSignal.timeout(2_000) });
      return host;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  await host.stop();
  throw new Error(`${options.command} did not answer on ${options.url} within ${options.timeoutMs ?? 90_000} ms:\n${output}`);
}

/** Ends the process group led by `child`: SIGTERM, then SIGKILL if it is still there after 5 s. */
async function stopGroup(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      // the group is already gone
    }
  };
  signal('SIGTERM');
  const done = await Promise.race([exited.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 5_000))]);
  // Helpers the host started in the same group may outlive their leader: end them as well.
  signal('SIGKILL');
  if (!done) await exited;
}

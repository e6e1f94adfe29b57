// `npm run dev` from start to end, as real processes with a temp folder (TMPDIR) of their own:
// wrong usage is one line and exit code 2; Ctrl-C or SIGTERM, during the first build or while idle,
// ends the process without a trace, with exit code 130 or 143, and leaves none of its temp builds
// behind; a first build that fails does not speak of a last good build.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { fixtureWorld, tempDir, until } from './helpers.ts';

interface Dev {
  child: ChildProcess;
  tmp: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** `npm run dev` as its script runs it, with a TMPDIR of its own. */
async function startDev(args: string[]): Promise<Dev> {
  const tmp = await tempDir('crs-devtmp-');
  const child = spawn(process.execPath, ['build/launch.mjs', 'dev', ...args], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, BASE_URL: '', TMPDIR: tmp },
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, tmp, output: () => output, exited };
}

/** The dev server's own temp builds left in its TMPDIR. */
const leftovers = async (dev: Dev) => (await fs.readdir(dev.tmp)).filter((name) => name.startsWith('crs-dev-'));

/** A stack trace's lines, or Node's report of an uncaught error. */
const TRACE = /^\s+at |Error:|node:internal|triggerUncaughtException/m;

async function expectUsageError(args: string[], said: RegExp): Promise<void> {
  const dev = await startDev(args);
  expect(await dev.exited, dev.output()).toBe(2);
  const lines = dev.output().trim().split('\n');
  expect(lines, dev.output()).toHaveLength(1);
  expect(lines[0]).toMatch(said);
  expect(dev.output()).not.toMatch(TRACE);
  expect(await leftovers(dev)).toEqual([]);
}

describe('npm run dev: wrong usage', () => {
  it('refuses a missing data folder in one line, exit code 2', async () => {
    await expectUsageError(['--data', 'nope', '--port', '0'], /^the data folder .*nope does not exist/);
  }, 60_000);

  it('refuses a port in use in one line naming it, exit code 2', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      await expectUsageError(['--port', String(port), '--host', '127.0.0.1'], new RegExp(`^port ${port} is in use on 127\\.0\\.0\\.1`));
    } finally {
      blocker.close();
    }
  }, 60_000);

  it('refuses a bad --port or --host in one line, exit code 2', async () => {
    await expectUsageError(['--port', 'eighty'], /^--port must be a port number, got "eighty"$/);
    await expectUsageError(['--port', '70000'], /^--port must be a port number/);
    await expectUsageError(['--port', '0', '--host', '203.0.113.9'], /^--host 203\.0\.113\.9: cannot listen there \(EADDRNOTAVAIL\)/);
  }, 90_000);
});

describe('npm run dev: stopping', () => {
  /** Starts the dev server on the starter world; `when` says when to send `signal`. */
  async function stopDev(signal: NodeJS.Signals, when: 'first build' | 'idle'): Promise<void> {
    const world = await fixtureWorld();
    const dev = await startDev(['--data', world.data, '--port', '0', '--host', '127.0.0.1']);
    if (when === 'first build') {
      // The build has begun writing its tree in the temp folder; the server has not said it is ready.
      await until(
        async () => {
          for (const name of await leftovers(dev)) if (await exists(path.join(dev.tmp, name, '.dist-builds'))) return true;
          return false;
        },
        60_000,
        dev.output,
      );
      expect(dev.output()).not.toContain('explorer at');
    } else {
      await until(async () => dev.output().includes('explorer at'), 90_000, dev.output);
      expect(await leftovers(dev)).toHaveLength(1);
    }
    dev.child.kill(signal);
    expect(await dev.exited, dev.output()).toBe(signal === 'SIGINT' ? 130 : 143);
    expect(dev.output()).not.toMatch(TRACE);
    expect(await leftovers(dev)).toEqual([]);
    if (when === 'first build') expect(dev.output()).not.toContain('explorer at');
  }

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} during the first build exits cleanly and removes its temp build`, () => stopDev(signal, 'first build'), 120_000);
    it(`${signal} while idle exits cleanly and removes its temp build`, () => stopDev(signal, 'idle'), 120_000);
  }

  it('a failed first build says there is no good build yet; the API answers 404 until one', async () => {
    const world = await fixtureWorld();
    const fire = path.join(world.data, 'type', 'fire.yaml');
    await fs.writeFile(fire, (await fs.readFile(fire, 'utf8')).replace('  - name: Fire\n', '  - name: Fire: Flame\n'));
    const dev = await startDev(['--data', world.data, '--port', '0', '--host', '127.0.0.1']);
    await until(async () => dev.output().includes('explorer at'), 90_000, dev.output);
    expect(dev.output()).toContain('the build failed; the API has no build yet');
    expect(dev.output()).not.toContain('last good build');
    const url = /explorer at (\S+)\//.exec(dev.output())![1]!;
    const status = await (await fetch(`${url}/__build-status`)).json();
    expect(status).toMatchObject({ ok: false, version: 1, served: 0 });
    const api = await fetch(`${url}/api/v2/type/fire/`);
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ detail: 'Not found.' });
    dev.child.kill('SIGTERM');
    expect(await dev.exited).toBe(143);
    expect(await leftovers(dev)).toEqual([]);
  }, 120_000);
});

const exists = (file: string) =>
  fs.stat(file).then(
    () => true,
    () => false,
  );

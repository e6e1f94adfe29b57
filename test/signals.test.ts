// Commands stopped by a signal, as Ctrl-C (SIGINT) or a supervisor (SIGTERM) stops them: each ends
// what it started (child processes, git worktrees, temp folders) and exits 130 or 143, without a
// stack trace. Each runs as users start it, with a TMPDIR of its own, so that what it leaves there
// is seen; the processes it leaves are found in /proc by their folders.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot, serverOutputsDir } from '../build/paths.ts';
import { generateWorld, writeWorld } from '../build/tools/gen-world.ts';
import { snapshot, tempDir, until } from './helpers.ts';
import { tempRepository } from './diff-run.ts';

const CODES = { SIGINT: 130, SIGTERM: 143 } as const;

/** A stack trace's lines, or Node's report of an uncaught error. */
const TRACE = /^\s+at |Error:|node:internal|triggerUncaughtException/m;

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function start(file: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Started {
  const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** The processes, other than this one, working in `dir` or naming it on their command line. */
function processesIn(dir: string): string[] {
  const found: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    if (Number(pid) === process.pid) continue;
    try {
      const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
      const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cwd.startsWith(dir) || command.includes(dir)) found.push(`${pid} in ${cwd}: ${command}`);
    } catch {} // gone meanwhile, or a zombie waiting for its parent
  }
  return found;
}

/** What a command left in its TMPDIR: the project's temp folders and files, all named crs-…. */
const leftIn = (tmp: string) => fs.readdirSync(tmp).filter((name) => name.startsWith('crs-'));

describe('npm run diff, stopped while it builds a revision as its base', () => {
  it('ends the base build, removes the worktree and its temp folder, and exits 143 or 130', { timeout: 180_000 }, async () => {
    const repo = await tempRepository();
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const tmp = await tempDir('crs-sigtmp-');
      const diff = start(process.execPath, [path.join(repo, 'build/launch.mjs'), 'diff', '--base', 'main'], {
        cwd: repo,
        env: { ...process.env, BASE_URL: '', TMPDIR: tmp },
      });
      // The base's `npm run build` runs in the revision's checkout, under the diff's temp folder.
      const building = () => processesIn(tmp).filter((p) => / in .*\/crs-diff-[^/]+\/rev-/.test(p));
      await until(async () => building().length > 0, 90_000, diff.output);
      diff.child.kill(signal);
      expect(await diff.exited, diff.output()).toBe(CODES[signal]);
      expect(diff.output()).toContain('building the base, main (');
      expect(diff.output()).not.toMatch(TRACE);
      const worktrees = execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: repo, encoding: 'utf8' });
      expect(worktrees.match(/^worktree .*/gm), signal).toEqual([`worktree ${fs.realpathSync(repo)}`]);
      expect(leftIn(tmp), signal).toEqual([]);
      expect(processesIn(tmp), signal).toEqual([]);
    }
  });
});

describe('npm run bench, stopped while it times a build', () => {
  it('ends the build it times, removes its worlds and outputs, and exits 143', { timeout: 120_000 }, async () => {
    const tmp = await tempDir('crs-sigtmp-');
    const results = path.join(projectRoot, 'bench-results', 'bench.json');
    const before = fs.existsSync(results) ? fs.readFileSync(results, 'utf8') : undefined;
    // The bench's own process, as `npm run bench` starts it through tsx, so that the signal is its own.
    const bench = start(process.execPath, ['--import', 'tsx', 'build/tools/bench.ts', '--scales', '0.01', '--runs', '3'], {
      cwd: projectRoot,
      env: { ...process.env, TMPDIR: tmp },
    });
    const timing = () => processesIn(tmp).filter((p) => p.includes('/usr/bin/time') && p.includes('run build'));
    await until(async () => timing().length > 0, 90_000, bench.output);
    bench.child.kill('SIGTERM');
    expect(await bench.exited, bench.output()).toBe(143);
    expect(bench.output()).not.toMatch(TRACE);
    expect(leftIn(tmp)).toEqual([]);
    expect(processesIn(tmp)).toEqual([]);
    expect(fs.existsSync(results) ? fs.readFileSync(results, 'utf8') : undefined).toEqual(before);
  });
});

describe('npm run build and npm start, stopped', () => {
  it('a build stopped by Ctrl-C exits 130 and leaves the last good output as it was', { timeout: 120_000 }, async () => {
    const root = await tempDir('crs-sigbuild-');
    const [data, out] = [path.join(root, 'data'), path.join(root, 'dist')];
    // A world that takes the build some seconds, so that the signal comes while it works.
    writeWorld(generateWorld(0.1, 1), data);
    const env = { ...process.env, BASE_URL: 'http://localhost:3000' };
    const launch = (args: string[]) =>
      start(process.execPath, [path.join(projectRoot, 'build/launch.mjs'), 'build', '--data', data, '--out', out, ...args], {
        cwd: root,
        env,
      });
    const first = launch([]);
    expect(await first.exited, first.output()).toBe(0);
    const good = await snapshot(out);
    // Indented output: every file is written again.
    const second = launch(['--pretty']);
    await until(async () => /^ {2}read\s/m.test(second.output()), 60_000, second.output);
    second.child.kill('SIGINT');
    expect(await second.exited, second.output()).toBe(130);
    expect(second.output()).not.toMatch(TRACE);
    expect(await snapshot(out)).toEqual(good);
  });

  it('npm start stopped by SIGTERM once it serves exits 143', { timeout: 120_000 }, async () => {
    const server = start(process.execPath, [path.join(projectRoot, 'build/launch.mjs'), 'start'], {
      cwd: projectRoot,
      env: { ...process.env, BASE_URL: '', PORT: '0', HOST: '127.0.0.1' },
    });
    const serving = /serving (\S+)\/ at /;
    try {
      await until(async () => serving.test(server.output()), 120_000, server.output);
      server.child.kill('SIGTERM');
      expect(await server.exited, server.output()).toBe(143);
      expect(server.output()).not.toMatch(TRACE);
    } finally {
      server.child.kill('SIGKILL');
      // The folder it built for its own port, and its trees, as test/servers.ts removes them.
      const folder = serving.exec(server.output())?.[1];
      if (folder) {
        const outDir = path.resolve(projectRoot, folder);
        for (const dir of [outDir, path.join(serverOutputsDir, `.${path.basename(outDir)}-builds`)])
          if (path.dirname(dir) === serverOutputsDir) fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});

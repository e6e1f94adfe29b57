// `npm test`: the static checks (the compiler over the build and the explorer, the linter, the
// formatter) and the test suite (`vitest run`, with any arguments given) at the same time. The
// suite waits on the processes, servers and browsers it starts for much of its run, and the checks
// fill that time (docs/PERFORMANCE.md, "npm test"). The suite's output is shown as it comes; a
// check's, when it fails, once the suite is done. Exits 1 if either failed. The suite's temp
// folders are kept in memory (/dev/shm) where the machine has it: the tests make and remove tens of
// thousands of small files, and a disk's file system took a third of the suite's processor time.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

/** The static checks: package.json's own scripts, one after another. */
const checks = ['typecheck', 'lint'];

/** The processes running now, to pass a signal on to. */
const running = new Set();
/** The signal that stopped `npm test`, if one did. */
let stoppedBy;
// Ctrl-C reaches the whole process group, a `kill` only this process: either way the processes it
// started are stopped and waited for, and its temp folder in memory removed, before it exits.
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    stoppedBy ??= signal;
    for (const child of running) child.kill(signal);
  });

/** Runs `file` with `args` in the project's folder; resolves to its exit code (1 if it could not start or was killed). */
function exitOf(file, args, stdio, output, env = process.env) {
  if (stoppedBy) return Promise.resolve(1);
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd: root, stdio, env });
    running.add(child);
    child.stdout?.on('data', (chunk) => output.push(chunk));
    child.stderr?.on('data', (chunk) => output.push(chunk));
    child.on('error', (err) => (output.push(`${file}: ${err.message}\n`), running.delete(child), resolve(1)));
    child.on('close', (code) => (running.delete(child), resolve(code ?? 1)));
  });
}

async function runChecks() {
  for (const script of checks) {
    const output = [];
    const code = await exitOf('npm', ['run', '--silent', script], ['ignore', 'pipe', 'pipe'], output);
    if (code !== 0) return { failed: `npm run ${script}`, output: output.join('') };
  }
  return { failed: undefined, output: '' };
}

/**
 * One build of the starter world into a temp folder, before the suite: it fills the build's caches
 * (the launcher's bundle, the validators, the explorer's page) that a fresh clone lacks, where the
 * suite's first files would each fill them at once. A failure here is the suite's to report.
 */
async function warmCaches(tmp) {
  const out = fs.mkdtempSync(path.join(tmp, 'crs-warm-'));
  try {
    const launcher = path.join(root, 'build', 'launch.mjs');
    const starter = path.join(root, 'test', 'fixtures', 'starter');
    await exitOf(process.execPath, [launcher, 'build', '--data', starter, '--out', path.join(out, 'dist')], 'ignore', []);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

/** A folder of its own in /dev/shm for the suite's temp folders, or the usual one where there is none. */
function suiteTemp() {
  try {
    return fs.mkdtempSync('/dev/shm/crs-test-');
  } catch {
    return undefined;
  }
}

async function suite() {
  const memory = suiteTemp();
  const tmp = memory ?? os.tmpdir();
  try {
    await warmCaches(tmp);
    return await exitOf(bin('vitest'), ['run', ...process.argv.slice(2)], 'inherit', [], { ...process.env, TMPDIR: tmp });
  } finally {
    if (memory) fs.rmSync(memory, { recursive: true, force: true });
  }
}

const [checked, tested] = await Promise.all([runChecks(), suite()]);
if (stoppedBy) {
  process.stderr.write(`\nnpm test was stopped (${stoppedBy}).\n`);
  process.exit(stoppedBy === 'SIGINT' ? 130 : 143);
}
if (checked.failed) {
  process.stderr.write(`\nThe static checks failed at \`${checked.failed}\`:\n${checked.output}`);
} else {
  process.stdout.write('\nThe static checks passed: npm run typecheck (tsc), npm run lint (ESLint, Prettier).\n');
}
process.exitCode = checked.failed || tested !== 0 ? 1 : 0;

// `npm test`: the static checks (the compiler over the build and the explorer, the linter, the
// formatter) and the test suite (`vitest run`, with any arguments given) at the same time. The
// suite waits on the processes, servers and browsers it starts for much of its run, and the checks
// fill that time (docs/PERFORMANCE.md, "npm test"). The suite's output is shown as it comes; a
// check's, when it fails, once the suite is done. Exits 1 if either failed.
import { spawn } from 'node:child_process';

const bin = (name) => new URL(`../node_modules/.bin/${name}`, import.meta.url).pathname;

/** The checks, one after another, as `npm run typecheck` and `npm run lint` run them. */
const checks = [
  ['tsc', ['-p', '.']],
  ['tsc', ['-p', 'explorer']],
  ['eslint', ['.']],
  ['prettier', ['--check', '--log-level', 'warn', '.']],
];

/** Runs `name` with `args`; resolves to its exit code (1 if it could not start or was killed). */
function exitOf(name, args, stdio, output) {
  return new Promise((resolve) => {
    const child = spawn(bin(name), args, { stdio });
    child.stdout?.on('data', (chunk) => output.push(chunk));
    child.stderr?.on('data', (chunk) => output.push(chunk));
    child.on('error', (err) => (output.push(`${name}: ${err.message}\n`), resolve(1)));
    child.on('close', (code) => resolve(code ?? 1));
  });
}

async function runChecks() {
  for (const [name, args] of checks) {
    const output = [];
    const code = await exitOf(name, args, ['ignore', 'pipe', 'pipe'], output);
    if (code !== 0) return { failed: `${name} ${args.join(' ')}`, output: output.join('') };
  }
  return { failed: undefined, output: '' };
}

const [checked, tested] = await Promise.all([runChecks(), exitOf('vitest', ['run', ...process.argv.slice(2)], 'inherit', [])]);
if (checked.failed) {
  process.stderr.write(`\nThe static checks failed at \`${checked.failed}\`:\n${checked.output}`);
} else {
  process.stdout.write('\nThe static checks passed: tsc (build and explorer), eslint, prettier.\n');
}
process.exitCode = checked.failed || tested !== 0 ? 1 : 0;

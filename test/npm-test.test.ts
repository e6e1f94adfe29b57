// `npm test` fails on code the linter or the formatter refuses, not only on a failing test: its
// runner (test/run.mjs) runs `npm run typecheck` and `npm run lint` beside the suite. Tried on a copy
// of the project holding one such file, with a suite that finds no test to run. And it gives the
// suite a temp folder in memory, removed when it is stopped. In the slow suite: each run
// type-checks and lints the whole project.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { runToEnd, userEnv } from './command-run.ts';
import { tempDir, until } from './helpers.ts';

let copy: string;

/** The project's files as its working tree has them (its data and build outputs aside), its packages linked. */
beforeAll(async () => {
  copy = await tempDir('crs-npm-test-');
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: projectRoot, encoding: 'utf8' });
  for (const rel of files.split('\0').filter((f) => f && !f.startsWith('data/'))) {
    const from = path.join(projectRoot, rel);
    if (!fs.existsSync(from)) continue; // removed in the working tree
    fs.mkdirSync(path.dirname(path.join(copy, rel)), { recursive: true });
    fs.copyFileSync(from, path.join(copy, rel));
  }
  // The packages are this project's, each linked; the caches are the copy's own.
  fs.mkdirSync(path.join(copy, 'node_modules'));
  for (const name of fs.readdirSync(path.join(projectRoot, 'node_modules')))
    if (name !== '.cache') fs.symlinkSync(path.join(projectRoot, 'node_modules', name), path.join(copy, 'node_modules', name));
}, 120_000);

/** `npm test` in the copy with `probe` as test/probe.ts, asking vitest for no file: what the checks alone say. */
async function npmTestWith(probe: string) {
  fs.writeFileSync(path.join(copy, 'test', 'probe.ts'), probe);
  return runToEnd('node', ['test/run.mjs', '--passWithNoTests', 'no-test-file-is-named-so'], {
    cwd: copy,
    env: userEnv(),
    killAfterMs: 170_000,
  });
}

describe('npm test', () => {
  it('fails, naming npm run lint and the rule, on code ESLint refuses', { timeout: 180_000 }, async () => {
    const ran = await npmTestWith('export function probe(): void {\n  debugger;\n}\n');
    expect(ran.code, ran.stdout + ran.stderr).toBe(1);
    expect(ran.stderr).toContain('The static checks failed at `npm run lint`');
    expect(ran.stderr).toMatch(/test\/probe\.ts[\s\S]*no-debugger/);
  });

  it('fails, naming npm run lint and the file, on code Prettier would format otherwise', { timeout: 180_000 }, async () => {
    const ran = await npmTestWith('export const probe = [1,2];\n');
    expect(ran.code, ran.stdout + ran.stderr).toBe(1);
    expect(ran.stderr).toContain('The static checks failed at `npm run lint`');
    expect(ran.stderr).toMatch(/\[warn\] test\/probe\.ts/);
  });

  it.skipIf(!fs.existsSync('/dev/shm'))(
    "keeps the suite's temp folders in /dev/shm, and on SIGTERM stops what it started and removes them, exit 143",
    { timeout: 180_000 },
    async () => {
      // A test that says where its temp folder is, then waits to be stopped.
      const said = path.join(copy, 'tmpdir.txt');
      const probe = `import fs from 'node:fs';\nimport os from 'node:os';\nimport { it } from 'vitest';\n\nit('waits', async () => {\n  fs.writeFileSync(${JSON.stringify(said)}, os.tmpdir());\n  await new Promise((resolve) => setTimeout(resolve, 120_000));\n}, 130_000);\n`;
      fs.writeFileSync(path.join(copy, 'test', 'tmpdir-probe.test.ts'), probe);
      const child = spawn('node', ['test/run.mjs', 'test/tmpdir-probe.test.ts'], {
        cwd: copy,
        env: userEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.stdout.resume();
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      try {
        await until(
          async () => fs.existsSync(said),
          120_000,
          () => stderr,
        );
        const tmp = fs.readFileSync(said, 'utf8');
        expect(tmp).toMatch(/^\/dev\/shm\/crs-test-/);
        expect(fs.existsSync(tmp)).toBe(true);
        child.kill('SIGTERM');
        expect(await exited).toBe(143);
        expect(stderr).toContain('npm test was stopped (SIGTERM).');
        expect(fs.existsSync(tmp), 'its temp folder in memory is left').toBe(false);
      } finally {
        child.kill('SIGKILL');
        fs.rmSync(path.join(copy, 'test', 'tmpdir-probe.test.ts'), { force: true });
      }
    },
  );
});

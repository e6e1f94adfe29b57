// A build killed at any moment (kill -9) leaves dist/ exactly the old tree or exactly the new
// one: never a mix, never missing. Runs the real command line and kills it at many points.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDataDir, projectRoot } from '../build/paths.ts';
import { buildWorld, snapshot, tempDir } from './helpers.ts';

const RUNS = 24;

const BASES = { a: 'https://a.example.org', b: 'https://b.example.org' };

/** Starts the CLI; kills it with SIGKILL after `killAfter` ms unless it ends first. */
function buildKilledAfter(data: string, out: string, base: string, killAfter: number): Promise<{ killed: boolean; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'build/cli/build.ts'), '--data', data, '--out', out], {
    cwd: projectRoot,
    env: { ...process.env, BASE_URL: base },
    stdio: 'ignore',
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), killAfter);
  return new Promise((resolve) => {
    child.on('exit', (_code, signal) => {
      clearTimeout(timer);
      resolve({ killed: signal === 'SIGKILL', ms: performance.now() - started });
    });
  });
}

describe('a killed build', () => {
  it(`leaves dist exactly old or exactly new, at ${RUNS} kill points`, async () => {
    // The shipped world, built for two addresses: every file differs between the two trees, so
    // a build spends much of its time writing, which is where a kill could do harm.
    const root = await tempDir();
    const out = path.join(root, 'dist');
    const trees = { a: path.join(await tempDir(), 'dist'), b: path.join(await tempDir(), 'dist') };
    await buildWorld({ dataDir: defaultDataDir, outDir: trees.a, baseUrl: BASES.a });
    await buildWorld({ dataDir: defaultDataDir, outDir: trees.b, baseUrl: BASES.b });
    const expected = { a: await snapshot(trees.a), b: await snapshot(trees.b) };
    const which = (tree: Map<string, string>) => (equal(tree, expected.a) ? 'a' : equal(tree, expected.b) ? 'b' : 'mixed');

    // Both trees exist beside dist; then a whole run, timed, to spread the kills over. The first run
    // of the command line on a fresh machine is not timed: it fills the TypeScript loader's cache
    // and took four times as long as the runs after it (2.4 s against under 0.6 s), which put every
    // kill point after the build had ended.
    await buildWorld({ dataDir: defaultDataDir, outDir: out, baseUrl: BASES.a });
    await buildKilledAfter(defaultDataDir, out, BASES.b, 120_000);
    const whole = await buildKilledAfter(defaultDataDir, out, BASES.a, 120_000);
    expect(which(await snapshot(out))).toBe('a');

    let state: 'a' | 'b' = 'a';
    const outcomes: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const target = state === 'a' ? 'b' : 'a';
      const killAfter = whole.ms * (0.25 + (0.85 * i) / RUNS);
      const run = await buildKilledAfter(defaultDataDir, out, BASES[target], killAfter);
      const now = which(await snapshot(out));
      outcomes.push(`${Math.round(killAfter)}ms ${run.killed ? 'killed' : 'finished'} → ${now}`);
      expect(now, outcomes.join('\n')).not.toBe('mixed');
      expect([state, target]).toContain(now);
      state = now as 'a' | 'b';
    }
    console.info(`kill runs (whole run ${Math.round(whole.ms)}ms):\n${outcomes.join('\n')}`);
    // Builds were stopped part way, and the tree moved on whenever one finished.
    expect(outcomes.filter((o) => o.includes('killed')).length, outcomes.join('\n')).toBeGreaterThanOrEqual(RUNS / 3);
    // Nothing but the output and the trees beside it was written.
    expect(fs.readdirSync(root).sort()).toEqual(['.dist-builds', 'dist']);
    // After all that, an ordinary build still gives exactly the clean result.
    await buildWorld({ dataDir: defaultDataDir, outDir: out, baseUrl: BASES.a });
    expect(which(await snapshot(out))).toBe('a');
  }, 300_000);
});

function equal(x: Map<string, string>, y: Map<string, string>): boolean {
  if (x.size !== y.size) return false;
  for (const [k, v] of x) if (y.get(k) !== v) return false;
  return true;
}

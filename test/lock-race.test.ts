// The build lock (output/slots.ts) raced by real processes over a stale lock, round after round:
// however they meet, one holds it at a time, and the lock is gone once all have ended. In the slow
// suite; the test suite has a build refused by a live lock and a stale one taken over
// (output-guard.test.ts).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { tempDir, until } from './helpers.ts';

describe('the build lock', () => {
  it('is held by one process at a time, raced by real processes over a stale lock', async () => {
    const root = await tempDir();
    const lock = path.join(root, 'lock');
    const log = path.join(root, 'log');
    const contenders = 8;
    for (let round = 0; round < 3; round++) {
      // Left by a build that was killed: a pid no process has.
      fs.writeFileSync(lock, '999999999');
      fs.writeFileSync(log, '');
      const go = path.join(root, `go-${round}`);
      const running = Array.from({ length: contenders }, () => contend(lock, log, go));
      // All start together: each has loaded its code and waits for the word.
      await until(async () => fs.readdirSync(root).filter((n) => n.startsWith('ready-')).length === contenders, 60_000);
      for (const n of fs.readdirSync(root)) if (n.startsWith('ready-')) fs.rmSync(path.join(root, n));
      fs.writeFileSync(go, '');
      const codes = await Promise.all(running);
      // Each holder writes "in" and "out" around its time holding the lock: they never overlap.
      const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
      let holding = 0;
      for (const line of lines) {
        holding += line.startsWith('in') ? 1 : -1;
        expect(holding, lines.join('\n')).toBeLessThanOrEqual(1);
      }
      expect(codes.filter((c) => c === 0).length).toBeGreaterThanOrEqual(1);
      expect(codes.every((c) => c === 0 || c === 4)).toBe(true);
      expect(fs.existsSync(lock)).toBe(false);
    }
  });
});

/** One process taking the lock, holding it a moment, and letting it go; exit 4 when another held it. */
function contend(lock: string, log: string, go: string): Promise<number | null> {
  const script = `
    import fs from 'node:fs';
    import path from 'node:path';
    import { lock } from ${JSON.stringify(path.join(projectRoot, 'build/output/slots.ts'))};
    import { Busy } from ${JSON.stringify(path.join(projectRoot, 'build/output/slots.ts'))};
    let unlock;
    fs.writeFileSync(path.join(${JSON.stringify(path.dirname(lock))}, 'ready-' + process.pid), '');
    while (!fs.existsSync(${JSON.stringify(go)}));
    try { unlock = await lock(${JSON.stringify(lock)}); } catch (err) { process.exit(err instanceof Busy ? 4 : 1); }
    fs.appendFileSync(${JSON.stringify(log)}, 'in ' + process.pid + '\\n');
    await new Promise((r) => setTimeout(r, 30));
    fs.appendFileSync(${JSON.stringify(log)}, 'out ' + process.pid + '\\n');
    await unlock();
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: projectRoot, stdio: 'ignore' });
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}

// The dev loop under rapid saves: fifty saves within a second, some broken, some made as editors
// make them (in place, by a rename over the file, by removing and writing it again). The dev server,
// started as `npm run dev` starts it, does not crash; once the saves stop it answers a good state
// that was saved and reports the problems of the last save; the next good save is served.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { STATUS_PATH, type BuildStatus } from '../build/site/dev-status.ts';
import { fixtureWorld, until } from './helpers.ts';

const SAVES = 50;
const SPACING_MS = 18; // 50 saves in under a second

let child: ChildProcess;
let output = '';
let url = '';
let world: Awaited<ReturnType<typeof fixtureWorld>>;

const getJson = async (pathname: string) => (await fetch(url + pathname, { cache: 'no-store' })).json();
const status = () => getJson(STATUS_PATH) as Promise<BuildStatus>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for `check`, up to 20 s unless told, telling what the dev server printed if it never holds. */
const waitFor = (check: () => Promise<boolean>, timeoutMs = 20_000) => until(check, timeoutMs, () => output);

beforeAll(async () => {
  world = await fixtureWorld();
  child = spawn(process.execPath, ['build/launch.mjs', 'dev', '--data', world.data, '--port', '0', '--host', '127.0.0.1'], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, BASE_URL: '' },
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  await waitFor(async () => /explorer at (\S+)\//.test(output), 60_000);
  url = /explorer at (\S+)\//.exec(output)![1]!;
  await waitFor(async () => (await status()).ok);
}, 90_000);

afterAll(async () => {
  if (child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
});

/**
 * Saves `text` to `file` as vim writes with a backup: a probe file made and removed, the old file
 * moved aside, the new one written and flushed, the old one removed. Each step alone is data that
 * fails. Between steps this process is kept busy `gapMs`, as an editor's own work takes.
 */
function saveAsVim(file: string, text: string, gapMs: number): void {
  const between = () => {
    for (const end = performance.now() + gapMs; performance.now() < end;);
  };
  const probe = path.join(path.dirname(file), '4913');
  writeFileSync(probe, '');
  unlinkSync(probe);
  between();
  renameSync(file, `${file}~`);
  between();
  const fd = openSync(file, 'w');
  writeSync(fd, text);
  fsyncSync(fd);
  closeSync(fd);
  between();
  unlinkSync(`${file}~`);
}

describe('npm run dev under rapid saves', () => {
  it('shows no failure for a save an editor writes in steps', async () => {
    const dir = path.join(world.data, 'type');
    const fire = path.join(dir, 'fire.yaml');
    const text = await fs.readFile(fire, 'utf8');
    const heard = output.length;
    // Some milliseconds between steps, this process busy meanwhile, as an editor's own work takes;
    // for the last saves, tens of milliseconds, as on a busy machine, where a build fits between two steps.
    let gap = 3;
    for (let i = 0; i < 10; i++) {
      if (i === 5) gap = 30;
      saveAsVim(fire, text.replace('- game_index: 10', `- game_index: ${700 + i}`), gap);
      await waitFor(async () => (await getJson('/api/v2/type/fire/')).game_indices[0].game_index === 700 + i);
      await sleep(100);
    }
    expect(output.slice(heard)).not.toContain('the build failed');
    expect((await status()).ok).toBe(true);
    await fs.writeFile(fire, text);
  }, 60_000);

  it('shows no failure for a fix an editor writes in steps after the data was broken a while', async () => {
    const dir = path.join(world.data, 'type');
    const water = path.join(dir, 'water.yaml');
    const text = await fs.readFile(water, 'utf8');
    // Broken for longer than the loop passes failures over: its failure is shown.
    await fs.writeFile(water, text.replace('name: water', 'name: [water'));
    await waitFor(async () => (await status()).ok === false);
    await sleep(2_500);
    await fs.writeFile(water, text.replace('name: water', 'name: [water2'));
    await sleep(300);
    const heard = output.length;
    // The fix, as vim writes it, its steps tens of milliseconds apart, as on a busy machine, where a
    // build fits between two: each step alone is data that fails, and is passed over.
    saveAsVim(water, text.replace('- game_index: 11', '- game_index: 811'), 40);
    await waitFor(async () => (await status()).ok && (await getJson('/api/v2/type/water/')).game_indices[0].game_index === 811);
    expect(output.slice(heard)).not.toContain('the build failed');
    await fs.writeFile(water, text);
    await waitFor(async () => (await getJson('/api/v2/type/water/')).game_indices[0].game_index === 11);
  }, 60_000);

  it('survives fifty saves in a second, some broken, and ends on the last good state and the last problems', async () => {
    const fire = path.join(world.data, 'type', 'fire.yaml');
    const water = path.join(world.data, 'type', 'water.yaml');
    const fireText = await fs.readFile(fire, 'utf8');
    const waterText = await fs.readFile(water, 'utf8');
    const brokenLine = fireText.split('\n').indexOf('  - name: Fire') + 1;
    expect(brokenLine).toBeGreaterThan(0);
    // Each good save sets the first game index to a value of its own, so the state served names its save.
    const fireAt = (mark: number) => fireText.replace('- game_index: 10', `- game_index: ${mark}`);
    const waterAt = (mark: number) => waterText.replace('- game_index: 11', `- game_index: ${mark}`);
    const broken = fireText.replace('  - name: Fire\n', '  - name: Fire: Flame\n');
    const goodFire = new Set([10]);
    const goodWater = new Set([11]);

    const started = performance.now();
    for (let i = 0; i < SAVES; i++) {
      const last = i === SAVES - 1;
      if (last || i % 5 === 0) await fs.writeFile(fire, broken);
      else if (i % 5 === 1) {
        // As editors that write a copy and rename it over the file do.
        const copy = path.join(world.root, `water-${i}.yaml`);
        await fs.writeFile(copy, waterAt(2000 + i));
        await fs.rename(copy, water);
        goodWater.add(2000 + i);
      } else if (i % 5 === 2 || i === SAVES - 2) {
        await fs.rm(fire);
        await fs.writeFile(fire, fireAt(1000 + i));
        goodFire.add(1000 + i);
      } else {
        await fs.writeFile(fire, fireAt(1000 + i));
        goodFire.add(1000 + i);
      }
      // Saves keep to their times whatever each took; the last two come together: the file removed
      // and written again, then at once broken in place.
      if (i !== SAVES - 2) await sleep(Math.max(0, started + (i + 1) * SPACING_MS - performance.now()));
    }
    console.log(`${SAVES} saves in ${Math.round(performance.now() - started)} ms`);

    // Once the saves stop: the last build reports the last save's problem, and only it.
    let settled: BuildStatus | undefined;
    await waitFor(async () => {
      const now = await status();
      const same = settled && now.version === settled.version;
      settled = now;
      if (!same) await sleep(500);
      return !!same && !now.ok;
    });
    expect(settled!.problems).toEqual([expect.objectContaining({ file: 'data/type/fire.yaml', line: brokenLine })]);
    expect(settled!.problems[0]!.message).toMatch(/YAML/);

    // The API answers a good state that was saved, and whole.
    const servedFire = await getJson('/api/v2/type/fire/');
    const servedWater = await getJson('/api/v2/type/3/');
    expect(goodFire).toContain(servedFire.game_indices[0].game_index);
    expect(goodWater).toContain(servedWater.game_indices[0].game_index);

    // No crash, and nothing the loop did not expect.
    expect(child.exitCode).toBe(null);
    expect(output).not.toContain('internal error');

    // The next good save is served, and clears the problems.
    await fs.writeFile(fire, fireAt(4242));
    await waitFor(async () => (await getJson('/api/v2/type/fire/')).game_indices[0].game_index === 4242);
    const after = await status();
    expect(after.ok).toBe(true);
    expect(after.problems).toEqual([]);
  }, 120_000);

  it('answers the API and the status of the same build, whenever asked during saves', async () => {
    const fire = path.join(world.data, 'type', 'fire.yaml');
    const fireText = (await fs.readFile(fire, 'utf8')).replace(/- game_index: \d+/, '- game_index: 10');
    const fireAt = (mark: number) => fireText.replace('- game_index: 10', `- game_index: ${mark}`);
    // What the API served between two answers of the status that named the same build: a build has
    // one content, so each version must have been seen with one mark only.
    const seen = new Map<number, Set<number>>();
    let saving = true;
    let samples = 0;
    const poll = async () => {
      while (saving) {
        const before = await status();
        const mark = (await getJson('/api/v2/type/fire/')).game_indices[0].game_index as number;
        const after = await status();
        if (before.version !== after.version) continue;
        samples++;
        const marks = seen.get(after.version) ?? new Set<number>();
        seen.set(after.version, marks.add(mark));
      }
    };
    const pollers = [poll(), poll(), poll()];
    for (let i = 0; i < 12; i++) {
      await fs.writeFile(fire, fireAt(5000 + i));
      // Each save is built and served before the next: the polls see every swap.
      await waitFor(async () => (await getJson('/api/v2/type/fire/')).game_indices[0].game_index === 5000 + i);
      await sleep(150);
    }
    saving = false;
    await Promise.all(pollers);
    console.log(`${samples} agreeing samples over ${seen.size} builds`);
    expect(seen.size).toBeGreaterThan(5);
    for (const [version, marks] of seen) expect([...marks], `build ${version}`).toHaveLength(1);
  }, 120_000);
});

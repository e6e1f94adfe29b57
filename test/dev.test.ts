// `npm run dev`: the real dev server as a child process over a temp copy of the starter world.
// Saving a record rebuilds the API; a broken file is reported in the terminal, by the status
// endpoint and on the page, with file and line, until a save fixes it.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, readlinkSync, renameSync, statSync, watch } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { readManifestHeader } from '../build/incremental/manifest.ts';
import { layout } from '../build/output/trees.ts';
import { fixturesDir, fixtureWorld, listFiles, until } from './helpers.ts';

let child: ChildProcess;
let url = '';
let output = '';
let world: Awaited<ReturnType<typeof fixtureWorld>>;
let browser: Browser | undefined;
const fireFile = () => path.join(world.data, 'type', 'fire.yaml');

async function getJson(pathname: string): Promise<any> {
  const res = await fetch(url + pathname, { cache: 'no-store' });
  return res.json();
}

beforeAll(async () => {
  world = await fixtureWorld();
  // The loop's temp build goes here, where a test can find it.
  await fs.mkdir(path.join(world.root, 'tmp'));
  child = spawn(
    path.join(projectRoot, 'node_modules/.bin/tsx'),
    ['build/cli/dev.ts', '--data', world.data, '--port', '0', '--host', '127.0.0.1'],
    {
      cwd: projectRoot,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, BASE_URL: '', TMPDIR: path.join(world.root, 'tmp') },
    },
  );
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  await until(async () => /explorer at (\S+)\//.test(output), 60_000);
  url = /explorer at (\S+)\//.exec(output)![1]!;
});

afterAll(async () => {
  await browser?.close();
  if (child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  await fs.rm(world.root, { recursive: true, force: true });
});

describe('npm run dev', () => {
  test('serves the explorer and the API, with record urls on its own origin', async () => {
    const page = await fetch(url + '/');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="view"');
    const fire = await getJson('/api/v2/type/fire/');
    expect(fire.id).toBe(2);
    expect(fire.generation.url).toBe(`${url}/api/v2/generation/1/`);
    const missing = await fetch(url + '/api/v2/type/nothing-here/');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: 'Not found.' });
    expect((await getJson('/__build-status')).ok).toBe(true);
    // A page of another origin may ask the API with a conditional request, as it may ask `npm start`.
    const preflight = await fetch(url + '/api/v2/type/fire/', {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'if-none-match' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS');
  });

  test('vite reads only the explorer and what it imports, not the rest of the project', async () => {
    // Any page of another localhost origin can ask for these: the data, the build's code, the
    // project's own files and the built trees' manifests must not answer.
    for (const file of ['data/type/fire.yaml', 'build/config.ts', 'build/site/serve.ts', 'package.json', 'test/helpers.ts']) {
      for (const query of ['', '?raw', '?import', '?url']) {
        const res = await fetch(`${url}/@fs${projectRoot}/${file}${query}`);
        expect(res.status, `${file}${query}`).toBe(403);
        expect(await res.text()).not.toMatch(/game_index|import |"name"/);
      }
    }
    // The page still loads: its module, what it imports from build/, and vite's client.
    for (const pathname of ['/', '/src/main.ts', `/@fs${projectRoot}/build/site/colour.ts`, '/@vite/client']) {
      expect((await fetch(url + pathname)).status, pathname).toBe(200);
    }
  });

  test('fills its second tree once idle, so that the first save, as every later one, makes only what it changes', async () => {
    const [temp] = await fs.readdir(path.join(world.root, 'tmp'));
    const out = path.join(world.root, 'tmp', temp!, 'dist');
    const where = layout(out);
    const header = (slot: string) => readManifestHeader(path.join(where.root, `${slot}.manifest`));
    // No save is made: the tree beside the first build becomes its double, and both manifests say so.
    let live: 'a' | 'b' = 'a';
    await until(async () => {
      if (!existsSync(out)) return false;
      live = path.basename(readlinkSync(out)) as 'a' | 'b';
      const other = live === 'a' ? 'b' : 'a';
      const [mine, its] = [await header(live), await header(other)];
      return !!mine && !!its && mine.previous === its.key;
    });
    const other = live === 'a' ? 'b' : 'a';
    const inodes = async (dir: string) => new Map((await listFiles(dir)).map((rel) => [rel, statSync(path.join(dir, rel)).ino]));
    const files = await inodes(where.tree(live));
    expect(files.size).toBeGreaterThan(200);
    expect(await inodes(where.tree(other))).toEqual(files);
  });

  test('a saved edit is served at once', async () => {
    const before = await getJson('/api/v2/type/2/');
    expect(before.game_indices[0].game_index).toBe(10);
    const text = await fs.readFile(fireFile(), 'utf8');
    await fs.writeFile(fireFile(), text.replace('- game_index: 10', '- game_index: 77'));
    const ms = await until(async () => (await getJson('/api/v2/type/2/')).game_indices[0].game_index === 77);
    console.log(`edit → new value served in ${Math.round(ms)} ms`);
    expect(ms).toBeLessThan(5_000);
    // Every record of the starter world, one file each.
    const records = (await fs.readdir(path.join(fixturesDir, 'starter'), { recursive: true })).filter((f) => f.endsWith('.yaml')).length;
    expect(output).toMatch(new RegExp(`built ${records} records in \\d+ ms`));
  });

  test('a request made while a build runs waits for it, and is answered from it', async () => {
    const [temp] = await fs.readdir(path.join(world.root, 'tmp'));
    // A build holds the output's lock from opening its tree to the swap: the moment it is taken, the
    // API is asked (watched, not polled, so that this process takes no CPU from the loop's).
    const builds = path.join(world.root, 'tmp', temp!, '.dist-builds');
    const text = await fs.readFile(fireFile(), 'utf8');
    const answers: Promise<[number, number]>[] = [];
    let saving: number | undefined;
    const watcher = watch(builds, (_event, name) => {
      const mark = saving;
      if (name !== 'lock' || mark === undefined || !existsSync(path.join(builds, 'lock'))) return;
      saving = undefined;
      answers.push(getJson('/api/v2/type/2/').then((record) => [mark, record.game_indices[0].game_index]));
    });
    try {
      for (let mark = 501; mark <= 506; mark++) {
        saving = mark;
        await fs.writeFile(fireFile(), text.replace(/- game_index: \d+/, `- game_index: ${mark}`));
        await until(async () => (await getJson('/api/v2/type/2/')).game_indices[0].game_index === mark);
      }
    } finally {
      watcher.close();
    }
    // A lock taken and let go before its event was read is missed; most are not.
    expect(answers.length).toBeGreaterThanOrEqual(3);
    for (const [mark, answer] of await Promise.all(answers)) expect(answer, `asked while ${mark} was built`).toBe(mark);
  });

  test('saves that keep breaking the data hold a request only a moment: it is answered from the last good build while they go on', async () => {
    const good = await fs.readFile(fireFile(), 'utf8');
    const served = await getJson('/api/v2/type/2/');
    // A broken save every 50 ms, each unlike the last, until the request is answered (or 30 s pass).
    let saving = true;
    let ended = false;
    const saves = (async () => {
      for (let i = 0; saving && i < 600; i++) {
        await fs.writeFile(fireFile(), `id: 2\nname: fire\ngeneration: [oops${i}\n`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      ended = true;
    })();
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await getJson('/api/v2/type/2/')).toEqual(served);
      expect(ended, 'answered only once the saves stopped').toBe(false);
      expect((await getJson('/__build-status')).ok).toBe(false);
    } finally {
      saving = false;
      await saves;
      await fs.writeFile(fireFile(), good);
    }
    await until(async () => (await getJson('/__build-status')).ok === true);
  });

  test("a kind's folder or the data folder replaced whole, as a checkout replaces it, is watched in its place", async () => {
    const typeDir = path.join(world.data, 'type');
    const next = path.join(world.root, 'type-next');
    cpSync(typeDir, next, { recursive: true });
    const text = await fs.readFile(fireFile(), 'utf8');
    const at = (mark: number) => text.replace(/- game_index: \d+/, `- game_index: ${mark}`);
    await fs.writeFile(path.join(next, 'fire.yaml'), at(88));
    // Both in one step of this process, as a checkout does them: the loop hears of them together.
    renameSync(typeDir, path.join(world.root, 'type-before'));
    renameSync(next, typeDir);
    await until(async () => (await getJson('/api/v2/type/2/')).game_indices[0].game_index === 88);
    // Once the loop is idle (the listing after the build is done), only a watcher of the new folder hears a save in it.
    await new Promise((r) => setTimeout(r, 500));
    await fs.writeFile(fireFile(), at(99));
    await until(async () => (await getJson('/api/v2/type/2/')).game_indices[0].game_index === 99, 5_000);

    // The same for the data folder itself: the new one's kind folders come and go as any do. It
    // comes without its types, and they come after.
    const status = async () => (await getJson('/__build-status')) as { ok: boolean };
    const nextData = path.join(world.root, 'data-next');
    cpSync(world.data, nextData, { recursive: true });
    const types = path.join(world.root, 'types');
    await fs.rename(path.join(nextData, 'type'), types);
    await fs.writeFile(path.join(types, 'fire.yaml'), at(111));
    renameSync(world.data, path.join(world.root, 'data-before'));
    renameSync(nextData, world.data);
    // Built without its types, the records that name them fail.
    await until(async () => (await status()).ok === false);
    await new Promise((r) => setTimeout(r, 500));
    await fs.rename(types, path.join(world.data, 'type'));
    await until(async () => (await getJson('/api/v2/type/2/')).game_indices[0].game_index === 111, 5_000);
    await new Promise((r) => setTimeout(r, 500));
    await fs.writeFile(fireFile(), at(122));
    await until(async () => (await getJson('/api/v2/type/2/')).game_indices[0].game_index === 122, 5_000);
  });

  test("serves a record's own image, and a save of the image alone answers its new bytes", async () => {
    const drop = await fs.readFile(path.join(fixturesDir, 'media', 'drop.png'));
    const folder = path.join(world.data, 'creature-form', 'emberpup');
    const image = '/media/creature-form/1/front.png';
    const served = async () => {
      const res = await fetch(url + image, { cache: 'no-store' });
      return res.ok ? Buffer.from(await res.arrayBuffer()) : undefined;
    };
    await fs.mkdir(folder);
    await fs.writeFile(path.join(folder, 'front.png'), drop);
    await fs.appendFile(path.join(world.data, 'creature-form', 'emberpup.yaml'), 'sprites:\n  front_default: front.png\n');
    await until(async () => (await served())?.equals(drop) === true, 10_000);
    expect((await getJson('/api/v2/creature-form/1/')).sprites.front_default).toBe(url + image);
    // Once the loop is idle, a save in the record's folder alone is heard and built.
    await new Promise((r) => setTimeout(r, 500));
    const redrawn = Buffer.concat([drop, Buffer.from([0])]);
    await fs.writeFile(path.join(folder, 'front.png'), redrawn);
    await until(async () => (await served())?.equals(redrawn) === true, 5_000);
  });

  test('a data folder gone is built once, not again and again, and built again once it is back', async () => {
    const away = path.join(world.root, 'data-away');
    const said = output.length;
    renameSync(world.data, away);
    await new Promise((r) => setTimeout(r, 1500));
    const failures = output.slice(said).split('the build failed').length - 1;
    expect(failures).toBeGreaterThan(0);
    expect(failures).toBeLessThanOrEqual(3);
    renameSync(away, world.data);
    await until(async () => (await getJson('/__build-status')).ok === true);
  });

  test('a broken file is shown in the terminal, the status and the page, and a fix clears it', async () => {
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${url}/#/type/fire`);
    await page.locator('.record h1').filter({ hasText: 'Fire' }).waitFor();

    const good = await fs.readFile(fireFile(), 'utf8');
    const lines = good.split('\n');
    const brokenLine = lines.indexOf('  - name: Fire') + 1;
    expect(brokenLine).toBeGreaterThan(0);
    lines[brokenLine - 1] = '  - name: Fire: Flame';
    const heard = output.length;
    await fs.writeFile(fireFile(), lines.join('\n'));

    await until(async () => (await getJson('/__build-status')).ok === false);
    const status = await getJson('/__build-status');
    const problem = status.problems.find((p: { file: string }) => p.file === 'data/type/fire.yaml');
    expect(problem).toBeDefined();
    expect(problem.line).toBe(brokenLine);
    expect(problem.message).toMatch(/YAML/);
    const where = `data/type/fire.yaml:${problem.line}:${problem.column}`;
    expect(status.text).toContain(where);
    await until(async () => output.slice(heard).includes(where));
    expect(output.slice(heard)).toContain('the build failed');

    const overlay = page.locator('#build-status.failed');
    await overlay.waitFor();
    expect(await overlay.textContent()).toContain(where);
    // The API still answers from the last good build.
    expect((await getJson('/api/v2/type/2/')).name).toBe('fire');
    await page.screenshot({ path: path.join(projectRoot, 'test-results/dev-build-error.png') });

    await fs.writeFile(fireFile(), good.replace('- name: Fire', '- name: Flame'));
    await until(async () => (await getJson('/__build-status')).ok === true);
    await page.locator('#build-status.ok').filter({ hasText: 'Rebuilt' }).waitFor();
    expect(await page.locator('#build-status.failed').count()).toBe(0);
    // The open record is drawn again from the rebuilt API, without a reload.
    await page.locator('.record h1').filter({ hasText: 'Flame' }).waitFor();
  });
});

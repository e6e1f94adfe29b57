// A save the file watcher never reports is still built: the dev loop lists the data folder after
// each build and builds again where the folder differs from what the build itself listed. The saves
// here are written through a hard link from outside the data folder: the kernel reports a change to
// the watchers of the folder it was made through, so the data folder's watchers hear of none.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { fixtureWorld, until } from './helpers.ts';

let child: ChildProcess | undefined;
let output = '';

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('builds the saves made while a build ran, though the watcher reports none', async () => {
  const world = await fixtureWorld();
  const data = world.data;
  const fire = path.join(world.root, 'fire.yaml');
  await fs.link(path.join(data, 'type', 'fire.yaml'), fire);
  const text = await fs.readFile(fire, 'utf8');
  const at = (mark: number) => text.replace('- game_index: 10', `- game_index: ${mark}`);
  expect(at(1)).not.toBe(text);

  child = spawn(process.execPath, ['build/launch.mjs', 'dev', '--data', data, '--port', '0', '--host', '127.0.0.1'], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, BASE_URL: '' },
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  // A save every 20 ms from the start until the first build is served: the build takes far longer
  // than that, so saves land after it listed the folder.
  let mark = 1000;
  let served = false;
  const saving = (async () => {
    while (!served) {
      await fs.writeFile(fire, at(++mark));
      await sleep(20);
    }
  })();
  await until(
    async () => /explorer at (\S+)\//.test(output),
    60_000,
    () => output,
  );
  served = true;
  await saving;
  const url = /explorer at (\S+)\//.exec(output)![1]!;
  // The record is there from the first build shown: a build that read a save half written (each
  // save truncates the file, then writes it) failed, and the folder has changed since it listed it,
  // so the loop passes it over and builds again rather than show the failure.
  const gameIndex = async () => {
    const body = await (await fetch(`${url}/api/v2/type/fire/`)).json();
    if (!body.game_indices) throw new Error(`the API answered ${JSON.stringify(body)}; the process said:\n${output}`);
    return body.game_indices[0].game_index;
  };
  await until(
    async () => (await gameIndex()) === mark,
    20_000,
    () => output,
  );

  // The premise: the watcher reports nothing here, so a save made once the loop is idle stays unbuilt.
  await sleep(1000);
  await fs.writeFile(fire, at(mark + 1000));
  await sleep(1500);
  expect(await gameIndex()).toBe(mark);
  expect(output).not.toContain('internal error');
}, 120_000);

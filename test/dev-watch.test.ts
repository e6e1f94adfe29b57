// The dev loop's watchers of the data folder (`watchFolders`): one `fs.watch` per folder, following
// the folders there by inode. Each case saves a file and waits for the watchers to say so.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { watchFolders } from '../build/cli/dev.ts';
import { until } from './helpers.ts';

let root: string;
let data: string;
let heard = 0;
let watcher: { close: () => void } | undefined;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether `act` is heard within a second (nothing heard meanwhile before it). */
async function hears(act: () => void): Promise<boolean> {
  await sleep(50); // events of earlier steps are in
  const before = heard;
  act();
  try {
    await until(async () => heard > before, 1_000);
    return true;
  } catch {
    return false;
  }
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'crs-watch-'));
  data = path.join(root, 'data');
  fs.mkdirSync(path.join(data, 'type'), { recursive: true });
  fs.writeFileSync(path.join(data, 'type', 'fire.yaml'), 'id: 1\n');
  heard = 0;
});

afterEach(() => {
  watcher?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const start = () => (watcher = watchFolders(data, () => heard++));
const save =
  (rel: string, text = `${Math.random()}\n`) =>
  () =>
    fs.writeFileSync(path.join(data, rel), text);

it('hears a save in a kind folder and in the data folder, and passes hidden entries over', async () => {
  start();
  expect(await hears(save('type/fire.yaml'))).toBe(true);
  expect(await hears(save('loose.yaml'))).toBe(true);
  expect(await hears(save('type/.fire.yaml.swp'))).toBe(false);
});

it('watches a kind folder added, and one replaced whole, in its place', async () => {
  start();
  expect(await hears(() => fs.mkdirSync(path.join(data, 'move')))).toBe(true);
  expect(await hears(save('move/tackle.yaml'))).toBe(true);
  fs.cpSync(path.join(data, 'type'), path.join(root, 'type-next'), { recursive: true });
  expect(
    await hears(() => {
      fs.renameSync(path.join(data, 'type'), path.join(root, 'type-before'));
      fs.renameSync(path.join(root, 'type-next'), path.join(data, 'type'));
    }),
  ).toBe(true);
  expect(await hears(save('type/fire.yaml'))).toBe(true);
  // The folder moved away is not watched any more.
  expect(await hears(() => fs.writeFileSync(path.join(root, 'type-before', 'fire.yaml'), 'id: 2\n'))).toBe(false);
});

it("hears a record's own folder: its images and sounds saved, the folder added, replaced or removed", async () => {
  fs.mkdirSync(path.join(data, 'type', 'fire'));
  start();
  expect(await hears(save('type/fire/icon.svg', '<svg/>'))).toBe(true);
  // A folder added for another record, then its file.
  expect(await hears(() => fs.mkdirSync(path.join(data, 'type', 'water')))).toBe(true);
  expect(await hears(save('type/water/icon.svg', '<svg/>'))).toBe(true);
  // Replaced whole: the new one is watched, the one moved away no more.
  fs.cpSync(path.join(data, 'type', 'fire'), path.join(root, 'fire-next'), { recursive: true });
  expect(
    await hears(() => {
      fs.renameSync(path.join(data, 'type', 'fire'), path.join(root, 'fire-before'));
      fs.renameSync(path.join(root, 'fire-next'), path.join(data, 'type', 'fire'));
    }),
  ).toBe(true);
  expect(await hears(save('type/fire/icon.svg', '<svg></svg>'))).toBe(true);
  expect(await hears(() => fs.writeFileSync(path.join(root, 'fire-before', 'icon.svg'), 'x'))).toBe(false);
  expect(await hears(() => fs.rmSync(path.join(data, 'type', 'water'), { recursive: true }))).toBe(true);
  expect(await hears(save('type/.fire.swp'))).toBe(false);
});

it('follows the data folder itself when it is replaced, or removed and made again', async () => {
  start();
  fs.cpSync(data, path.join(root, 'data-next'), { recursive: true });
  expect(
    await hears(() => {
      fs.renameSync(data, path.join(root, 'data-before'));
      fs.renameSync(path.join(root, 'data-next'), data);
    }),
  ).toBe(true);
  expect(await hears(() => fs.mkdirSync(path.join(data, 'move')))).toBe(true);
  expect(await hears(save('move/tackle.yaml'))).toBe(true);
  expect(await hears(() => fs.rmSync(data, { recursive: true }))).toBe(true);
  expect(await hears(() => fs.mkdirSync(path.join(data, 'type'), { recursive: true }))).toBe(true);
  expect(await hears(save('type/fire.yaml'))).toBe(true);
});

it('still watches every folder when the data folder holds a link in a loop', async () => {
  fs.symlinkSync('loop', path.join(data, 'loop'));
  start();
  expect(await hears(save('type/fire.yaml'))).toBe(true);
  expect(await hears(() => fs.mkdirSync(path.join(data, 'move')))).toBe(true);
  expect(await hears(save('move/tackle.yaml'))).toBe(true);
});

it('hears nothing once closed', async () => {
  start();
  watcher!.close();
  expect(await hears(save('type/fire.yaml'))).toBe(false);
  expect(await hears(() => fs.mkdirSync(path.join(data, 'move')))).toBe(false);
});

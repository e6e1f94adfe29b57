// `npm run dev` as a page on another origin could ask it: vite's `/__open-in-editor` would start
// the user's editor on any file the process can read. It is off: the JSON 404, and nothing is
// started. Every answer of the dev server, the API's and vite's, carries nosniff.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_PATH } from '../build/site/dev-status.ts';
import { fixtureWorld, rawRequest } from './helpers.ts';
import { npmRunDev, type ServerProcess } from './servers.ts';

let dev: ServerProcess | undefined;
let world: Awaited<ReturnType<typeof fixtureWorld>>;
/** What the editor, had it been started, would have written: the file it was asked to open. */
let marker = '';

beforeAll(async () => {
  world = await fixtureWorld();
  marker = path.join(world.root, 'editor-was-started');
  const editor = path.join(world.root, 'editor.sh');
  await fs.writeFile(editor, `#!/bin/sh\necho "$@" >> '${marker}'\n`, { mode: 0o755 });
  // Every variable vite's editor launcher reads, so that whichever it takes, it starts this one.
  dev = await npmRunDev(world.data, { LAUNCH_EDITOR: editor, EDITOR: editor, VISUAL: editor });
});
afterAll(() => dev?.stop());

describe('npm run dev', () => {
  it('answers /__open-in-editor with the JSON 404 and starts no editor', async () => {
    const file = encodeURIComponent(path.join(world.data, 'type', 'fire.yaml'));
    for (const asked of [
      `/__open-in-editor?file=${file}`,
      `/__open-in-editor?file=${file}:1:1`,
      `/__OPEN-IN-EDITOR?file=${file}`,
      `/__open-in-editor/?file=${file}`,
      `/__open-in-editor.x?file=${file}`,
      '/__open-in-editor?file=package.json',
    ]) {
      const answer = await rawRequest(dev!.url, asked);
      expect([answer.status, JSON.parse(answer.body)], asked).toEqual([404, { detail: 'Not found.' }]);
      expect(answer.headers['x-content-type-options'], asked).toBe('nosniff');
    }
    // The launcher starts the editor while it answers; the editor writes at once. Give it time to.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await expect(fs.readFile(marker, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it("carries nosniff on the explorer, vite's modules, the status and the API, found or not", async () => {
    const asked: [string, string, Record<string, string>, number][] = [
      ['/', 'GET', {}, 200],
      ['/@vite/client', 'GET', {}, 200],
      [STATUS_PATH, 'GET', {}, 200],
      ['/api/v2/', 'GET', {}, 200],
      ['/api/v2/type/fire/', 'HEAD', {}, 200],
      ['/api/v2/type/9999/', 'GET', {}, 404],
      ['/api/v2/type/', 'OPTIONS', { Origin: 'http://localhost:1', 'Access-Control-Request-Method': 'GET' }, 204],
    ];
    for (const [p, method, headers, status] of asked) {
      const answer = await rawRequest(dev!.url, p, method, headers);
      const where = `${method} ${p}`;
      expect(answer.status, where).toBe(status);
      expect(answer.headers['x-content-type-options'], where).toBe('nosniff');
    }
  });
});

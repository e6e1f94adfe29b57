// Serving while rebuilding: the project's server answers from `dist` while builds for two different
// BASE_URLs swap it again and again beside it. Every answer, under concurrent requests, is a 200
// that belongs wholly to one build: every url in it has the same base.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { buildWorld, fixtureWorld, listFiles, serve } from './helpers.ts';

/** Two bases of different lengths, so that a body mixing two builds' files cannot pass for either. */
const BASES = ['http://one.example', 'https://two.example.org/a-longer-root'];
const BUILDS = 4;
const CLIENTS = 6;

/** Runs the build as a process, as a user does, and resolves with its exit code. */
function buildProcess(data: string, out: string, baseUrl: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['build/launch.mjs', 'build', '--data', data, '--out', out], {
      cwd: projectRoot,
      env: { ...process.env, BASE_URL: baseUrl },
      stdio: 'ignore',
    });
    child.on('error', reject);
    child.on('exit', resolve);
  });
}

/** The base every url of a body starts with, or a description of why there is not one. */
function baseOf(body: string): string {
  const urls = [...body.matchAll(/"url":"([^"]+)"/g)].map((m) => m[1]!);
  const bases = new Set(urls.map((url) => BASES.find((b) => url.startsWith(`${b}/api/v2/`)) ?? `foreign: ${url}`));
  return bases.size === 1 ? [...bases][0]! : `mixed: ${[...bases].join(', ')}`;
}

describe('serving while rebuilding', () => {
  it('answers every request with a 200 wholly of one build while builds for two BASE_URLs swap dist', async () => {
    const world = await fixtureWorld();
    await buildWorld({ dataDir: world.data, outDir: world.out, baseUrl: BASES[0] });
    // Records and lists, by id and by name: those whose bodies hold urls (not meta, nor the empty
    // encounters of a creature met nowhere).
    const api = path.join(world.out, 'api', 'v2');
    const paths = (await listFiles(api))
      .filter((f) => f.endsWith('/index.json') && f.split('/').length >= 2 && fs.readFileSync(path.join(api, f), 'utf8').includes('"url":'))
      .map((f) => `/api/v2/${f.slice(0, -'index.json'.length)}`);
    expect(paths.length).toBeGreaterThan(100);
    const server = await serve(world.out);

    let building = true;
    const builds = (async () => {
      const codes: Array<number | null> = [];
      for (let i = 1; i <= BUILDS; i++) codes.push(await buildProcess(world.data, world.out, BASES[i % 2]!));
      building = false;
      return codes;
    })();

    const failures: string[] = [];
    const seen = new Map<string, number>();
    const client = async (n: number) => {
      for (let i = n; building; i += CLIENTS) {
        const at = paths[(i * 7919) % paths.length]!;
        try {
          const res = await fetch(server.url + at);
          const body = await res.text();
          const base = baseOf(body);
          if (res.status !== 200) failures.push(`${at}: ${res.status}`);
          else if (!BASES.includes(base)) failures.push(`${at}: ${base}`);
          else JSON.parse(body);
          seen.set(base, (seen.get(base) ?? 0) + 1);
        } catch (err) {
          failures.push(`${at}: ${(err as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
    const codes = await builds;
    await server.close();

    expect(codes).toEqual(Array(BUILDS).fill(0));
    expect(failures.slice(0, 10)).toEqual([]);
    // Both builds were served, many times each.
    for (const base of BASES) expect(seen.get(base) ?? 0).toBeGreaterThan(50);
  }, 240_000);
});

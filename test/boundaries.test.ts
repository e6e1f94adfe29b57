// Inputs a careless or hostile user controls, tried through the real commands where a second look
// found them unguarded: a tree's manifest in the folder beside the output, edited to name a path
// outside the tree; PORT and --port written as numbers nobody means as a port; a BASE_URL, HOST,
// folder or value holding a line break; a schema of schemas/ that is no JSON, or a FIFO; a request
// target in absolute form that no URL parser reads; a link in the place of .editor-schemas. Each
// ends in one line with the README's exit code (or the JSON 404), or is passed over, and what the
// user had is as it was.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_FILE_BYTES } from '../build/guard.mjs';
import { projectRoot } from '../build/paths.ts';
import { readText } from '../build/pipeline/parse.ts';
import { fixturesDir, fixtureWorld, rawRequest, servedStarterWorld, tempDir } from './helpers.ts';
import { runToEnd, type Ran } from './command-run.ts';

/** The environment of a user who set nothing but `extra`: vitest's BASE_URL and a host's address left out. */
function userEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ['NETLIFY', 'VERCEL', 'CF_PAGES', 'CI']) delete env[name];
  if (!extra.BASE_URL) delete env.BASE_URL;
  return env;
}

/**
 * `node build/launch.mjs <args>` in `root` (the project, or a copy of it), run to its end; one that
 * does not end within the test's time (a server that started, a read that waits) is killed with its
 * process group and reported as `code: null`.
 */
function launch(args: string[], env: NodeJS.ProcessEnv = {}, root = projectRoot): Promise<Ran> {
  return runToEnd(process.execPath, [path.join(root, 'build/launch.mjs'), ...args], { cwd: root, env: userEnv(env), killAfterMs: 40_000 });
}

/** A build's line for a stage it finished ("  read      0.07s"), which it prints where stderr is no terminal. */
const STAGE = /^ {2}[a-z]+ +[0-9.]+s$/;

/**
 * A refusal as the README has it: exit code 2, one line on stderr matching `said` (besides the stages
 * done, and the usage line a command adds to a mistake in how it was called), no stack.
 */
function expectRefused(ran: Ran, said: RegExp): void {
  expect(ran.stderr).not.toMatch(/\n\s+at /);
  const lines = ran.stderr
    .trimEnd()
    .split('\n')
    .filter((line) => !STAGE.test(line) && !line.startsWith('Usage: '));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(said);
  expect(ran.code).toBe(2);
}

describe("a tree's manifest edited by hand", () => {
  /**
   * A world built twice into `dist` (plain JSON, then indented), so that the tree the next build
   * writes is the first, brought up to date from its manifest's list of files; that list is then
   * given `rel`, with the count and the key changed to match (not the live tree's neighbour, whose
   * list the live manifest would give instead).
   */
  async function builtTwice(rel: string) {
    const world = await fixtureWorld();
    for (const extra of [[], ['--pretty']]) {
      const built = await launch(['build', '--data', world.data, '--out', world.out, ...extra]);
      expect(built.stderr).not.toMatch(/internal error/);
      expect(built.code).toBe(0);
    }
    const live = fs.readlinkSync(world.out);
    const other = path.join(world.root, '.dist-builds', live.endsWith('/a') ? 'a.manifest' : 'b.manifest');
    const lines = fs.readFileSync(other, 'utf8').split('\n');
    const header = JSON.parse(lines[0]!);
    lines[0] = JSON.stringify({ ...header, key: 'edited', fileCount: header.fileCount + 1 });
    lines.splice(
      lines.findIndex((line) => line.startsWith('f\t')),
      0,
      `f\t${rel}\t0123456789abcdef0123456789abcdef01234567`,
    );
    fs.writeFileSync(other, lines.join('\n'));
    return world;
  }

  it.each([
    ['a path up and out of the tree', '../../victim.txt'],
    ['a path that climbs out from inside the tree', 'api/../../../victim.txt'],
  ])("%s names no file to remove: the user's file beside the output is as it was", async (_, rel) => {
    const world = await builtTwice(rel);
    const victim = path.join(world.root, 'victim.txt');
    fs.writeFileSync(victim, 'the user’s own\n');
    const ran = await launch(['build', '--data', world.data, '--out', world.out]);
    expect(ran.stderr).not.toMatch(/internal error/);
    expect(ran.code).toBe(0);
    expect(fs.readFileSync(victim, 'utf8')).toBe('the user’s own\n');
  });

  it.each([
    ['an empty path', ''],
    ['a path holding a NUL', 'api/v2/\0x'],
  ])('%s is passed over, not an internal error', async (_, rel) => {
    const world = await builtTwice(rel);
    const ran = await launch(['build', '--data', world.data, '--out', world.out]);
    expect(ran.stderr).not.toMatch(/internal error/);
    expect(ran.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(world.out, 'api/v2/type/1/index.json'), 'utf8')).id).toBe(1);
  });
});

describe('a port nobody means as one', () => {
  // Number() reads each of these as a port: 1000, 16, 1000 and 0 (any free port).
  const ODD = ['1e3', '0x10', '1000.0', ' '];

  it.each(ODD)('PORT=%j: npm start refuses it in one line, exit code 2, before it listens or builds', async (port) => {
    expectRefused(await launch(['start'], { PORT: port }), /^PORT must be a port number, got ".*"$/);
  });

  it.each(ODD.filter((port) => port.trim()))('--port %j: the dev loop refuses it in one line, exit code 2', async (port) => {
    expectRefused(await launch(['dev', '--port', port]), /^--port must be a port number, got ".*"$/);
  });
});

describe('a setting holding a line break is told in one line', () => {
  it('BASE_URL', async () => {
    const world = await fixtureWorld();
    const ran = await launch(['build', '--check', '--data', world.data], { BASE_URL: 'https://example.org\n' });
    expectRefused(ran, /^BASE_URL may hold only characters a url holds, "\\n" \(U\+000A\) at character 20 is not one/);
  });

  it.each([
    ['build --data', ['build', '--check', '--data', '/no/such\nfolder'], /^the data folder \/no\/such\\nfolder does not exist/],
    ['import --from', ['import', '--from', '/no/such\nfolder', '--out', '/no/such/out'], /^--from \/no\/such\\nfolder: no such folder$/],
    ['diff --data', ['diff', '--base', 'HEAD', '--data', '/no/such\nfolder'], /^--data \/no\/such\\nfolder: no such folder$/],
    ['build --report', ['build', '--check', '--report', 'te\nxt'], /^--report must be text, json or github, got "te\\nxt"$/],
  ])('a path or value given to %s', async (_, args, said) => {
    expectRefused(await launch(args), said);
  });

  it('HOST', async () => {
    expectRefused(await launch(['start'], { PORT: '0', HOST: 'local\nhost' }), /^HOST "local\\nhost" cannot be listened on/);
  });
});

/** A copy of what the project builds from, beside its libraries, with a cache of its own. */
async function copyProject(): Promise<string> {
  const root = await tempDir('crs-boundaries-');
  for (const entry of ['build', 'schemas', 'explorer', 'hosts/cloudflare', 'hosts/serve.json', '.vscode'])
    fs.cpSync(path.join(projectRoot, entry), path.join(root, entry), { recursive: true });
  for (const file of ['package.json', 'package-lock.json', 'tsconfig.json', 'vite.config.ts'])
    fs.copyFileSync(path.join(projectRoot, file), path.join(root, file));
  fs.mkdirSync(path.join(root, 'node_modules'));
  for (const name of fs.readdirSync(path.join(projectRoot, 'node_modules')))
    if (name !== '.cache') fs.symlinkSync(path.join(projectRoot, 'node_modules', name), path.join(root, 'node_modules', name));
  fs.cpSync(path.join(fixturesDir, 'starter'), path.join(root, 'data'), { recursive: true });
  return root;
}

describe('a schema of schemas/ that cannot be read as one', () => {
  it('one that is no JSON, or a FIFO (never waited on), ends the build in one line naming it, exit code 2', async () => {
    const root = await copyProject();
    const extra = path.join(root, 'schemas', 'zz-extra.json');
    fs.writeFileSync(extra, '{');
    expectRefused(await launch(['build', '--check'], {}, root), /^schemas\/zz-extra\.json: is not JSON \(/);
    fs.rmSync(extra);
    expect(spawnSync('mkfifo', [extra]).status).toBe(0);
    expectRefused(
      await launch(['build', '--check'], {}, root),
      /^schemas\/zz-extra\.json: is a FIFO \(a named pipe\), not a regular file$/,
    );
  }, 120_000);
});

describe('a request target no URL parser reads', () => {
  const world = servedStarterWorld();

  it.each(['http://[', 'http://[/api/v2/type/?offset=1&limit=1'])('%s is the JSON 404, not a server error', async (target) => {
    const answer = await rawRequest(world.url, target);
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toEqual({ detail: 'Not found.' });
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('.editor-schemas, the folder the build keeps the schemas editors read in', () => {
  it('a link in its place to a folder of the user is refused in one line, exit code 2, and the folder is as it was', async () => {
    const root = await copyProject();
    const user = await tempDir('crs-user-json-');
    fs.writeFileSync(path.join(user, 'precious.json'), '{"mine": true}\n');
    fs.symlinkSync(user, path.join(root, '.editor-schemas'));
    const ran = await launch(['build'], {}, root);
    expectRefused(ran, /\.editor-schemas: is a link, where the build keeps the schemas editors read/);
    expect(fs.readdirSync(user)).toEqual(['precious.json']);
    expect(fs.readFileSync(path.join(user, 'precious.json'), 'utf8')).toBe('{"mine": true}\n');
  }, 120_000);
});

describe('a source file replaced after it was listed', () => {
  // discover lists regular files only; a FIFO or a larger file put in one's place before it is read
  // is held to the same rule on the descriptor it would be read from, never waited on.
  it('by a FIFO is refused at once, and one grown past the limit is refused unread', async () => {
    const dir = await tempDir();
    const fifo = path.join(dir, 'fire.yaml');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const started = Date.now();
    expect(() => readText(fifo)).toThrow(/no longer a regular file/);
    expect(Date.now() - started).toBeLessThan(5_000);
    const large = path.join(dir, 'water.yaml');
    fs.writeFileSync(large, Buffer.alloc(MAX_FILE_BYTES + 1, 0x61));
    expect(() => readText(large)).toThrow(/over the limit/);
  });
});

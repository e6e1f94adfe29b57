// Every command as users run it (`node build/launch.mjs <command>`, `npm start`, `npm run gen:world`,
// `npm run bench`): wrong usage, a bad value or a folder it cannot use ends in one line with the
// README's exit code, never a stack trace; the diff refuses a base folder that is half a build. In
// the slow suite; `--help` and misspelt options are commands.test.ts's.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildWorld, fixtureWorld, tempDir } from './helpers.ts';
import { inTurns, run, said, type Command } from './command-run.ts';

/** A stack trace's lines, or Node's report of an uncaught error. */
const TRACE = /^\s+at |Error:|node:internal|triggerUncaughtException/m;

describe('bad input ends in one line with its exit code, in every command', () => {
  let root: string;
  let file: string;
  let missing: string;
  let mine: string;
  let blocker: net.Server;
  let busy: number;
  beforeAll(async () => {
    root = await tempDir('crs-commands-');
    file = path.join(root, 'a-file');
    fs.writeFileSync(file, 'not a folder\n');
    missing = path.join(root, 'no-such-folder');
    // A folder of the user's, which no command may write over.
    mine = path.join(root, 'mine');
    fs.mkdirSync(mine);
    fs.writeFileSync(path.join(mine, 'notes.txt'), 'mine\n');
    blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    busy = (blocker.address() as net.AddressInfo).port;
    return () => void blocker.close();
  });

  /** [command, arguments, environment, exit code, the message's one line] */
  type Case = [Command, () => string[], NodeJS.ProcessEnv, number, RegExp];
  const cases: Case[] = [
    ['build', () => ['--data', missing, '--check'], {}, 2, /^the data folder .*no-such-folder does not exist/],
    ['build', () => ['--data', file, '--check'], {}, 2, /^the data folder .*a-file does not exist \(or is not a folder\)/],
    ['build', () => ['--data', 'test/fixtures/starter', '--out', path.join(file, 'out')], {}, 3, /a part of the path is a file/],
    ['build', () => ['--report', 'html'], {}, 2, /^--report must be text, json or github, got "html"$/],
    ['build', () => ['--check'], { BASE_URL: 'ftp://example.org' }, 2, /^BASE_URL must be an absolute http\(s\) address/],
    ['start', () => [], { PORT: 'eighty' }, 2, /^PORT must be a port number, got "eighty"$/],
    ['start', () => [], { PORT: '70000' }, 2, /^PORT must be a port number, got "70000"$/],
    ['start', () => [], { PORT: 'busy', HOST: '127.0.0.1' }, 2, /^PORT \d+ is in use on 127\.0\.0\.1/],
    ['dev', () => ['--port', 'x1'], {}, 2, /^--port must be a port number, got "x1"$/],
    ['dev', () => ['--data', file, '--port', '0'], {}, 2, /^the data folder .*a-file does not exist/],
    [
      'dev',
      () => ['--data', 'test/fixtures/starter', '--port', 'busy', '--host', '127.0.0.1'],
      {},
      2,
      /^port \d+ is in use on 127\.0\.0\.1/,
    ],
    ['import', () => [], {}, 2, /^--from is needed/],
    ['import', () => ['--from', missing, '--out', path.join(root, 'imported')], {}, 2, /^--from .*no-such-folder: no such folder/],
    ['import', () => ['--from', file, '--out', path.join(root, 'imported')], {}, 2, /^--from .*a-file: is a file, not a folder/],
    ['import', () => ['--from', 'test/fixtures/pokeapi-world', '--out', path.join(file, 'x')], {}, 2, /^--out .*a-file is a file/],
    // A folder holding the project holds its cache too: the command says what is wrong with it, not the cache.
    ['import', () => ['--from', 'test/fixtures/pokeapi-world', '--out', '/'], {}, 2, /^--out \/: holds --from; choose another folder$/],
    ['diff', () => [], {}, 2, /^--base is needed/],
    ['diff', () => ['--base', missing], {}, 2, /^--base .*no-such-folder: no such folder, and no such revision/],
    ['diff', () => ['--base', file], {}, 2, /^--base .*a-file: is a file, not a folder$/],
    ['diff', () => ['--base', root, '--data', missing], {}, 2, /^--data .*no-such-folder: no such folder$/],
    ['diff', () => ['--base', root, '--data', file], {}, 2, /^--data .*a-file: is a file, not a folder$/],
    ['diff', () => ['--base', root, '--report', 'html'], {}, 2, /^--report must be text, json or markdown, got "html"$/],
    [
      'gen:world',
      () => ['--scale', 'big', '--out', path.join(root, 'w')],
      {},
      2,
      /^--scale takes a number above 0 and at most \d+; got "big"$/,
    ],
    ['gen:world', () => ['--scale', '1e9', '--out', path.join(root, 'w')], {}, 2, /^--scale takes a number above 0 and at most/],
    ['gen:world', () => ['--seed', 'x', '--out', path.join(root, 'w')], {}, 2, /^--seed takes a whole number; got "x"$/],
    ['gen:world', () => ['--scale', '0.01'], {}, 2, /^--out is needed/],
    [
      'gen:world',
      () => ['--scale', '0.01', '--out', path.join(file, 'w')],
      {},
      2,
      /^--out .*a-file is a file, so nothing can be made under it$/,
    ],
    ['gen:world', () => ['--scale', '0.01', '--out', mine], {}, 2, /^--out .*mine: holds notes\.txt, which the build did not make/],
    ['gen:world', () => ['--scale', '0.01', '--out', 'data/more'], {}, 2, /^--out data\/more: is inside the data folder/],
    ['gen:world', () => ['--scale', '0.01', '--out', '/proc/crs-world'], {}, 2, /^--out \/proc\/crs-world: is under \/proc/],
    ['bench', () => ['--runs', '2'], {}, 2, /^bench: --runs takes a whole number of 3 or more; got 2$/],
    ['bench', () => ['--scales', '1000'], {}, 2, /^bench: --scales takes positive numbers, at most 100, as 1,10; got 1000$/],
    ['bench', () => ['--settle=-1'], {}, 2, /^bench: --settle takes seconds, 0 or more; got -1$/],
    ['bench', () => ['--dev', '--scales', '1'], {}, 2, /^bench: --dev times the dev loop on the shipped world alone/],
    ['bench', () => ['--scales', '0.01', '--against', 'no-such-revision'], {}, 2, /^bench: no-such-revision: no such revision/],
  ];

  it('a table of bad values, missing folders, files where folders belong, and a port in use', { timeout: 120_000 }, async () => {
    const before = fs.readdirSync(root).sort();
    const withPort = (values: string[]) => values.map((v) => (v === 'busy' ? String(busy) : v));
    const ran = await inTurns(cases, 3, ([command, args, env]) =>
      run(command, withPort(args()), Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === 'busy' ? String(busy) : v]))),
    );
    for (const [i, [command, args, , code, message]] of cases.entries()) {
      const shown = `${command} ${args().join(' ')}`;
      const result = ran[i]!;
      expect(result.code, `${shown}: ${result.stderr}`).toBe(code);
      expect(result.stderr, shown).not.toMatch(TRACE);
      expect(said(result), shown).toHaveLength(1);
      expect(said(result)[0], shown).toMatch(message);
    }
    // Nothing was made or changed beside them: the user's folder is as it was.
    expect(fs.readdirSync(root).sort()).toEqual(before);
    expect(fs.readdirSync(mine)).toEqual(['notes.txt']);
  });
});

describe('npm run diff: a base folder that is half a build', () => {
  let whole: string;
  let data: string;
  beforeAll(async () => {
    const w = await fixtureWorld();
    await buildWorld({ dataDir: w.data, outDir: w.out, plain: true });
    [whole, data] = [w.out, w.data];
  });

  /** A copy of the whole build, broken by `spoil`. */
  const spoiled = async (spoil: (dir: string) => void) => {
    const dir = path.join(await tempDir('crs-half-'), 'base');
    fs.cpSync(whole, dir, { recursive: true });
    spoil(dir);
    return dir;
  };
  const cases: Array<[string, (dir: string) => void, RegExp]> = [
    [
      'a kind missing',
      (dir) => fs.rmSync(path.join(dir, 'api/v2/type'), { recursive: true }),
      /api\/v2\/type\/index\.json does not exist$/,
    ],
    ['a record missing', (dir) => fs.rmSync(path.join(dir, 'api/v2/stat/2/index.json')), /api\/v2\/stat\/2\/index\.json does not exist$/],
    ['a record cut short', (dir) => cut(path.join(dir, 'api/v2/type/2/index.json')), /api\/v2\/type\/2\/index\.json is not JSON \(/],
    [
      'the index not JSON',
      (dir) => fs.writeFileSync(path.join(dir, 'api/v2/index.json'), 'nope\n\x1b[2J'),
      /api\/v2\/index\.json is not JSON \(.*\\x0a/,
    ],
    [
      'a list of another shape',
      (dir) => fs.writeFileSync(path.join(dir, 'api/v2/stat/index.json'), '{"results": 3}'),
      /api\/v2\/stat\/index\.json is not a list the build writes/,
    ],
    [
      'a record that is a FIFO',
      (dir) => fifo(path.join(dir, 'api/v2/gender/1/index.json')),
      /api\/v2\/gender\/1\/index\.json is a FIFO \(a named pipe\), not a regular file$/,
    ],
    [
      'a record linked out of the folder',
      (dir) => linkOut(dir, 'api/v2/gender/2/index.json'),
      /api\/v2\/gender\/2\/index\.json leads to .*, outside /,
    ],
  ];

  it('is refused in one line naming the file and what is wrong with it, exit code 2', { timeout: 90_000 }, async () => {
    const bases = [];
    for (const [, spoil] of cases) bases.push(await spoiled(spoil));
    const ran = await inTurns(bases, 2, (base) => run('diff', ['--base', base, '--data', data]));
    for (const [i, [what, , message]] of cases.entries()) {
      const result = ran[i]!;
      expect(result.code, `${what}: ${result.stderr}`).toBe(2);
      expect(result.stderr, what).not.toMatch(TRACE);
      expect(said(result), what).toHaveLength(1);
      expect(said(result)[0], what).toMatch(new RegExp(`^--base ${escape(bases[i]!)}: `));
      expect(said(result)[0], what).toMatch(message);
      expect(result.stdout, what).toBe('');
    }
  });
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function cut(file: string): void {
  const text = fs.readFileSync(file, 'utf8');
  fs.writeFileSync(file, text.slice(0, text.length / 2));
}

function fifo(file: string): void {
  fs.rmSync(file);
  spawnSync('mkfifo', [file]);
}

/** Replaces `rel` in `dir` with a link to a file beside `dir`. */
function linkOut(dir: string, rel: string): void {
  const outside = path.join(path.dirname(dir), 'elsewhere.json');
  fs.writeFileSync(outside, '{"id": 2}');
  fs.rmSync(path.join(dir, rel));
  fs.symlinkSync(outside, path.join(dir, rel));
}

// The trust boundaries of a build's input: sources are regular files inside the data folder (a link
// leading out of it, a FIFO or a device is refused, saying what it is), and BASE_URL is checked
// whole before any record is read. Non-UTF-8 text has fixtures of its own in fixtures/bad.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkBaseUrl, UsageError } from '../build/config.ts';
import { projectRoot } from '../build/paths.ts';
import { formatProblems, type Problem } from '../build/report/problems.ts';
import { buildProblems, buildWorld, fixtureWorld, snapshot, tempDir } from './helpers.ts';

/** The problem reported for `file`, which must be there. */
function problemAt(problems: Problem[], file: string): Problem {
  const found = problems.find((p) => p.file === file);
  expect(found, `problems were:\n${formatProblems(problems)}`).toBeDefined();
  return found!;
}

describe('sources are regular files inside the data folder', () => {
  it('refuses a record file that links out of the data folder, naming the link and its target', async () => {
    const world = await fixtureWorld();
    await buildWorld({ dataDir: world.data, outDir: world.out });
    const before = await snapshot(world.out);
    const outside = path.join(await tempDir(), 'secret.yaml');
    fs.writeFileSync(outside, 'id: 77\nname: secret\n');
    fs.symlinkSync(outside, path.join(world.data, 'gender', 'secret.yaml'));

    const problems = await buildProblems({ dataDir: world.data, outDir: world.out });
    const problem = problemAt(problems, 'data/gender/secret.yaml');
    expect(problem.message).toBe(
      `the entry is a link to ${fs.realpathSync(outside)}, outside the data folder: only what is inside it is read`,
    );
    expect(problems).toHaveLength(1);
    expect(await snapshot(world.out)).toEqual(before);
  });

  it("refuses a kind's folder that links out of the data folder, and reads nothing through it", async () => {
    const world = await fixtureWorld();
    const elsewhere = path.join(await tempDir(), 'natures');
    fs.mkdirSync(elsewhere);
    fs.writeFileSync(path.join(elsewhere, 'calm.yaml'), 'id: 1\nname: calm\n: [unparsable\n');
    fs.symlinkSync(elsewhere, path.join(world.data, 'nature-x'));

    const problems = await buildProblems({ dataDir: world.data, outDir: world.out });
    expect(problemAt(problems, 'data/nature-x').message).toContain(`a link to ${fs.realpathSync(elsewhere)}, outside the data folder`);
    // Its file was never opened: an unparsable record there would have been reported.
    expect(problems.filter((p) => p.file.startsWith('data/nature-x/'))).toEqual([]);
    expect(problems).toHaveLength(1);
  });

  it('reads a link that stays inside the data folder, and a data folder reached through a link', async () => {
    const world = await fixtureWorld();
    const expected = await buildWorld({ dataDir: world.data, outDir: path.join(world.root, 'plain') });
    fs.renameSync(path.join(world.data, 'gender', 'female.yaml'), path.join(world.data, 'female.kept'));
    fs.symlinkSync('../female.kept', path.join(world.data, 'gender', 'female.yaml'));
    const linkedData = path.join(world.root, 'linked-data');
    fs.symlinkSync(world.data, linkedData);
    // `female.kept` is not named as a record, so it is not read but through the link.
    const result = await buildWorld({ dataDir: linkedData, outDir: world.out });
    expect(result.records).toEqual(expected.records);
  });

  it('refuses a FIFO, and a link leading nowhere, saying what each is', async () => {
    const world = await fixtureWorld();
    execFileSync('mkfifo', [path.join(world.data, 'type', 'fifo.yaml')]);
    fs.symlinkSync(path.join(world.root, 'gone.yaml'), path.join(world.data, 'type', 'gone.yaml'));

    // Reading the FIFO would wait forever for a writer: the build finishing at all shows it was not opened.
    const problems = await buildProblems({ dataDir: world.data, outDir: world.out });
    expect(problemAt(problems, 'data/type/fifo.yaml').message).toBe(
      'the entry is a FIFO (a named pipe), not a file: only regular files are read',
    );
    expect(problemAt(problems, 'data/type/gone.yaml').message).toBe(
      `the entry is a link to ${path.join(world.root, 'gone.yaml')}, which does not exist`,
    );
    expect(problems).toHaveLength(2);
  });

  // A link whose target is gone between two looks at it takes the same path; /proc holds links that
  // resolve to no path at all (a process's pipe or socket), so it gives that case every time.
  it.skipIf(process.platform !== 'linux')('refuses a link that resolves to no path, as leading nowhere', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'pipe' });
    try {
      const data = `/proc/${child.pid}`;
      const problems = await buildProblems({ dataDir: data, outDir: path.join(await tempDir(), 'dist'), check: true });
      expect(problemAt(problems, `${child.pid}/fd/0`).message).toMatch(
        /^the entry is a link to (pipe|socket):\[\d+\], which does not exist$/,
      );
    } finally {
      child.kill();
    }
  });

  const root = process.getuid?.() === 0;
  if (!root) console.log('skipped: a device node in the data folder needs root to make (mknod)');
  it.skipIf(!root)('refuses a device, saying it is one', async (ctx) => {
    const world = await fixtureWorld();
    try {
      execFileSync('mknod', [path.join(world.data, 'type', 'null.yaml'), 'c', '1', '3'], { stdio: 'pipe' });
    } catch (err) {
      console.log(
        `skipped: this machine does not let root make a device node: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`,
      );
      return ctx.skip();
    }
    const problems = await buildProblems({ dataDir: world.data, outDir: world.out });
    expect(problemAt(problems, 'data/type/null.yaml').message).toBe(
      'the entry is a character device, not a file: only regular files are read',
    );
  });
});

describe('BASE_URL is checked whole before any record is read', () => {
  const refused: Array<[string, string]> = [
    ['http://example.org/a b', 'a space at character 21 is not one'],
    ['http://example.org/"x"', 'a double quote at character 20 is not one'],
    ['http://example.org/café', '"é" (U+00E9) at character 23 is not one'],
    ['http://example.org/%zz', 'a % not starting an escape such as %20'],
    ['http://example.org/?page=1', 'must not hold a query (?) or a fragment (#)'],
    ['http://example.org/#top', 'must not hold a query (?) or a fragment (#)'],
    ['ftp://example.org', 'must be an absolute http(s) address'],
    ['example.org', 'must be an absolute http(s) address'],
    ['https://user:secret@example.org', 'must not hold a user name or password'],
    ['http:///example.org', 'is not written as a url is: it reads as "http://example.org"'],
    ['http://example.org/a/../b', 'it reads as "http://example.org/b"'],
  ];
  it.each(refused)('refuses %s', (raw, why) => {
    expect(() => checkBaseUrl(raw)).toThrow(UsageError);
    expect(() => checkBaseUrl(raw)).toThrow(why);
    expect(() => checkBaseUrl(raw)).toThrow(/^BASE_URL /);
  });

  it.each([
    'https://example.org',
    'https://example.org/',
    'http://localhost:3000',
    'https://example.org/api/v1',
    "https://example.org/o'clock",
    'http://[::1]:8080',
  ])('accepts %s', (raw) => expect(checkBaseUrl(raw)).toBe(raw.replace(/\/$/, '')));

  it('is a usage error of the build command (exit code 2) before a broken record is reported', async () => {
    const world = await fixtureWorld();
    fs.writeFileSync(path.join(world.data, 'gender', 'female.yaml'), 'id: [broken\n');
    const run = spawnSync(process.execPath, ['build/launch.mjs', 'build', '--data', world.data, '--out', world.out], {
      cwd: projectRoot,
      env: { ...process.env, BASE_URL: 'http://example.org/my api' },
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stderr.trim()).toBe(
      'BASE_URL may hold only characters a url holds, a space at character 22 is not one (percent-encode it); it should look like https://example.org or https://example.org/api (got "http://example.org/my api")',
    );
    expect(run.stderr).not.toContain('female.yaml');
    expect(fs.existsSync(world.out)).toBe(false);
  });
});

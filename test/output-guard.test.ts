// `--out` is typed by a person: a slip must cost nothing. Every output the build did not make is
// refused before anything is touched (exit 2, one line), every path where nothing can be made ends
// at once (exit 3, one line), and the user's files are byte for byte as they were.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { checkOutput, PLAIN_MARK } from '../build/output/guard.ts';
import { UsageError } from '../build/config.ts';
import { fixturesDir, fixtureWorld, snapshot, tempDir } from './helpers.ts';

/** Runs the build as a user runs it, with a time limit: a build that never ends fails the test. */
function buildCli(args: string[], timeout = 60_000) {
  const run = spawnSync(process.execPath, ['build/launch.mjs', 'build', ...args], {
    cwd: projectRoot,
    env: { ...process.env, BASE_URL: 'http://localhost:3000', CI: 'true' },
    encoding: 'utf8',
    timeout,
  });
  return { code: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr };
}

/** A folder's entries and bytes, links included as their targets, for a before/after comparison. */
async function state(dir: string): Promise<Map<string, string>> {
  const out = await snapshot(dir);
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    if (entry.isSymbolicLink()) out.set(`${path.relative(dir, full)} ->`, fs.readlinkSync(full));
    if (!entry.isFile() && !entry.isDirectory() && !entry.isSymbolicLink()) out.set(path.relative(dir, full), 'other');
  }
  return out;
}

describe('an --out the build did not make is refused, untouched', () => {
  const cases: Array<[string, (w: { root: string; data: string }) => { out: string; data?: string }, RegExp]> = [
    ['a folder with files of the user', (w) => mine(w.root), /is a folder the build did not make \(it holds notes\.txt, photos\)/],
    ['the data folder', (w) => ({ out: w.data }), /is the data folder/],
    ['a folder inside the data folder', (w) => ({ out: path.join(w.data, 'type') }), /is inside the data folder/],
    ['a new folder inside the data folder', (w) => ({ out: path.join(w.data, 'dist') }), /is inside the data folder/],
    ['a folder holding the data folder', (w) => ({ out: w.root }), /holds the data folder/],
    ['a file', (w) => ({ out: path.join(w.root, 'README.md') }), /is a file, not a folder/],
    [
      'a link to a folder of the user',
      (w) => linkTo(w.root, mine(w.root).out),
      /is a link to .*mine, which is not one of the build's trees/,
    ],
    ['a link to the data folder', (w) => linkTo(w.root, w.data), /is the data folder/],
    ['an output whose trees folder holds a file of the user', (w) => foreignRoot(w.root), /holds diary\.txt, which it did not make/],
    // Inside an output a build made, the files would be published by it, and replaced by its next build.
    [
      'a folder inside a linked output',
      (w) => ({ out: path.join(linkedOutput(w.root), 'nested') }),
      /is inside .*\.site-builds, a build's output/,
    ],
    [
      "a folder inside a build's trees",
      (w) => ({ out: path.join(path.dirname(linkedOutput(w.root)), '.site-builds', 'x') }),
      /is inside .*\.site-builds, a build's output/,
    ],
    [
      'a folder inside a plain output',
      (w) => ({ out: path.join(plainOutput(w.root), 'nested') }),
      /is inside .*plain-site, a build's output/,
    ],
  ];
  for (const plain of [false, true]) {
    for (const [what, make, message] of cases) {
      it(`${what}${plain ? ' (--plain)' : ''}`, async () => {
        const w = await fixtureWorld();
        fs.writeFileSync(path.join(w.root, 'README.md'), '# mine\n');
        const { out, data } = make(w);
        const before = await state(w.root);
        const run = buildCli(['--data', data ?? w.data, '--out', out, ...(plain ? ['--plain'] : [])]);
        expect(run.code, run.stderr).toBe(2);
        expect(run.stderr).toMatch(message);
        expect(run.stderr).toContain(`--out ${out}:`);
        expect(run.stderr.trim().split('\n')).toHaveLength(1);
        expect(await state(w.root)).toEqual(before);
      });
    }
  }
});

function mine(root: string) {
  const out = path.join(root, 'mine');
  fs.mkdirSync(path.join(out, 'photos'), { recursive: true });
  fs.writeFileSync(path.join(out, 'notes.txt'), 'do not lose\n');
  fs.writeFileSync(path.join(out, 'photos', 'a.jpg'), 'jpeg');
  return { out };
}

function linkTo(root: string, target: string) {
  const out = path.join(root, 'out');
  fs.symlinkSync(target, out);
  return { out };
}

/** An output as a build leaves it, `site` a link to the first of its trees: its path. */
function linkedOutput(root: string): string {
  fs.mkdirSync(path.join(root, '.site-builds', 'a', 'api'), { recursive: true });
  fs.writeFileSync(path.join(root, '.site-builds', 'a.manifest'), '');
  fs.symlinkSync(path.join('.site-builds', 'a'), path.join(root, 'site'));
  return path.join(root, 'site');
}

/** An output as `--plain` leaves it, marked: its path. */
function plainOutput(root: string): string {
  fs.mkdirSync(path.join(root, 'plain-site', 'api'), { recursive: true });
  fs.writeFileSync(path.join(root, 'plain-site', PLAIN_MARK), 'marked\n');
  return path.join(root, 'plain-site');
}

function foreignRoot(root: string) {
  fs.mkdirSync(path.join(root, '.site-builds'));
  fs.writeFileSync(path.join(root, '.site-builds', 'diary.txt'), 'mine\n');
  return { out: path.join(root, 'site') };
}

describe('the project folder is refused, and any folder holding it', () => {
  // Tried on the pure check with a stand-in project: a regression here run as a whole build would
  // replace the checkout the tests run from.
  it('names it', async () => {
    const root = await tempDir();
    const project = path.join(root, 'project');
    fs.mkdirSync(path.join(project, 'data'), { recursive: true });
    const check = (out: string) =>
      checkOutput({
        outDir: out,
        root: path.join(path.dirname(out), `.${path.basename(out)}-builds`),
        dataDir: path.join(project, 'data'),
        projectRoot: project,
      });
    await expect(check(project)).rejects.toThrow(
      new UsageError(`--out ${project}: is the project folder; the build replaces only an output it made (choose another --out)`),
    );
    await expect(check(root)).rejects.toThrow(/holds the project folder/);
    await expect(check('/')).rejects.toThrow(/holds the project folder/);
    await expect(check(path.join(project, 'dist'))).resolves.toBe('none');
  });
});

describe('an option given an empty value is refused, not taken as its default', () => {
  // `--out "$OUT"` with OUT unset. Taken as the default, the build would replace the project's own
  // dist/, the dev loop would watch the folder it was started in, the importer would write there.
  const commands: Array<[string, (w: { data: string; out: string }) => string[]]> = [
    ['build --out', (w) => ['build', '--data', w.data, '--out', '']],
    ['build --data', (w) => ['build', '--data', '', '--out', w.out]],
    ['build --report', (w) => ['build', '--data', w.data, '--out', w.out, '--report', ' ']],
    ['dev --data', () => ['dev', '--data', '', '--port', '0']],
    ['import --out', (w) => ['import', '--from', w.data, '--out', '']],
    ['diff --base', () => ['diff', '--base', '']],
  ];
  for (const [what, args] of commands) {
    it(what, async () => {
      const w = await fixtureWorld();
      const own = path.join(projectRoot, 'dist');
      const stamp = () => {
        const s = fs.lstatSync(own, { throwIfNoEntry: false });
        return s && `${s.ino} ${s.mtimeMs}`;
      };
      const before = [stamp(), await state(w.root)];
      const argv = args(w);
      const run = spawnSync(process.execPath, [path.join(projectRoot, 'build/launch.mjs'), ...argv], {
        cwd: w.root,
        env: { ...process.env, BASE_URL: 'http://localhost:3000', CI: 'true' },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr.split('\n')[0]).toBe(
        `${argv[argv.indexOf('') >= 0 ? argv.indexOf('') - 1 : argv.indexOf(' ') - 1]} was given an empty value`,
      );
      expect([stamp(), await state(w.root)]).toEqual(before);
    });
  }
});

describe('what the build takes for its own', () => {
  it('an empty folder, a plain output it marked, and its own link', async () => {
    const w = await fixtureWorld();
    fs.mkdirSync(w.out);
    let run = buildCli(['--data', w.data, '--out', w.out, '--plain']);
    expect(run.code, run.stderr).toBe(0);
    expect(fs.lstatSync(w.out).isDirectory()).toBe(true);
    expect(fs.existsSync(path.join(w.out, PLAIN_MARK))).toBe(true);
    // A plain output keeps nothing beside it.
    expect(fs.readdirSync(w.root).sort()).toEqual(['data', 'dist']);
    run = buildCli(['--data', w.data, '--out', w.out]);
    expect(run.code, run.stderr).toBe(0);
    expect(fs.readlinkSync(w.out)).toBe('.dist-builds/a');
    run = buildCli(['--data', w.data, '--out', w.out]);
    expect(run.stdout).toContain(`nothing changed: ${w.out}/ is up to date`);
    run = buildCli(['--data', w.data, '--out', w.out, '--plain']);
    expect(run.code, run.stderr).toBe(0);
    expect(fs.readdirSync(w.root).sort()).toEqual(['data', 'dist']);
  });
});

describe('where nothing can be made, the build ends at once', () => {
  const cases: Array<[string, (root: string) => string, RegExp]> = [
    ['under a file', (root) => path.join(root, 'README.md', 'x'), /a part of the path is a file, not a folder \(ENOTDIR\)/],
    ['under /proc', () => '/proc/crs-nope', /nothing can be made there \(ENOENT\)/],
    ['a name too long', (root) => path.join(root, 'x'.repeat(300)), /the path is too long \(ENAMETOOLONG\)/],
    ['a link loop', (root) => loop(root), /too many links/],
  ];
  for (const [what, make, message] of cases) {
    it(what, async () => {
      const w = await fixtureWorld();
      fs.writeFileSync(path.join(w.root, 'README.md'), '# mine\n');
      const out = make(w.root);
      const before = await state(w.root);
      const run = buildCli(['--data', w.data, '--out', out], 20_000);
      expect(run.signal, 'the build did not end').toBeNull();
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toMatch(/internal error|\n\s+at /);
      expect(await state(w.root)).toEqual(before);
    });
  }
});

function loop(root: string): string {
  fs.symlinkSync(path.join(root, 'loop-b'), path.join(root, 'loop-a'));
  fs.symlinkSync(path.join(root, 'loop-a'), path.join(root, 'loop-b'));
  return path.join(root, 'loop-a', 'dist');
}

describe('the build lock', () => {
  it('refuses a second build in one line naming the first, exit 4', async () => {
    const w = await fixtureWorld();
    buildCli(['--data', w.data, '--out', w.out]);
    const lock = path.join(w.root, '.dist-builds', 'lock');
    // A live process holds the lock: this test's own.
    fs.writeFileSync(lock, String(process.pid));
    const run = buildCli(['--data', w.data, '--out', w.out, '--pretty']);
    expect(run.code, run.stderr).toBe(4);
    // The stage lines a build prints outside a terminal come first; the refusal is one line.
    expect(run.stderr.trim().split('\n').at(-1)).toBe(
      `another build (process ${process.pid}) is writing ${path.join(w.root, '.dist-builds')}: wait for it to end, or stop it`,
    );
    expect(fs.readFileSync(lock, 'utf8')).toBe(String(process.pid));
    fs.rmSync(lock);
  });

  it('is taken over from a build that was stopped: the next build runs', async () => {
    const w = await fixtureWorld();
    buildCli(['--data', w.data, '--out', w.out]);
    // Left by a build that was killed: a pid no process has.
    const lock = path.join(w.root, '.dist-builds', 'lock');
    fs.writeFileSync(lock, '999999999');
    const run = buildCli(['--data', w.data, '--out', w.out, '--pretty']);
    expect(run.code, run.stderr).toBe(0);
    expect(fs.existsSync(lock)).toBe(false);
  });

  it.skipIf(!fs.existsSync('/proc/sys/kernel/random/boot_id'))(
    'is taken over when its pid names another process now, as after a restart',
    async () => {
      const w = await fixtureWorld();
      buildCli(['--data', w.data, '--out', w.out]);
      // A lock names its holder's pid and when it started (the boot's id, and the clock ticks since,
      // from /proc/<pid>/stat): this test's own process, as it started, holds it...
      const boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
      const stat = fs.readFileSync('/proc/self/stat', 'utf8');
      const ticks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
      const lock = path.join(w.root, '.dist-builds', 'lock');
      fs.writeFileSync(lock, `${process.pid} ${boot}:${ticks}`);
      expect(buildCli(['--data', w.data, '--out', w.out, '--pretty']).code).toBe(4);
      // ...but one that started at another time, with the same pid, is another process: the lock is stale.
      fs.writeFileSync(lock, `${process.pid} ${boot}:1`);
      const run = buildCli(['--data', w.data, '--out', w.out, '--pretty']);
      expect(run.code, run.stderr).toBe(0);
      expect(fs.existsSync(lock)).toBe(false);
    },
  );
});

describe("the build's own trees", () => {
  it('are never written or removed through a link put in them: the build stops, removes that tree, and the next makes it again', async () => {
    const w = await fixtureWorld();
    const fire = path.join(w.data, 'type', 'fire.yaml');
    const edit = (n: number) => fs.writeFileSync(fire, fs.readFileSync(fire, 'utf8').replace(/- game_index: \d+/, `- game_index: ${n}`));
    buildCli(['--data', w.data, '--out', w.out]);
    edit(11);
    buildCli(['--data', w.data, '--out', w.out]);
    // The tree the next build writes: its types' folder moved out, a file of the user's put in it,
    // and a link to it left in its place.
    const spare = path.join(w.root, '.dist-builds', fs.readlinkSync(w.out).endsWith('a') ? 'b' : 'a');
    const mine = path.join(w.root, 'mine');
    fs.renameSync(path.join(spare, 'api', 'v2', 'type'), mine);
    fs.writeFileSync(path.join(mine, '2', 'index.json'), 'do not lose\n');
    fs.symlinkSync(mine, path.join(spare, 'api', 'v2', 'type'));
    const before = await state(mine);
    const live = fs.readlinkSync(w.out);
    edit(12);
    const run = buildCli(['--data', w.data, '--out', w.out]);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain(`could not write ${path.join(spare, 'api', 'v2', 'type')}: the build's own tree holds a link`);
    expect(await state(mine)).toEqual(before);
    expect(fs.readlinkSync(w.out)).toBe(live);
    expect(fs.existsSync(spare)).toBe(false);
    const again = buildCli(['--data', w.data, '--out', w.out]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(w.out, 'api', 'v2', 'type', '2', 'index.json'), 'utf8')).game_indices[0].game_index).toBe(
      12,
    );
    expect(await state(mine)).toEqual(before);
  });

  it('are never removed from through a link put in them either', async () => {
    const w = await fixtureWorld();
    // A language no record names, built into both trees, then removed: its files go from the tree.
    const extra = path.join(w.data, 'language', 'zz.yaml');
    fs.writeFileSync(extra, 'id: 99\nname: zz\nnames:\n  - name: Zed\n    language: en\n');
    buildCli(['--data', w.data, '--out', w.out]);
    fs.appendFileSync(path.join(w.data, 'language', 'en.yaml'), '  - name: English\n    language: zz\n');
    buildCli(['--data', w.data, '--out', w.out]);
    const spare = path.join(w.root, '.dist-builds', fs.readlinkSync(w.out).endsWith('a') ? 'b' : 'a');
    const mine = path.join(w.root, 'mine');
    fs.renameSync(path.join(spare, 'api', 'v2', 'language', '99'), mine);
    fs.symlinkSync(mine, path.join(spare, 'api', 'v2', 'language', '99'));
    const before = await state(mine);
    fs.rmSync(extra);
    fs.writeFileSync(path.join(w.data, 'language', 'en.yaml'), fs.readFileSync(path.join(fixturesDir, 'starter', 'language', 'en.yaml')));
    const run = buildCli(['--data', w.data, '--out', w.out]);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain(`could not write ${path.join(spare, 'api', 'v2', 'language', '99')}: the build's own tree holds a link`);
    expect(await state(mine)).toEqual(before);
    expect(fs.existsSync(spare)).toBe(false);
    expect(buildCli(['--data', w.data, '--out', w.out]).code).toBe(0);
    expect(fs.existsSync(path.join(w.out, 'api', 'v2', 'language', '99'))).toBe(false);
    expect(await state(mine)).toEqual(before);
  });
});

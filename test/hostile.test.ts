// What an author may legitimately write is accepted (a byte-order mark, CRLF, JSON beside YAML);
// what no record needs (a huge file) is refused plainly; the CLI reports without stack traces;
// nothing outside the output folder (and the trees kept beside it) is ever written.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MAX_FILE_BYTES } from '../build/pipeline/discover.ts';
import { projectRoot } from '../build/paths.ts';
import { buildProblems, buildWorld, fixtureWorld, fixturesDir, snapshot } from './helpers.ts';

const run = promisify(execFile);
const goodDir = path.join(fixturesDir, 'good');

/** Runs the real command, as `npm run build` runs it; resolves with its exit code and output whatever the code. */
async function cli(args: string[]) {
  try {
    const env = { ...process.env, BASE_URL: 'http://localhost:3000' }; // the test runner sets its own
    const { stdout, stderr } = await run(process.execPath, [path.join(projectRoot, 'build/launch.mjs'), 'build', ...args], {
      cwd: projectRoot,
      env,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('accepted input', () => {
  it.each(fs.readdirSync(goodDir).sort())('%s builds the same API as the plain starter world', async (name) => {
    const plain = await fixtureWorld();
    await buildWorld({ dataDir: plain.data, outDir: plain.out });
    const w = await fixtureWorld();
    const overlay = path.join(goodDir, name, 'data');
    for (const e of fs.readdirSync(overlay, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())) {
      const rel = path.relative(overlay, path.join(e.parentPath, e.name));
      const stem = rel.replace(/\.(ya?ml|json)$/, '');
      for (const ext of ['.yaml', '.yml', '.json']) fs.rmSync(path.join(w.data, stem + ext), { force: true });
      fs.copyFileSync(path.join(overlay, rel), path.join(w.data, rel));
    }
    await buildWorld({ dataDir: w.data, outDir: w.out });
    // meta's hash is of the sources as read, which may differ (line ends): every other file is the same.
    const [got, want] = [await snapshot(w.out), await snapshot(plain.out)];
    const meta = 'api/v2/meta/index.json';
    expect(JSON.parse(got.get(meta)!).hash).toMatch(/^[0-9a-f]{40}$/);
    got.delete(meta);
    want.delete(meta);
    expect(got).toEqual(want);
  });
});

describe('refused input', () => {
  it('refuses a file over the size limit without reading it as a record', async () => {
    const w = await fixtureWorld();
    const file = path.join(w.data, 'item/huge.yaml');
    fs.writeFileSync(file, `id: 90\nname: huge\n# ${'x'.repeat(MAX_FILE_BYTES)}\n`);
    const problems = await buildProblems({ dataDir: w.data, outDir: w.out });
    expect(problems).toEqual([
      expect.objectContaining({ file: 'data/item/huge.yaml', line: 1, message: expect.stringContaining('over the limit') }),
    ]);
  });

  it('refuses an empty data folder rather than publishing an API with no records', async () => {
    const w = await fixtureWorld();
    await buildWorld({ dataDir: w.data, outDir: w.out });
    const before = await snapshot(w.out);
    const empty = path.join(w.root, 'empty');
    fs.mkdirSync(path.join(empty, 'type'), { recursive: true });
    fs.writeFileSync(path.join(empty, 'type', '.gitkeep'), ''); // hidden: passed over
    const problems = await buildProblems({ dataDir: empty, outDir: w.out });
    expect(problems).toEqual([expect.objectContaining({ file: 'empty', line: 1, message: 'the data folder holds no records' })]);
    expect(await snapshot(w.out)).toEqual(before);
  });
});

describe('the command line', () => {
  it('reports problems with exit code 1, places and no stack trace; --report json is machine-readable', async () => {
    const w = await fixtureWorld();
    fs.cpSync(path.join(fixturesDir, 'bad/missing-reference/data'), w.data, { recursive: true });
    fs.cpSync(path.join(fixturesDir, 'bad/alias-bomb/data'), w.data, { recursive: true });
    const text = await cli(['--data', w.data, '--out', w.out]);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain(
      'data/type/fire.yaml:15:7 type fire at /damage_relations/double_damage_to/0: there is no type named "grasss"',
    );
    expect(text.stderr).toContain('hint: did you mean "grass"?');
    expect(text.stderr).toMatch(/2 problems in 2 files/);
    expect(text.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/); // no stack frames
    expect(fs.existsSync(w.out)).toBe(false);

    const json = await cli(['--data', w.data, '--out', w.out, '--report', 'json']);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(report.ok).toBe(false);
    expect(report.problems.map((p: { file: string }) => p.file)).toEqual(['data/gender/female.yaml', 'data/type/fire.yaml']);
    expect(report.problems[1]).toMatchObject({
      line: 15,
      column: 7,
      kind: 'type',
      record: 'fire',
      pointer: '/damage_relations/double_damage_to/0',
    });
  });

  it('checks without writing, and refuses wrong usage with exit code 2', async () => {
    const w = await fixtureWorld();
    const check = await cli(['--data', w.data, '--out', w.out, '--check']);
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/checked \d+ records .*no problems/);
    expect(fs.existsSync(w.out)).toBe(false);
    expect((await cli(['--no-such-option'])).code).toBe(2);
    const base = await run(process.execPath, [path.join(projectRoot, 'build/launch.mjs'), 'build', '--data', w.data, '--out', w.out], {
      cwd: projectRoot,
      env: { ...process.env, BASE_URL: 'not a url' },
    }).catch((e) => e);
    expect(base.code).toBe(2);
    expect(base.stderr).toContain('BASE_URL may hold only characters a url holds, a space at character 4 is not one');
  });

  it('refuses a data folder that is not there (a typo) with exit code 2, and leaves the output as it was', async () => {
    const w = await fixtureWorld();
    await buildWorld({ dataDir: w.data, outDir: w.out });
    const before = await snapshot(w.out);
    const missing = path.join(w.root, 'dat');
    const result = await cli(['--data', missing, '--out', w.out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`the data folder ${missing} does not exist`);
    expect(result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/); // no stack frames
    expect(await snapshot(w.out)).toEqual(before);
  });
});

describe('where the build writes', () => {
  it('writes only the output folder and the trees beside it, whatever the data says', async () => {
    const w = await fixtureWorld();
    const before = new Set(fs.readdirSync(w.root));
    // Names and references that look like paths are refused before anything is written at all.
    fs.writeFileSync(path.join(w.data, 'item/escape.yaml'), 'id: 70\nname: "../../escape"\ndamage: "/etc/passwd"\n');
    expect((await buildProblems({ dataDir: w.data, outDir: w.out })).length).toBeGreaterThan(0);
    expect(fs.readdirSync(w.root).sort()).toEqual([...before].sort());
    fs.rmSync(path.join(w.data, 'item/escape.yaml'));
    await buildWorld({ dataDir: w.data, outDir: w.out });
    await buildWorld({ dataDir: w.data, outDir: w.out, baseUrl: 'https://example.org' });
    const after = fs
      .readdirSync(w.root)
      .filter((f) => !before.has(f))
      .sort();
    expect(after).toEqual(['.dist-builds', 'dist']);
    const beside = fs
      .readdirSync(path.join(w.root, '.dist-builds'))
      .filter((f) => !f.startsWith('trash-'))
      .sort();
    expect(beside).toEqual(['a', 'a.manifest', 'b', 'b.manifest']);
    const files = await snapshot(w.out);
    for (const rel of files.keys())
      expect(rel).toMatch(
        /^(api\/v2|sprites|schema\/v2|assets)\/|^(404\.json|404\.html|index\.html|_headers|_redirects|_routes\.json|_worker\.js|serve\.json)$/,
      );
  });
});

// `npm run build`, `npm start` and `npm run dev` run a compiled bundle of the build (launch.mjs),
// made from the sources on first use and never run once they change; and a rebuild is a no-op only
// while nothing that shapes the output changed, the files copied into it included.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { tempDir } from './helpers.ts';

const run = promisify(execFile);

/** A copy of the project's build code (and `more` of it) beside its libraries, to edit freely. */
async function copyProject(more: string[] = []): Promise<string> {
  const root = await tempDir();
  for (const dir of ['build', ...more]) fs.cpSync(path.join(projectRoot, dir), path.join(root, dir), { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(projectRoot, file), path.join(root, file));
  fs.mkdirSync(path.join(root, 'node_modules'));
  for (const name of fs.readdirSync(path.join(projectRoot, 'node_modules'))) {
    if (name !== '.cache') fs.symlinkSync(path.join(projectRoot, 'node_modules', name), path.join(root, 'node_modules', name));
  }
  return root;
}

// The build's own default address (vitest sets BASE_URL to one of its own).
const env = { ...process.env, BASE_URL: 'http://localhost:3000' };
const launch = (root: string, ...args: string[]) =>
  run(process.execPath, [path.join(root, 'build/launch.mjs'), ...args], { cwd: root, env });
const bundles = (root: string) =>
  fs.readdirSync(path.join(root, 'node_modules/.cache/creature-reference-service/build')).filter((n) => !n.endsWith('.tmp'));

describe('the launcher', () => {
  it('runs a bundle made from the sources, and makes a new one when a source changes', async () => {
    const root = await copyProject();
    const first = await launch(root, 'build', '--help');
    expect(first.stdout).toContain('--data DIR');
    expect(bundles(root)).toHaveLength(1);
    // Run again: the same bundle.
    await launch(root, 'build', '--help');
    expect(bundles(root)).toHaveLength(1);
    // A source edited: the old bundle is never run again.
    const cli = path.join(root, 'build/cli/build.ts');
    fs.writeFileSync(cli, fs.readFileSync(cli, 'utf8').replace('--data DIR', '--data FOLDER'));
    const second = await launch(root, 'build', '--help');
    expect(second.stdout).toContain('--data FOLDER');
    expect(second.stdout).not.toContain('--data DIR');
    expect(bundles(root)).toHaveLength(2);
  });

  it('refuses an unknown command with exit code 2', async () => {
    await expect(launch(projectRoot, 'deploy')).rejects.toMatchObject({ code: 2 });
  });

  it("rebuilds when a host rule file, the hosts' code or the explorer page changes, though no record did", async () => {
    const root = await copyProject([
      'schemas',
      'explorer',
      'vite.config.ts',
      'tsconfig.json',
      'hosts/serve.json',
      'hosts/cloudflare',
      'test/fixtures/starter',
    ]);
    const build = () => launch(root, 'build', '--data', 'test/fixtures/starter', '--out', 'dist', '--report', 'json');
    const written = async () => (JSON.parse((await build()).stdout) as { written: number }).written;
    expect(await written()).toBeGreaterThan(0);
    expect(await written()).toBe(0); // nothing changed
    const rules = path.join(root, 'hosts/serve.json');
    fs.writeFileSync(rules, fs.readFileSync(rules, 'utf8').replace('max-age=300', 'max-age=600'));
    expect(await written()).toBeGreaterThan(0);
    expect(fs.readFileSync(path.join(root, 'dist/serve.json'), 'utf8')).toContain('max-age=600');
    const page = path.join(root, 'explorer/index.html');
    fs.writeFileSync(page, fs.readFileSync(page, 'utf8').replace('</body>', '<!-- edited --></body>'));
    expect(await written()).toBeGreaterThan(0);
    expect(fs.readFileSync(path.join(root, 'dist/index.html'), 'utf8')).toContain('<!-- edited -->');
    const worker = path.join(root, 'hosts/cloudflare/worker.mts');
    fs.writeFileSync(
      worker,
      fs.readFileSync(worker, 'utf8').replace("request.method !== 'HEAD'", "request.method !== 'HEAD' && request.method !== 'X-Edited'"),
    );
    expect(await written()).toBeGreaterThan(0);
    expect(fs.readFileSync(path.join(root, 'dist/_worker.js'), 'utf8')).toContain('X-Edited');
  });
});

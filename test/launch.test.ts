// `npm run build`, `npm start` and `npm run dev` run a compiled bundle of the build (launch.mjs),
// made from the sources on first use and never run once they change.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { tempDir } from './helpers.ts';

const run = promisify(execFile);

/** A copy of the project's build code beside its libraries, to edit freely. */
async function copyProject(): Promise<string> {
  const root = await tempDir();
  fs.cpSync(path.join(projectRoot, 'build'), path.join(root, 'build'), { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(projectRoot, file), path.join(root, file));
  fs.mkdirSync(path.join(root, 'node_modules'));
  for (const name of fs.readdirSync(path.join(projectRoot, 'node_modules'))) {
    if (name !== '.cache') fs.symlinkSync(path.join(projectRoot, 'node_modules', name), path.join(root, 'node_modules', name));
  }
  return root;
}

const launch = (root: string, ...args: string[]) => run(process.execPath, [path.join(root, 'build/launch.mjs'), ...args], { cwd: root });
const bundles = (root: string) => fs.readdirSync(path.join(root, 'node_modules/.cache/build')).filter((n) => !n.endsWith('.tmp'));

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
});

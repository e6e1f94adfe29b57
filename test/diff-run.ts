// What the diff's tests share (diff.test.ts, diff-revision.test.ts, signals.test.ts): edits of the
// starter world, a git repository holding a copy of the project, and `npm run diff` run as users run it.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { BASE, tempDir } from './helpers.ts';

/** Replaces what `from` matches in a file, and fails when it matches nothing (a fixture that moved on). */
export function edit(file: string, from: RegExp, to: string): void {
  const text = fs.readFileSync(file, 'utf8');
  expect(text, file).toMatch(from);
  fs.writeFileSync(file, text.replace(from, to));
}

/** Type steel (6) becomes metal: its file, and every reference to it by name. */
export function renameSteel(data: string): void {
  fs.renameSync(path.join(data, 'type/steel.yaml'), path.join(data, 'type/metal.yaml'));
  for (const rel of fs.readdirSync(data, { recursive: true }) as string[]) {
    const file = path.join(data, rel);
    if (!rel.endsWith('.yaml')) continue;
    const text = fs.readFileSync(file, 'utf8');
    if (/\bsteel\b/.test(text)) fs.writeFileSync(file, text.replace(/\bsteel\b/g, 'metal'));
  }
}

const run = promisify(execFile);

/** `npm run diff` as users run it (through the launcher), in `cwd`: its exit code and output. */
export async function diffCommand(args: string[], cwd = projectRoot) {
  const env = { ...process.env, BASE_URL: BASE };
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(cwd, 'build/launch.mjs'), 'diff', ...args], { cwd, env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const { code, stdout, stderr } = err as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

/** A git repository in a temp folder holding what the build needs of this project, the starter world as its data, one commit. */
export async function tempRepository(): Promise<string> {
  const root = await tempDir('crs-repo-');
  const parts = ['build', 'schemas', 'explorer', 'hosts/serve.json', 'hosts/cloudflare', 'package.json', 'package-lock.json'];
  for (const part of [...parts, 'tsconfig.json', 'vite.config.ts'])
    fs.cpSync(path.join(projectRoot, part), path.join(root, part), { recursive: true });
  fs.cpSync(path.join(projectRoot, 'test/fixtures/starter'), path.join(root, 'data'), { recursive: true });
  // The packages are this project's, each linked; the caches are the copy's own.
  fs.mkdirSync(path.join(root, 'node_modules'));
  for (const name of fs.readdirSync(path.join(projectRoot, 'node_modules')))
    if (name !== '.cache') fs.symlinkSync(path.join(projectRoot, 'node_modules', name), path.join(root, 'node_modules', name));
  fs.writeFileSync(path.join(root, '.gitignore'), 'node_modules\n');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@localhost', ...args], { cwd: root });
  git('init', '--quiet', '--initial-branch=main');
  git('add', '.');
  git('commit', '--quiet', '-m', 'the starter world');
  return root;
}

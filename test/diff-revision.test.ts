// `npm run diff --base REV`: the revision is built by its own build code, in a checkout of its own
// that is gone afterwards, and the working tree's records are compared with it. In the slow suite:
// it copies the project and builds two versions of its code.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { BASE, tempDir } from './helpers.ts';
import { diffCommand, edit, renameSteel } from './diff-run.ts';

/** A git repository in a temp folder holding what the build needs of this project, the starter world as its data, one commit. */
async function tempRepository(): Promise<string> {
  const root = await tempDir();
  const parts = [
    'build',
    'schemas',
    'explorer',
    'hosts/serve.json',
    'hosts/cloudflare',
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'vite.config.ts',
  ];
  for (const part of parts) fs.cpSync(path.join(projectRoot, part), path.join(root, part), { recursive: true });
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

describe('npm run diff against a git revision', () => {
  it("builds the revision by its own build code and compares the working tree's records with it", { timeout: 180_000 }, async () => {
    const repo = await tempRepository();
    renameSteel(path.join(repo, 'data'));
    // The working tree's build code moves the type icons: a base built by this code would have them moved too.
    edit(path.join(repo, 'build/paths.ts'), /`sprites\/types\//, '`sprites/type-icons/');
    const { code, stdout, stderr } = await diffCommand(['--base', 'main', '--report', 'json', '--fail-on-breaking'], repo);
    expect(code, stderr).toBe(1);
    const commit = execFileSync('git', ['rev-parse', '--short', 'main'], { cwd: repo, encoding: 'utf8' }).trim();
    const report = JSON.parse(stdout);
    expect(report.base).toBe(`main (${commit})`);
    expect(report.kinds.find((k: { kind: string }) => k.kind === 'type').renamed).toEqual([{ id: 6, from: 'steel', to: 'metal' }]);
    const gone = report.breaking.urls.map((u: { path: string }) => u.path);
    expect(gone.filter((p: string) => p.startsWith('/api/'))).toEqual(['/api/v2/type/steel/']);
    expect(gone).toContain('/sprites/types/generation-i/dawn-dusk/2.svg');
    const fire = report.kinds.find((k: { kind: string }) => k.kind === 'type').changed.find((r: { id: number }) => r.id === 2);
    expect(fire.changes).toContainEqual({
      pointer: '/sprites/generation-i/dawn-dusk/name_icon',
      before: `${BASE}/sprites/types/generation-i/dawn-dusk/2.svg`,
      after: `${BASE}/sprites/type-icons/generation-i/dawn-dusk/2.svg`,
    });
    // The checkout is gone, from the disk and from git's list.
    const worktrees = execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: repo, encoding: 'utf8' });
    expect(worktrees.match(/^worktree /gm)).toHaveLength(1);

    const unknown = await diffCommand(['--base', 'no-such-branch'], repo);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`--base no-such-branch: no such folder, and no such revision in ${fs.realpathSync(repo)}`);
  });
});

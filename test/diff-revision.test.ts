// `npm run diff --base REV`: the revision is built by its own build code, in a checkout of its own
// that is gone afterwards, and the working tree's records are compared with it. In the slow suite:
// it copies the project and builds two versions of its code.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BASE } from './helpers.ts';
import { diffCommand, edit, renameSteel, tempRepository } from './diff-run.ts';

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

// A checkout of another revision beside this one, to build it with its own code: the bench races
// it, the diff compares its API. Kept apart from the build's modules, which the bench times.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** A git worktree of another revision, set up to build with this checkout's packages. */
export interface Worktree {
  dir: string;
  /** The commit checked out, abbreviated. */
  commit: string;
  /** Set when the revision's package-lock.json is not this checkout's: its build runs on other packages than it pins. */
  warning?: string;
  /** Removes the checkout from the disk and from git's list; again, it does nothing. */
  remove(): void;
}

/** A revision git does not know: a wrong command line, told plainly. */
export class NoSuchRevision extends Error {}

const git = (repo: string, args: string[]) =>
  execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The commit `rev` names in the repository at `repo`, abbreviated. */
export function commitOf(rev: string, repo: string): string {
  try {
    return git(repo, ['rev-parse', '--verify', '--short', '--end-of-options', `${rev}^{commit}`]);
  } catch {
    throw new NoSuchRevision(`${rev}: no such revision in ${repo}`);
  }
}

/** Checks `rev` of the repository at `repo` out, detached, into a new folder under `parent`, with node_modules linked to `repo`'s. */
export function addWorktree(rev: string, parent: string, repo: string): Worktree {
  const commit = commitOf(rev, repo);
  const dir = path.join(parent, `rev-${commit}`);
  git(repo, ['worktree', 'add', '--detach', dir, commit]);
  const modules = path.join(dir, 'node_modules');
  let removed = false;
  // Once only: a stop and the code it interrupts may both remove it.
  const remove = () => {
    if (removed) return;
    removed = true;
    fs.rmSync(modules, { force: true }); // the link only: the packages are this checkout's
    git(repo, ['worktree', 'remove', '--force', dir]);
  };
  try {
    fs.symlinkSync(path.join(repo, 'node_modules'), modules, 'dir');
    const lock = (root: string) => fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8');
    const same = fs.existsSync(path.join(dir, 'package-lock.json')) && lock(dir) === lock(repo);
    const warning = same
      ? undefined
      : `${rev} (${commit}) pins other packages than this checkout's package-lock.json; its build runs on this checkout's node_modules`;
    return { dir, commit, warning, remove };
  } catch (err) {
    remove();
    throw err;
  }
}

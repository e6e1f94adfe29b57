// The two APIs a diff compares, each built into a temp folder with `--plain` and one BASE_URL, so
// that their urls compare. The base is a built API folder taken as it is, or a git revision built
// by its own build code: a revision's records fit its own schemas, which may not be this tree's,
// and what it published is what its own build made.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build } from '../pipeline/build.ts';
import { baseUrlFromEnv, UsageError } from '../config.ts';
import { folderToRead } from '../guard.mjs';
import { projectRoot } from '../paths.ts';
import { BuildFailed, formatProblems } from '../report/problems.ts';
import { onStop, stopping, stopWith } from '../tools/command.ts';
import { addWorktree, commitOf, NoSuchRevision } from '../tools/worktree.ts';
import { apiBaseUrl, NotAnApi } from './compare.ts';

/** A side that could not be built: the diff has nothing to compare (exit code 2, like wrong usage). */
export class SideFailed extends Error {}

/** A built API to compare, and what to call it in a report. */
export interface Side {
  dir: string;
  label: string;
}

/**
 * `--base` as the user gave it: a folder holding a built API, taken as it is, whose urls' address
 * the working tree is then built with; else a revision of this repository, built under `work` with
 * the address BASE_URL gives.
 */
export async function baseSide(base: string, options: { work: string; dataDir: string }): Promise<Side & { baseUrl: string }> {
  if (fs.statSync(base, { throwIfNoEntry: false })?.isDirectory()) return folderSide(base);
  const baseUrl = baseUrlFromEnv();
  return { ...(await revisionBase(base, { ...options, baseUrl })), baseUrl };
}

/** A folder given as base: it must hold a built API, its index readable (the rest is read as the diff goes). */
function folderSide(base: string): Side & { baseUrl: string } {
  const dir = folderToRead('--base', base);
  try {
    return { dir, label: base, baseUrl: apiBaseUrl(dir) };
  } catch (err) {
    if (!(err instanceof NotAnApi)) throw err;
    throw new UsageError(`--base ${base}: ${err.detail}; give a git revision or a folder npm run build -- --plain made`);
  }
}

/**
 * A revision checked out under `work` and built there by its own `npm run build`, over the same
 * data folder (relative to the repository) as the working tree. The checkout is removed before
 * this returns, or when a signal stops the diff; the built API stays in `work`.
 */
async function revisionBase(rev: string, options: RevisionOptions): Promise<Side> {
  try {
    commitOf(rev, projectRoot);
  } catch (err) {
    if (!(err instanceof NoSuchRevision)) throw err;
    // Neither a folder nor a revision: a file, say, is named as what it is.
    if (fs.existsSync(rev)) folderToRead('--base', rev);
    throw new UsageError(`--base ${rev}: no such folder, and no such revision in ${projectRoot}`);
  }
  const data = path.relative(projectRoot, options.dataDir);
  if (data.startsWith('..') || path.isAbsolute(data))
    throw new UsageError(
      `--data ${options.dataDir}: with a revision as base, the data folder must be inside the repository (${projectRoot})`,
    );
  const tree = addWorktree(rev, options.work, projectRoot);
  const forget = onStop(() => tree.remove());
  const label = `${rev} (${tree.commit})`;
  console.error(`building the base, ${label} …`);
  if (tree.warning) console.error(`warning: ${tree.warning}`);
  const out = path.join(options.work, 'base');
  try {
    await buildRevision(tree.dir, path.join(tree.dir, data), out, options.baseUrl, label);
  } finally {
    forget();
    if (!stopping()) tree.remove();
  }
  return { dir: out, label };
}

interface RevisionOptions {
  /** Where the checkout and the built API go. */
  work: string;
  dataDir: string;
  baseUrl: string;
}

/**
 * The revision's `npm run build` in its checkout, in a process group of its own, which a signal
 * that stops the diff stops too, before the checkout is removed.
 */
async function buildRevision(checkout: string, data: string, out: string, baseUrl: string, label: string): Promise<void> {
  const args = ['run', '--silent', 'build', '--', '--plain', '--data', data, '--out', out];
  const env = { ...process.env, BASE_URL: baseUrl };
  const child = spawn('npm', args, { cwd: checkout, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  stopWith(child);
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const code = await new Promise<number | string>((resolve) => {
    child.once('error', (err) => resolve(err.message));
    child.once('close', (status, signal) => resolve(status ?? signal ?? 'unknown'));
  });
  if (code !== 0) throw new SideFailed(`the base, ${label}, did not build (${code}):\n${`${stderr}\n${stdout}`.trim()}`);
}

/**
 * The working tree's records built into `out` with this tree's build. A signal that stops the diff
 * stops the build at its next step, and waits for it before the folder is removed.
 */
export async function workingSide(options: { dataDir: string; out: string; baseUrl: string }): Promise<Side> {
  const onProgress = () => {
    if (stopping()) throw new SideFailed('the diff is stopping');
  };
  const building = build({ dataDir: options.dataDir, outDir: options.out, baseUrl: options.baseUrl, plain: true, onProgress });
  const forget = onStop(() =>
    building.then(
      () => {},
      () => {},
    ),
  );
  try {
    await building;
  } catch (err) {
    if (err instanceof BuildFailed) throw new SideFailed(`the working tree's data did not build:\n${formatProblems(err.problems)}`);
    throw err;
  } finally {
    forget();
  }
  return { dir: options.out, label: 'the working tree' };
}

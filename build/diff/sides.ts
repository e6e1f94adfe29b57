// The two APIs a diff compares, each built into a temp folder with `--plain` and one BASE_URL, so
// that their urls compare. The base is a built API folder taken as it is, or a git revision built
// by its own build code: a revision's records fit its own schemas, which may not be this tree's,
// and what it published is what its own build made.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from '../pipeline/build.ts';
import { baseUrlFromEnv, UsageError } from '../config.ts';
import { projectRoot } from '../paths.ts';
import { BuildFailed, formatProblems } from '../report/problems.ts';
import { addWorktree, commitOf, NoSuchRevision } from '../tools/worktree.ts';
import { apiBaseUrl } from './compare.ts';

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
  if (fs.existsSync(base) && fs.statSync(base).isDirectory()) {
    const baseUrl = apiBaseUrl(base);
    if (!baseUrl)
      throw new UsageError(`--base ${base}: the folder holds no built API (no api/v2/index.json); give a git revision or an output folder`);
    return { dir: path.resolve(base), label: base, baseUrl };
  }
  const baseUrl = baseUrlFromEnv();
  if (!fs.existsSync(options.dataDir)) throw new UsageError(`--data ${options.dataDir}: no such folder`);
  return { ...(await revisionBase(base, { ...options, baseUrl })), baseUrl };
}

/**
 * A revision checked out under `work` and built there by its own `npm run build`, over the same
 * data folder (relative to the repository) as the working tree. The checkout is removed before
 * this returns; the built API stays in `work`.
 */
async function revisionBase(rev: string, options: RevisionOptions): Promise<Side> {
  try {
    commitOf(rev, projectRoot);
  } catch (err) {
    if (err instanceof NoSuchRevision) throw new UsageError(`--base ${rev}: no such folder, and no such revision in ${projectRoot}`);
    throw err;
  }
  const data = path.relative(projectRoot, options.dataDir);
  if (data.startsWith('..') || path.isAbsolute(data))
    throw new UsageError(
      `--data ${options.dataDir}: with a revision as base, the data folder must be inside the repository (${projectRoot})`,
    );
  const tree = addWorktree(rev, options.work, projectRoot);
  const label = `${rev} (${tree.commit})`;
  console.error(`building the base, ${label} …`);
  if (tree.warning) console.error(`warning: ${tree.warning}`);
  const out = path.join(options.work, 'base');
  try {
    await buildRevision(tree.dir, path.join(tree.dir, data), out, options.baseUrl, label);
  } finally {
    tree.remove();
  }
  return { dir: out, label };
}

interface RevisionOptions {
  /** Where the checkout and the built API go. */
  work: string;
  dataDir: string;
  baseUrl: string;
}

async function buildRevision(checkout: string, data: string, out: string, baseUrl: string, label: string): Promise<void> {
  const args = ['run', '--silent', 'build', '--', '--plain', '--data', data, '--out', out];
  try {
    await promisify(execFile)('npm', args, { cwd: checkout, env: { ...process.env, BASE_URL: baseUrl }, maxBuffer: 1 << 26 });
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    throw new SideFailed(`the base, ${label}, did not build:\n${`${stderr}\n${stdout}`.trim()}`);
  }
}

/** The working tree's records built into `out` with this tree's build. */
export async function workingSide(options: { dataDir: string; out: string; baseUrl: string }): Promise<Side> {
  try {
    await build({ dataDir: options.dataDir, outDir: options.out, baseUrl: options.baseUrl, plain: true });
  } catch (err) {
    if (err instanceof BuildFailed) throw new SideFailed(`the working tree's data did not build:\n${formatProblems(err.problems)}`);
    throw err;
  }
  return { dir: options.out, label: 'the working tree' };
}

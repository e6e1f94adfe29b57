// What a build may replace. `--out` is typed by a person, and a slip (`--out data`, `--out .`, a
// folder of their own) must not cost them their files: the build replaces only an output it made
// itself, and refuses anything else before touching it.
import fs from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../config.ts';
import { madeByBuild, PLAIN_MARK, realish, within } from '../guard.mjs';

export { PLAIN_MARK };
export const PLAIN_MARK_TEXT = 'Written by the Creature Reference Service build: the next build replaces this folder whole.\n';

/** What stands at the output path, once it is known to be the build's to replace. */
type OutputState = 'none' | 'empty' | 'linked' | 'plain';

/**
 * The names a build keeps in the folder beside its output (`.dist-builds/`); anything else there is
 * not its own. `a.records` and `b.records` are what builds before manifest 3 remembered of records.
 */
const KEPT = /^(?:[ab](?:\.manifest|\.records)?|lock(?:\.[\w.-]+)?|previous|(?:trash|link)-[\w.-]+|[ab]\.(?:manifest|records)\.tmp)$/;

export interface Places {
  outDir: string;
  /** The folder beside the output holding its trees (slots.ts, `layout`). */
  root: string;
  dataDir: string;
  projectRoot: string;
}

/** Says what stands at the output path, or refuses it (a usage error naming the path and why). */
export async function checkOutput(places: Places): Promise<OutputState> {
  const out = realish(places.outDir);
  const refuse = (why: string) =>
    new UsageError(`--out ${places.outDir}: ${why}; the build replaces only an output it made (choose another --out)`);
  const data = realish(places.dataDir);
  const project = realish(places.projectRoot);
  if (out === project) throw refuse('is the project folder');
  if (out === data) throw refuse('is the data folder');
  if (inside(project, out)) throw refuse('holds the project folder');
  if (inside(data, out)) throw refuse('holds the data folder');
  if (inside(out, data)) throw refuse('is inside the data folder');
  // Within another output (or this one's trees), it would be published by that build, and replaced by its next.
  const output = madeByBuild(realish(path.dirname(places.outDir)));
  if (output) throw refuse(`is inside ${output}, a build's output`);
  await checkRoot(places.root, refuse);
  return ownState(places, refuse);
}

async function ownState(places: Places, refuse: (why: string) => UsageError): Promise<OutputState> {
  const stat = await fs.lstat(places.outDir).catch(() => undefined);
  if (!stat) return 'none';
  if (stat.isSymbolicLink()) {
    const target = await fs.readlink(places.outDir);
    const to = path.resolve(path.dirname(places.outDir), target);
    if (to === path.join(places.root, 'a') || to === path.join(places.root, 'b')) return 'linked';
    throw refuse(`is a link to ${target}, which is not one of the build's trees`);
  }
  if (!stat.isDirectory()) throw refuse('is a file, not a folder');
  const names = await fs.readdir(places.outDir);
  if (names.length === 0) return 'empty';
  if (names.includes(PLAIN_MARK)) return 'plain';
  const shown = names.sort().slice(0, 3).join(', ') + (names.length > 3 ? ', …' : '');
  throw refuse(`is a folder the build did not make (it holds ${shown})`);
}

/** The folder beside the output must be the build's too, since the build removes what it finds there. */
async function checkRoot(root: string, refuse: (why: string) => UsageError): Promise<void> {
  const stat = await fs.lstat(root).catch(() => undefined);
  if (!stat) return;
  if (!stat.isDirectory()) throw refuse(`${root} stands where the build keeps its trees, and is not a folder`);
  const foreign = (await fs.readdir(root)).filter((name) => !KEPT.test(name));
  if (foreign.length > 0)
    throw refuse(`${root}, where the build keeps its trees, holds ${foreign.slice(0, 3).join(', ')}, which it did not make`);
}

/** Whether `child` is strictly inside `parent` (both absolute, links resolved). */
const inside = (child: string, parent: string) => child !== parent && within(child, parent);

// The two trees an output folder is built in turn into, and the lock that lets one build at a time
// write them. The output folder (`dist`) is a symbolic link to one of the trees kept beside it
// (`.dist-builds/a`, `.dist-builds/b`); each tree has a manifest (incremental/manifest.ts), which
// also holds what its build remembered of the records.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { readManifest, readManifestHeader, type Lines, type Manifest, type ManifestHeader } from '../incremental/manifest.ts';
import { writePieces } from '../cache.mjs';

/**
 * What a tree is built from, as its manifest records it. The files are given to `commit`, which asks
 * for this once it has them all.
 */
export interface Inputs {
  key: string;
  tool: string;
  settings: string;
  /** The manifest's `s` lines (incremental/manifest.ts, `sourceLines`). */
  sources: Lines;
  records: Record<string, number>;
  /** The manifest's `r` lines (incremental/memory.ts), in pieces. */
  memory: ReadonlyArray<string | Buffer>;
}

export type Slot = 'a' | 'b';

export type Layout = ReturnType<typeof layout>;

export function layout(outDir: string) {
  const parent = path.dirname(outDir);
  const root = path.join(parent, `.${path.basename(outDir)}-builds`);
  return {
    root,
    tree: (slot: Slot) => path.join(root, slot),
    manifest: (slot: Slot) => path.join(root, `${slot}.manifest`),
    lock: path.join(root, 'lock'),
    /** Where the output stands while the new one is renamed into its place, when that takes two renames. */
    previous: path.join(root, 'previous'),
  };
}

/**
 * The slot `outDir` points at, 'plain' for a folder (one the build made with `--plain`, or an empty
 * one: guard.ts has refused any other), or undefined.
 */
export async function liveSlot(outDir: string): Promise<Slot | 'plain' | undefined> {
  const stat = await fs.lstat(outDir).catch(() => undefined);
  if (!stat) return undefined;
  if (!stat.isSymbolicLink()) return 'plain';
  const target = path.basename(await fs.readlink(outDir));
  return target === 'a' || target === 'b' ? target : undefined;
}

/** Which tree the output folder is, and that tree's manifest when the folder is one of ours. */
export interface Live {
  slot: Slot | 'plain' | undefined;
  manifest?: Manifest;
}

export async function readLive(outDir: string): Promise<Live> {
  const slot = await liveSlot(outDir);
  return { slot, manifest: slot === 'a' || slot === 'b' ? await readManifest(layout(outDir).manifest(slot)) : undefined };
}

/** The first line of the live tree's manifest: what it was built from, and how many records it has. */
export async function readLiveHeader(outDir: string): Promise<ManifestHeader | undefined> {
  const slot = await liveSlot(outDir);
  return slot === 'a' || slot === 'b' ? readManifestHeader(layout(outDir).manifest(slot)) : undefined;
}

/** Removes a tree without waiting for it: deleting many files costs as much as writing them. */
export async function discard(dir: string, root: string): Promise<void> {
  const trash = path.join(root, `trash-${process.pid}-${Date.now()}`);
  try {
    await fs.rename(dir, trash);
  } catch {
    return;
  }
  spawn('rm', ['-rf', trash], { detached: true, stdio: 'ignore' }).unref();
}

/** Another build holds the lock: it is named, and this one stops before touching anything. */
export class Busy extends Error {
  constructor(
    readonly holder: number,
    readonly dir: string,
  ) {
    super(`another build (process ${holder}) is writing ${dir}: wait for it to end, or stop it`);
  }
}

/**
 * Takes the build lock, or says who holds it. The lock file is made whole, holding its owner's pid,
 * and then linked into place, so no reader ever sees it empty. A lock whose owner is gone is taken
 * over under a second lock (`breaking`), so that two builds finding the same stale lock cannot both
 * remove it, the second removing the lock the first has just taken.
 */
export async function lock(file: string): Promise<() => Promise<void>> {
  const mine = `${file}.${process.pid}`;
  await fs.rm(mine, { force: true });
  await fs.writeFile(mine, `${process.pid} ${startedOf('self')}`, { flag: 'wx' });
  try {
    for (const deadline = Date.now() + LOCK_WAIT_MS; Date.now() < deadline;) {
      if (await linked(mine, file)) return () => release(file);
      const holder = await holderOf(file);
      if (holder === null) continue; // let go meanwhile: link again
      if (holder !== undefined && alive(holder)) throw new Busy(holder.pid, path.dirname(file));
      await breakStale(file, holder, mine);
    }
    throw new Error(`cannot take the build lock ${file}`);
  } finally {
    await fs.rm(mine, { force: true });
  }
}

/**
 * How long a build goes on trying to take a lock it finds stale while other builds do the same: the
 * one removing it may be slow to be scheduled on a busy machine, and the others wait for it.
 */
const LOCK_WAIT_MS = 10_000;

async function linked(from: string, to: string): Promise<boolean> {
  try {
    await fs.link(from, to);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/** A lock's holder as its file says: the pid, and when that process started (`startedOf`; '' in a lock without it). */
interface Holder {
  pid: number;
  started: string;
}

/** The holder a lock names; undefined when it names no pid (it was made by hand), null when there is no lock. */
async function holderOf(file: string): Promise<Holder | undefined | null> {
  const text = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return null;
  const [pidText = '', started = ''] = text.trim().split(' ');
  const pid = Number(pidText);
  return Number.isInteger(pid) && pid > 0 ? { pid, started } : undefined;
}

const sameHolder = (a: Holder | undefined | null, b: Holder | undefined | null) =>
  a === b || (!!a && !!b && a.pid === b.pid && a.started === b.started);

/**
 * Removes a lock left by a build that was stopped, if it is still there holding `holder`: under the
 * `breaking` lock, which is held only between a read and a removal. While a stale lock stands, no
 * build can link its own in its place, so what was read is what is removed; a lock found gone is
 * left for the next link, which another build may be making. A `breaking` lock left by a build
 * killed in that moment is itself removed once its owner is gone.
 */
async function breakStale(file: string, holder: Holder | undefined, mine: string): Promise<void> {
  const breaking = `${file}.breaking`;
  // Made whole like the lock itself, from the file holding this build's pid.
  if (!(await linked(mine, breaking))) {
    const other = await holderOf(breaking);
    if (other !== null && (other === undefined || !alive(other))) await fs.rm(breaking, { force: true });
    await new Promise((resolve) => setTimeout(resolve, 5));
    return;
  }
  try {
    if (sameHolder(await holderOf(file), holder)) await fs.rm(file, { force: true });
  } finally {
    await fs.rm(breaking, { force: true });
  }
}

/** Removes the lock only while it is still this build's. */
async function release(file: string): Promise<void> {
  if ((await holderOf(file))?.pid === process.pid) await fs.rm(file, { force: true });
}

/**
 * Whether the build that holds a lock still runs: its pid names a process, and the same one (one
 * started later with that pid, as after a reboot, is another: its lock is stale).
 */
function alive({ pid, started }: Holder): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return started === '' || started === startedOf(pid);
}

/**
 * When a process started, as Linux tells it: the boot's id and the clock ticks since that boot at
 * which it started (`/proc/<pid>/stat`'s 22nd field). '' where the system does not tell.
 */
function startedOf(pid: number | 'self'): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ticks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return /^\d+$/.test(ticks) && boot ? `${boot}:${ticks}` : '';
  } catch {
    return '';
  }
}

/** Writes a tree's manifest, by a rename. */
export async function putManifest(where: Layout, slot: Slot, pieces: ReadonlyArray<string | Buffer>): Promise<void> {
  const file = where.manifest(slot);
  try {
    await fs.rm(`${file}.tmp`, { force: true });
    writePieces(`${file}.tmp`, pieces);
    await fs.rename(`${file}.tmp`, file);
  } catch (err) {
    await fs.rm(`${file}.tmp`, { force: true });
    throw err;
  }
  // Builds before manifest 3 kept the records they remembered beside the manifest.
  await fs.rm(path.join(where.root, `${slot}.records`), { force: true });
}

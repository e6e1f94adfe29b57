// Where the build's files go. The output folder (`dist`) is a symbolic link to one of two trees
// kept beside it (`.dist-builds/a`, `.dist-builds/b`). A build brings the tree that is not live up
// to date — writing only files whose bytes changed, removing files that are gone — and then
// swaps the link in one rename. Whatever happens to a build, `dist` is the last complete tree.
//
// Each tree has a manifest (path → hash) written only once the tree is complete, and removed
// before the tree is touched: a tree without one is rebuilt from scratch. Files are never written
// in place, so the two trees may share unchanged files as hard links.
import { spawn } from 'node:child_process';
import { hash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { SourceStamp } from './load.ts';
import { FileList, formatManifest, Lines, readManifest, readManifestHeader, type Manifest, type ManifestHeader } from './manifest.ts';
import { Writer } from './writer.ts';

export interface OutputFile {
  rel: string;
  /** The bytes; left out for a file the live tree holds already (`carried`, or `hash` says which). */
  body?: string | Buffer;
  /** The live tree's file at the same path, as it is. */
  carried?: true;
  /** hashBody(body), when the caller has it already. */
  hash?: string;
  /** The path emitted just before this one, holding the same bytes (a record's id path): linked to it. */
  sameAs?: string;
}

/**
 * What a tree is built from, as its manifest records it. The files are given to `commit`, which asks
 * for this once it has them all (records read late are counted and hashed as they are published).
 */
export interface Inputs {
  key: string;
  tool: string;
  sources: Iterable<[string, SourceStamp]>;
  records: Record<string, number>;
}

export interface PublishResult {
  files: number;
  /** Set when the output equals the live tree: nothing was written and nothing swapped. */
  unchanged?: number;
  bytes: number;
  written: number;
  linked: number;
  removed: number;
}

type Slot = 'a' | 'b';

export function layout(outDir: string) {
  const parent = path.dirname(outDir);
  const root = path.join(parent, `.${path.basename(outDir)}-builds`);
  return {
    root,
    tree: (slot: Slot) => path.join(root, slot),
    manifest: (slot: Slot) => path.join(root, `${slot}.manifest`),
    /** What the build remembered of its records (facts.ts), written just before the manifest. */
    memory: (slot: Slot) => path.join(root, `${slot}.records`),
    lock: path.join(root, 'lock'),
  };
}

/** The slot `outDir` points at, 'legacy' for a plain folder, or undefined. */
async function liveSlot(outDir: string): Promise<Slot | 'legacy' | undefined> {
  const stat = await fs.lstat(outDir).catch(() => undefined);
  if (!stat) return undefined;
  if (!stat.isSymbolicLink()) return 'legacy';
  const target = path.basename(await fs.readlink(outDir));
  return target === 'a' || target === 'b' ? target : undefined;
}

/** Which tree the output folder is, and that tree's manifest when the folder is one of ours. */
export interface Live {
  slot: Slot | 'legacy' | undefined;
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

/** What the build of the live tree remembered of its records, if anything. */
export async function readMemory(outDir: string, live: Live): Promise<string | undefined> {
  if (live.slot !== 'a' && live.slot !== 'b') return undefined;
  return fs.readFile(layout(outDir).memory(live.slot), 'utf8').catch(() => undefined);
}

/**
 * A path of the output (`api/v2/type/1/index.json`, as paths.ts makes them: relative, with '/',
 * nothing to normalise) inside a tree. Joined by hand: path.join, which normalises, took 1.5 µs a
 * file, 35 ms of a scale-1 build.
 */
const within = (tree: string, rel: string) => `${tree}/${rel}`;

/** A file's identity in a manifest: its size and a hash of its bytes. */
export const hashBody = (body: string | Buffer) => `${Buffer.byteLength(body)}.${hash('sha1', body, 'base64url')}`;
const sizeOf = (hash: string) => parseInt(hash, 10);

/** Removes a tree without waiting for it: deleting many files costs as much as writing them. */
async function discard(dir: string, root: string): Promise<void> {
  const trash = path.join(root, `trash-${process.pid}-${Date.now()}`);
  try {
    await fs.rename(dir, trash);
  } catch {
    return;
  }
  spawn('rm', ['-rf', trash], { detached: true, stdio: 'ignore' }).unref();
}

/** Takes the build lock, or explains who holds it. */
async function lock(file: string): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await fs.writeFile(file, String(process.pid), { flag: 'wx' });
      return () => fs.rm(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(await fs.readFile(file, 'utf8').catch(() => ''));
      if (holder && holder !== process.pid && alive(holder))
        throw new Error(`another build (process ${holder}) is writing ${path.dirname(file)}`);
      await fs.rm(file, { force: true }); // left by a build that was stopped
    }
  }
  throw new Error(`cannot take the build lock ${file}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The tree a build writes into: the one that is not live. Open it early — it takes the build lock —
 * and folders can be made while the build is still computing; `write` then `commit` finish it.
 */
export interface Tree {
  /** Starts making folders (output-relative) in the background; `abort` removes them again. */
  prepare(dirs: Iterable<string>): void;
  /**
   * Puts every file in place and swaps the tree in; `abort` instead leaves dist as it was. With
   * `plain`, the tree itself becomes the output folder: a real folder, for a host to publish.
   */
  commit(id: () => Inputs, files: Iterable<OutputFile>, plain?: boolean, memory?: () => string): Promise<PublishResult>;
  abort(): Promise<void>;
}

/** What the tree being written holds before the build touches it: path → hash. */
interface Holding {
  /** `liveHash` is the live tree's hash of the path, where the caller has it already. */
  get(rel: string, liveHash?: string): string | undefined;
  paths(): Iterable<string>;
  /** The paths it holds that the live tree does not, when that is known without going through all. */
  beyondLive?(): Iterable<string>;
}

const holding = (files?: FileList): Holding => ({ get: (rel) => files?.get(rel), paths: () => files?.keys() ?? [] });

/** The live tree's files as the other tree held them: the same, but for the live manifest's `diff`. */
function beforeLive(live: Manifest, files: FileList): Holding {
  const diff = live.diff;
  return {
    get: (rel, liveHash) => {
      const differs = diff.get(rel);
      return differs === undefined ? (liveHash ?? files.get(rel)) : differs || undefined;
    },
    *paths() {
      for (const rel of files.keys()) if (!diff.has(rel)) yield rel;
      for (const [rel, hash] of diff) if (hash !== '') yield rel;
    },
    *beyondLive() {
      for (const [rel, hash] of diff) if (hash !== '' && !files.has(rel)) yield rel;
    },
  };
}

/**
 * `known` is what the caller read of the live tree before taking the lock; its manifest is reused
 * when the link still points at the same tree (another build may have swapped it since). `started`
 * is a writer started ahead of time, which the tree takes and closes; should opening the tree fail,
 * the caller closes it.
 */
export async function openTree(outDir: string, known?: Live, started?: Writer): Promise<Tree> {
  const where = layout(outDir);
  await fs.mkdir(where.root, { recursive: true });
  const unlock = await lock(where.lock);
  try {
    const live = await liveSlot(outDir);
    const slot: Slot = live === 'a' ? 'b' : 'a';
    const tree = where.tree(slot);
    const liveTree = live === 'a' || live === 'b' ? where.tree(live) : undefined;
    const read = !liveTree ? undefined : known && known.slot === live ? known.manifest : await readManifest(where.manifest(live as Slot));
    // A manifest whose list of files is damaged tells nothing.
    const liveManifest = read?.files() ? read : undefined;
    const liveFiles = liveManifest?.files();

    // What this tree holds. When it is the tree the live one was built beside, the live manifest
    // says how it differs, and its own manifest need not be read beyond its first line. A tree
    // whose manifest is missing or damaged is built again from nothing.
    const header = await readManifestHeader(where.manifest(slot));
    let existing: Holding | undefined;
    if (header && liveFiles && liveManifest!.previous !== '' && header.key === liveManifest!.previous)
      existing = beforeLive(liveManifest!, liveFiles);
    else if (header) {
      const files = (await readManifest(where.manifest(slot)))?.files();
      if (files) existing = holding(files);
    }
    const before = existing !== undefined;
    existing ??= holding();
    if (!before) await discard(tree, where.root);
    await fs.mkdir(tree, { recursive: true });
    // Before the first file of the tree changes, its manifest goes: until a new one is written, the
    // tree is not to be trusted. (Folders made early change no file.)
    let trusted = before;
    const distrust = async () => {
      if (trusted) await fs.rm(where.manifest(slot), { force: true });
      trusted = false;
    };

    // Folders of records the tree holds already need not be made (each holds the record's
    // index.json); the writer makes the others.
    const writer = started ?? new Writer();
    const madeDirs = new Set<string>();

    const commit = async (
      inputs: () => Inputs,
      files: Iterable<OutputFile>,
      plain = false,
      memory?: () => string,
    ): Promise<PublishResult> => {
      const result: PublishResult = { files: 0, bytes: 0, written: 0, linked: 0, removed: 0 };
      // This tree's files in the order they come, as its manifest will list them: a file the live
      // tree holds as it is takes that tree's line. They are read back only if asked for.
      const lines = new Lines();
      let lastRel: string | undefined;
      let lastHash: string | undefined;
      let paths: FileList | undefined;
      const holds = (rel: string) => (paths ??= lines.read()).has(rel);
      // A failed write ends the build at once (the rest would be written for nothing).
      const check = () => {
        const failed = failure();
        if (failed) throw failed;
      };
      /** Queues a file; a promise only when the writer is far enough behind to wait for. */
      const schedule = (file: OutputFile, hash: string, linkTo?: string, was?: string): Promise<void> | undefined => {
        const wait = place(file, hash, linkTo, was);
        if (wait) return wait.then(check);
        check();
        return undefined;
      };
      /** `linkTo`: a path of this tree placed before, with the same bytes; `was`: the live tree's hash. */
      const place = (file: OutputFile, hash: string, linkTo?: string, was?: string) => {
        const target = within(tree, file.rel);
        const replace = existing.get(file.rel) !== undefined;
        if (linkTo) {
          result.linked++;
          return writer.add({ path: target, from: within(tree, linkTo), replace });
        }
        if (liveTree && was === hash) {
          result.linked++;
          return writer.add({ path: target, from: within(liveTree, file.rel), replace });
        }
        if (file.body === undefined) {
          writer.failed.set(target, 'no bytes for it, and the live tree does not hold them');
          return;
        }
        result.written++;
        return writer.add({ path: target, body: file.body, replace });
      };
      // Asked after every file: the first failure, if any, without copying the list.
      const failure = () => {
        const first = writer.failed.entries().next();
        return first.done ? undefined : new Error(`could not write ${first.value[0]}: ${first.value[1]}`);
      };
      // While every file so far equals the live tree's, nothing is touched: if the whole output does,
      // the live tree already is the answer. Files it would have taken from the live tree wait here.
      let diverged = false;
      const waiting: Array<OutputFile & { hash: string }> = [];
      const diverge = async () => {
        diverged = true;
        await distrust();
        for (const file of waiting.splice(0)) await schedule(file, file.hash, undefined, file.hash);
      };
      // How the live tree (the other one, once this is swapped in) differs from this one; with no
      // live tree there is nothing to say.
      const diff = liveManifest ? new Map<string, string>() : undefined;
      let shared = 0; // paths of the live tree this one holds too
      const added: string[] = []; // and the paths it lacks, when there is a live tree
      // The build failed part way (a problem found while publishing, a failed write). A first build
      // leaves nothing behind. Otherwise the files placed so far are recorded, so that the next build
      // of this tree starts from them.
      const giveUp = async () => {
        if (!diverged) return;
        await writer.flush().catch(() => {});
        if (!liveTree) return fs.rm(tree, { recursive: true, force: true });
        const state = new Map<string, string>();
        for (const rel of existing.paths()) state.set(rel, existing.get(rel)!);
        for (const [rel, hash] of lines.read()) state.set(rel, hash);
        for (const target of writer.failed.keys()) state.delete(path.relative(tree, target).split(path.sep).join('/'));
        const unfinished = { key: '', tool: inputs().tool, sources: [], records: {} };
        await writeManifest(where, slot, unfinished, state, { previous: '', diff: new Map() });
      };
      try {
        for (const file of files) {
          const line = liveFiles ? liveFiles.indexOf(file.rel) : -1;
          const was = line < 0 ? undefined : liveFiles!.hash(line);
          const hash = file.hash ?? (file.carried ? was : hashBody(file.body!));
          if (hash === undefined) throw new Error(`the live tree's manifest lacks ${file.rel}; remove the output folder and build again`);
          // A file that repeats the one just before it is linked to it.
          const linkTo = file.sameAs !== undefined && file.sameAs === lastRel && hash === lastHash ? file.sameAs : undefined;
          if (was === hash) lines.take(liveFiles!, line);
          else lines.add(file.rel, hash);
          lastRel = file.rel;
          lastHash = hash;
          result.files++;
          result.bytes += sizeOf(hash);
          if (was !== undefined) shared++;
          else if (liveManifest) added.push(file.rel);
          if (diff && was !== hash) diff.set(file.rel, was ?? '');
          if (!diverged && was === hash) {
            if (existing.get(file.rel, was) !== hash) waiting.push({ rel: file.rel, hash });
            continue;
          }
          if (!diverged) await diverge();
          if (existing.get(file.rel, was) !== hash) {
            const wait = schedule(file, hash, linkTo, was);
            if (wait) await wait;
          }
        }
      } catch (err) {
        await giveUp();
        throw err;
      }
      const id = inputs();
      if (!diverged && !plain && liveManifest && liveFiles!.size === result.files) {
        // Same bytes as the live tree: record the new inputs, write no file.
        await writeManifest(where, live as Slot, id, liveFiles!, liveManifest, memory);
        return { ...result, unchanged: result.files };
      }
      if (!diverged) await diverge();
      // The live tree (the one the next build writes into), as it differs from this one; and this
      // tree's memory and manifest, made while the writer places the last files.
      if (diff && shared < liveFiles!.size) for (const [rel, hash] of liveFiles!) if (!holds(rel)) diff.set(rel, hash);
      const texts = plain ? undefined : manifestTexts(id, lines, { previous: liveManifest?.key ?? '', diff: diff ?? new Map() }, memory);
      await writer.flush();
      const failed = failure();
      if (failed) {
        await giveUp();
        throw failed;
      }

      // What the tree holds that this build did not make. When every file of the live tree is among
      // this build's, that can only be a file the live tree lacks: those are looked through alone.
      const beyond = liveFiles && shared === liveFiles.size ? existing.beyondLive?.() : undefined;
      let gone: string[];
      if (beyond) {
        const madeHere = new Set(added);
        gone = [...beyond].filter((rel) => !madeHere.has(rel));
      } else gone = [...existing.paths()].filter((rel) => !holds(rel));
      await Promise.all(gone.map((rel) => fs.rm(path.join(tree, rel), { force: true })));
      result.removed = gone.length;
      await pruneEmptyDirs(tree, gone);

      if (plain) {
        // The tree leaves the pair: the output folder becomes a plain folder holding it.
        await fs.rm(where.manifest(slot), { force: true });
        if (live === 'legacy') await discard(outDir, where.root);
        else await fs.rm(outDir, { force: true });
        await fs.rename(tree, outDir);
        return result;
      }
      await putManifest(where, slot, texts!);

      // The swap: one rename of a link. A plain folder left from elsewhere is moved aside first.
      const link = path.join(where.root, `link-${process.pid}`);
      await fs.rm(link, { force: true });
      await fs.symlink(path.relative(path.dirname(outDir), tree), link);
      if (live === 'legacy') await discard(outDir, where.root);
      await fs.rename(link, outDir);
      return result;
    };

    let open = true;
    const close = async (undo = false) => {
      if (!open) return;
      open = false;
      await writer.close(undo);
      if (undo && !before) await fs.rmdir(tree).catch(() => {});
      await unlock();
      if (undo) await fs.rmdir(where.root).catch(() => {});
    };
    return {
      prepare: (list) => {
        for (const dir of list) {
          if (madeDirs.has(dir) || existing.get(`${dir}/index.json`) !== undefined) continue;
          madeDirs.add(dir);
          writer.dir(within(tree, dir));
        }
      },
      commit: async (id, files, plain, memory) => {
        let done = false;
        try {
          const result = await commit(id, files, plain, memory);
          done = true;
          return result;
        } finally {
          // A first build that fails leaves no trace (its tree is gone already).
          await close(!done && !liveTree);
        }
      },
      abort: () => close(true),
    };
  } catch (err) {
    await unlock();
    throw err;
  }
}

/**
 * Writes a tree's memory (when there is one) and then its manifest, each by a rename. `other` says
 * how the other tree differs from this one, and which build made it.
 */
async function writeManifest(
  where: ReturnType<typeof layout>,
  slot: Slot,
  id: Inputs,
  files: Iterable<[string, string]> | Lines | FileList,
  other: { previous: string; diff: Map<string, string> },
  memory?: () => string,
): Promise<void> {
  await putManifest(where, slot, manifestTexts(id, files, other, memory));
}

/** A tree's manifest and memory as they are written. */
interface ManifestTexts {
  manifest: string;
  memory?: string;
}

function manifestTexts(
  id: Inputs,
  files: Iterable<[string, string]> | Lines | FileList,
  other: { previous: string; diff: Map<string, string> },
  memory?: () => string,
): ManifestTexts {
  return { memory: memory?.(), manifest: formatManifest({ ...id, previous: other.previous, diff: other.diff, files }) };
}

async function putManifest(where: ReturnType<typeof layout>, slot: Slot, texts: ManifestTexts): Promise<void> {
  const put = async (file: string, text: string) => {
    await fs.writeFile(`${file}.tmp`, text);
    await fs.rename(`${file}.tmp`, file);
  };
  if (texts.memory !== undefined) await put(where.memory(slot), texts.memory);
  else await fs.rm(where.memory(slot), { force: true });
  await put(where.manifest(slot), texts.manifest);
}

async function pruneEmptyDirs(tree: string, removed: string[]): Promise<void> {
  const dirs = new Set<string>();
  for (const rel of removed) {
    for (let dir = path.posix.dirname(rel); dir !== '.'; dir = path.posix.dirname(dir)) dirs.add(dir);
  }
  for (const dir of [...dirs].sort((a, b) => b.length - a.length)) {
    await fs.rmdir(path.join(tree, dir)).catch(() => {});
  }
}

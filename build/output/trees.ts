// Stage 7, publish: a build brings the tree that is not live up to date — writing only files whose
// bytes changed, linking those the live tree holds, removing files that are gone — and then swaps
// the output link in one rename (slots.ts). Whatever happens to a build, `dist` is the last
// complete tree. What to do to each file is planned (plan.ts) and applied here.
//
// Each tree's manifest is written only once the tree is complete, and removed before the tree is
// touched: a tree without one is rebuilt from scratch. Files are never written in place, so the two
// trees may share unchanged files as hard links.
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isInner } from '../guard.mjs';
import { formatManifest, Lines, readManifest, readManifestHeader, type FileList, type Manifest } from '../incremental/manifest.ts';
import {
  beforeLive,
  fromLive,
  holding,
  joinPieces,
  lacking,
  planFile,
  removals,
  sizeOf,
  type FileOp,
  type Holding,
  type OutputFile,
  type Planned,
} from './plan.ts';
import { discard, layout, liveSlot, lock, putManifest } from './slots.ts';
import type { Inputs, Layout, Live, Slot } from './slots.ts';
import { Writer } from './writer.ts';
import { removeDirs, type JoinPart } from './place.ts';
import { OutputFailed, outputFailure, placingFailed } from './failure.ts';
import { PLAIN_MARK, PLAIN_MARK_TEXT } from './guard.ts';
import { FILL_STEP } from '../tuning.ts';

export { hashBody } from './plan.ts';
export { Busy, layout, readLive, readLiveHeader, type Inputs, type Live } from './slots.ts';

export interface PublishResult {
  files: number;
  /** Set when the output equals the live tree: nothing was written and nothing swapped. */
  unchanged?: number;
  bytes: number;
  written: number;
  linked: number;
  removed: number;
}

/**
 * The tree a build writes into: the one that is not live. Open it early — it takes the build lock —
 * and folders can be made while the build is still computing; `commit` then finishes it.
 */
export interface Tree {
  /** Starts making folders (output-relative) in the background, in a tree made anew; `abort` removes them again. */
  prepare(dirs: Iterable<string>): void;
  /**
   * Puts every file in place and swaps the tree in; `abort` instead leaves dist as it was. With
   * `plain`, the tree itself becomes the output folder: a real folder, for a host to publish.
   */
  commit(id: () => Inputs, files: Iterable<OutputFile>, how?: { plain?: boolean; changes?: boolean }): Promise<PublishResult>;
  abort(): Promise<void>;
  /**
   * Instead of a build: makes the tree a copy of the live one, each file a link to the live tree's,
   * and records in both manifests that the trees are the same. The next build is then built beside
   * the live tree and touches only what it changes, where it would otherwise link every file itself
   * (the first edit after a full build). The live tree is not touched and nothing is swapped.
   * `stop`, asked first and then every `step` files, ends it early: the tree is then recorded as far
   * as it got, for the next build to finish. True once the tree is one the live tree was built
   * beside (as after a build); false when stopped, or with no live manifest to fill from.
   */
  fill(stop: () => boolean, step?: number): Promise<boolean>;
  /**
   * The tree was built beside the live one, so it differs from it only as the live manifest's `diff`
   * says: `commit` may then be given, with `changes`, only the files that may differ from the live
   * tree's (every other file stays the live tree's, where the live manifest lists it).
   */
  readonly beside: boolean;
}

/** The trees as a build finds them, once it holds the lock. */
interface Opened {
  where: Layout;
  live: Slot | 'plain' | undefined;
  slot: Slot;
  tree: string;
  liveTree: string | undefined;
  liveManifest: Manifest | undefined;
  liveFiles: FileList | undefined;
  existing: Holding;
  /** Whether the tree held a build's files before (it is brought up to date rather than made anew). */
  before: boolean;
  /** Whether it is the tree the live one was built beside (`existing` is then the live manifest's `diff` of it). */
  beside: boolean;
}

/**
 * What the tree to write holds. When it is the tree the live one was built beside, the live
 * manifest says how it differs, and its own manifest need not be read beyond its first line. A tree
 * whose manifest is missing or damaged is built again from nothing.
 */
async function findTrees(outDir: string, known: Live | undefined): Promise<Opened> {
  const where = layout(outDir);
  const live = await liveSlot(outDir);
  const slot: Slot = live === 'a' ? 'b' : 'a';
  const liveTree = live === 'a' || live === 'b' ? where.tree(live) : undefined;
  const read = !liveTree ? undefined : known && known.slot === live ? known.manifest : await readManifest(where.manifest(live as Slot));
  // A manifest whose list of files is damaged tells nothing.
  const liveManifest = read?.files() ? read : undefined;
  const liveFiles = liveManifest?.files();
  const header = await readManifestHeader(where.manifest(slot));
  const beside = !!header && !!liveFiles && liveManifest!.previous !== '' && header.key === liveManifest!.previous;
  const files = beside || !header ? undefined : (await readManifest(where.manifest(slot)))?.files();
  const existing = beside ? beforeLive(liveManifest!.diff, liveFiles!) : files && holding(files);
  return {
    where,
    live,
    slot,
    tree: where.tree(slot),
    liveTree,
    liveManifest,
    liveFiles,
    existing: existing ?? holding(),
    before: existing !== undefined,
    beside,
  };
}

/**
 * `known` is what the caller read of the live tree before taking the lock; its manifest is reused
 * when the link still points at the same tree (another build may have swapped it since). `started`
 * is a writer started ahead of time, which the tree takes and closes; should opening the tree fail,
 * the caller closes it.
 */
export async function openTree(outDir: string, known?: Live, started?: Writer): Promise<Tree> {
  const { trees, unlock } = await takeTrees(outDir, known);
  const { where } = trees;
  const writer = started ?? new Writer();
  const madeDirs = new Set<string>();
  let open = true;
  let plainDone = false;
  const close = async (undo = false) => {
    if (!open) return;
    open = false;
    await writer.close(undo);
    if (undo && !trees.before) await fs.rmdir(trees.tree).catch(() => {});
    await unlock();
    // A plain output keeps nothing beside it; nor does a first build that failed.
    if (undo || plainDone) await fs.rmdir(where.root).catch(() => {});
  };
  /** Runs `work` on the tree, which is closed after, however it ends. */
  const publishing = async <T>(inputs: () => Inputs, work: (publisher: Publisher) => Promise<T>): Promise<T> => {
    let done = false;
    try {
      const result = await work(new Publisher(outDir, trees, writer, inputs));
      done = true;
      return result;
    } catch (err) {
      throw outputFailure(err);
    } finally {
      // A first build that fails leaves no trace (its tree is gone already).
      await close(!done && !trees.liveTree);
    }
  };
  return {
    // Only in a tree made anew: one kept from an earlier build is trusted by its manifest until its
    // first file changes (`diverge`), and a folder made in it by a build killed before then would
    // stay there, to be published empty. There, a new record's folder comes with its files.
    prepare: (list) => {
      if (trees.before) return;
      for (const dir of list) {
        if (madeDirs.has(dir)) continue;
        madeDirs.add(dir);
        writer.dir(within(trees.tree, dir));
      }
    },
    beside: trees.beside,
    commit: (id, files, { plain = false, changes = false } = {}) =>
      publishing(id, async (publisher) => {
        const result = await (changes ? publisher.publishChanges(files) : publisher.publish(files, plain));
        plainDone = plain;
        return result;
      }),
    abort: () => close(true),
    fill: (stop, step = FILL_STEP) =>
      publishing(
        () => fillInputs(trees.liveManifest!),
        (p) => p.fill(stop, step),
      ),
  };
}

/** Takes the build lock and finds the trees; the tree to write is made ready, emptied first unless it is to be kept. */
async function takeTrees(outDir: string, known: Live | undefined): Promise<{ trees: Opened; unlock: () => Promise<void> }> {
  const where = layout(outDir);
  const unlock = await makeFolder(where.root)
    .then(() => lock(where.lock))
    .catch((err) => Promise.reject(outputFailure(err)));
  try {
    await recover(outDir, where);
    const trees = await findTrees(outDir, known);
    if (!trees.before) await discard(trees.tree, where.root);
    await fs.mkdir(trees.tree, { recursive: true });
    return { trees, unlock };
  } catch (err) {
    await unlock();
    throw outputFailure(err);
  }
}

/** A fill has no inputs of its own: should it stop, the tree's manifest records only its files. */
const fillInputs = (live: Manifest): Inputs => ({ ...live, sources: new Lines('s'), memory: [] });

/**
 * Makes a folder and those above it, one at a time. Node's own `recursive` retries for ever where
 * nothing can be made (under /proc), and answers ENOENT for a read-only file system; asked one
 * folder at a time, the system tells the cause.
 */
async function makeFolder(dir: string): Promise<void> {
  try {
    await fs.mkdir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && (await fs.stat(dir)).isDirectory()) return;
    if (code !== 'ENOENT' || path.dirname(dir) === dir) throw err;
    await makeFolder(path.dirname(dir));
    await fs.mkdir(dir);
  }
}

/**
 * An output replaced by two renames (a folder cannot be renamed over another) stands at `previous`
 * between them: a build killed there left no output, and this puts it back. One killed after the
 * second rename left `previous` behind, which goes.
 */
async function recover(outDir: string, where: Layout): Promise<void> {
  const previous = await fs.lstat(where.previous).catch(() => undefined);
  if (!previous) return;
  if (await fs.lstat(outDir).catch(() => undefined)) await fs.rm(where.previous, { recursive: true, force: true });
  else await fs.rename(where.previous, outDir);
}

/**
 * Puts `next` (a tree, or a link to one) at the output path. A link replaces a link in one rename.
 * A folder can neither be renamed over nor take a link's place in one, so then the output is first
 * moved to `previous`, where `recover` finds it should the build be killed before the second rename.
 */
async function replaceOutput(next: string, outDir: string, where: Layout): Promise<void> {
  const stat = await fs.lstat(outDir).catch(() => undefined);
  if (stat && (stat.isDirectory() || (await fs.lstat(next)).isDirectory())) {
    await fs.rename(outDir, where.previous);
    await fs.rename(next, outDir);
    await fs.rm(where.previous, { recursive: true, force: true });
  } else await fs.rename(next, outDir);
}

/** A path of the output (relative, with '/', as paths.ts makes them) inside a tree. */
const within = (tree: string, rel: string) => `${tree}/${rel}`;

/** Applies the plan of each file to the tree, keeping its manifest's lines and the counts. */
class Publisher {
  private readonly result: PublishResult = { files: 0, bytes: 0, written: 0, linked: 0, removed: 0 };
  /** This tree's files in the order they come, as its manifest will list them. */
  private readonly lines = new Lines();
  private made: FileList | undefined;
  private last: Planned | undefined;
  /**
   * While every file so far equals the live tree's, nothing is touched: if the whole output does,
   * the live tree already is the answer. Files it would have taken from the live tree wait here.
   */
  private diverged = false;
  private readonly waiting: string[] = [];
  /** The tree's folders found to be folders (`throughFolders`). */
  private readonly folders = new Set<string>();
  /** How the live tree (the other one, once this is swapped in) differs from this one. */
  private readonly diff: Map<string, string> | undefined;
  /** Paths of the live tree this one holds too, and the paths it lacks. */
  private shared = 0;
  private readonly added: string[] = [];
  /** Files handed to the writer before they are listed in `lines`, by path, with their hashes (`publishChanges`). */
  private readonly handed = new Map<string, string>();
  /** Files joined from others (plan.ts), placed once every other file is: their parts are then in the tree. */
  private readonly joins: Array<FileOp & { op: 'join' }> = [];

  constructor(
    private readonly outDir: string,
    private readonly t: Opened,
    private readonly writer: Writer,
    private readonly inputs: () => Inputs,
  ) {
    this.diff = t.liveManifest ? new Map() : undefined;
  }

  async publish(files: Iterable<OutputFile>, plain: boolean): Promise<PublishResult> {
    await this.orGiveUp(async () => {
      for (const file of files) await this.take(file);
    });
    const { liveManifest, liveFiles } = this.t;
    if (!this.diverged && !plain && liveManifest && liveFiles!.size === this.result.files) return this.keepLive();
    await this.finish(plain);
    return this.result;
  }

  /**
   * Publishes a rebuild given only the files that may differ from the live tree's (`Tree.beside`):
   * every other file is the live tree's, at its place in the live list. This tree differs from the
   * live one only where the live manifest's `diff` says, so those files and the given ones are all
   * that is looked at: nothing goes through every file of the tree.
   */
  async publishChanges(files: Iterable<OutputFile>): Promise<PublishResult> {
    const { liveManifest, liveFiles: live } = this.t;
    if (!this.t.beside || !live) throw new Error('only a tree built beside the live one is given its changes alone');
    const planned: Planned[] = [];
    await this.orGiveUp(() => {
      // Each file given is one the live tree holds, at the same path.
      for (const file of files) {
        const p = this.plan(file);
        if (p.was === undefined) throw lacking(p.rel);
        planned.push(p);
      }
    });
    const changed = planned.filter((p) => p.was !== p.hash);
    this.result.files = this.shared = live.size;
    this.result.bytes = live.bytes() + changed.reduce((n, p) => n + sizeOf(p.hash) - sizeOf(p.was!), 0);
    if (changed.length === 0) return this.keepLive();
    await this.orGiveUp(async () => {
      await this.diverge();
      for (const p of planned) if (p.op) this.handOver(p.op, p.hash);
      // The files the live tree's build changed, which this tree still holds as they were before it.
      const given = new Set(planned.map((p) => p.rel));
      for (const rel of liveManifest!.diff.keys()) {
        const hash = given.has(rel) || !isInner(rel) ? undefined : live.get(rel);
        if (hash !== undefined) this.handOver(fromLive(rel, this.t.existing), hash);
      }
    });
    // The live list, with the lines of the files that changed made anew.
    let next = 0;
    for (const p of changed.sort((a, b) => a.line - b.line)) {
      this.diff!.set(p.rel, p.was!);
      this.lines.take(live, next, p.line);
      this.lines.add(p.rel, p.hash);
      next = p.line + 1;
    }
    this.lines.take(live, next, live.size);
    await this.finish(false);
    return this.result;
  }

  /** `Tree.fill`: every file of the live tree linked into this one, and both manifests saying the trees are the same. */
  async fill(stop: () => boolean, step: number): Promise<boolean> {
    const { where, slot, live, liveManifest, liveFiles, existing } = this.t;
    if (!liveManifest || !liveFiles || this.t.beside) return !!this.t.beside;
    if (stop()) return false; // the tree is left as it is
    let stopped = false;
    await this.orGiveUp(async () => {
      await this.diverge();
      let n = 0;
      for (const [rel, hash] of liveFiles) {
        // A path that leaves the tree is in no tree the build made: its manifest was edited.
        if (existing.get(rel) !== hash && isInner(rel)) this.handOver(fromLive(rel, existing), hash);
        // The writer's thread places a step's files while this one waits, free to hear a save.
        if (++n % step === 0) {
          await this.writer.flush();
          if ((stopped = stop())) break;
        }
      }
    });
    if (stopped) return this.giveUp(undefined).then(() => false);
    await this.placed();
    await this.remove(removals(existing, (rel) => liveFiles.has(rel), false, []));
    await putManifest(where, slot, liveManifest.restated(''));
    await putManifest(where, live as Slot, liveManifest.restated(liveManifest.key));
    return true;
  }

  /** The plan of the next file, given the one before it. */
  private plan(file: OutputFile): Planned {
    return (this.last = planFile(file, { live: this.t.liveFiles, existing: this.t.existing }, this.last));
  }

  /** Hands an operation to the writer, noting the hash the file will have: a failure records it (`record`). */
  private handOver(op: FileOp, hash: string): void {
    this.handed.set(op.rel, hash);
    this.apply(op);
  }

  /** Same bytes as the live tree: its manifest records the new inputs, and no file is written. */
  private async keepLive(): Promise<PublishResult> {
    const { previous, diff } = this.t.liveManifest!;
    await putManifest(this.t.where, this.t.live as Slot, formatManifest({ ...this.inputs(), previous, diff, files: this.t.liveFiles! }));
    return { ...this.result, unchanged: this.result.files };
  }

  /** Plans one file and applies the plan, counting it and listing it for the manifest. */
  private async take(file: OutputFile): Promise<void> {
    const planned = this.plan(file);
    const { rel, hash, was, line } = planned;
    if (was === hash) this.lines.take(this.t.liveFiles!, line);
    else this.lines.add(rel, hash);
    this.result.files++;
    this.result.bytes += sizeOf(hash);
    if (was !== undefined) this.shared++;
    else if (this.t.liveManifest) this.added.push(rel);
    if (this.diff && was !== hash) this.diff.set(rel, was ?? '');
    if (!this.diverged && was === hash) {
      if (planned.op) this.waiting.push(rel);
      return;
    }
    if (!this.diverged) await this.diverge();
    if (planned.op) this.apply(planned.op);
  }

  private async diverge(): Promise<void> {
    this.diverged = true;
    // Before the first file of the tree changes, its manifest goes: until a new one is written, the
    // tree is not to be trusted.
    if (this.t.before) await fs.rm(this.t.where.manifest(this.t.slot), { force: true });
    for (const rel of this.waiting.splice(0)) this.apply(fromLive(rel, this.t.existing));
  }

  /**
   * Refuses to write through a folder of the tree that is not one: a link put there would have the
   * build write, and remove, files outside its output. Each folder is looked at once a build, as a
   * file in it is first written or removed; one not there yet is made by the writer.
   */
  private throughFolders(target: string): void {
    if (!this.t.before) return; // a tree made anew holds only the folders this build made
    for (let dir = path.dirname(target); dir.length >= this.t.tree.length && !this.folders.has(dir); dir = path.dirname(dir)) {
      const stat = fsSync.lstatSync(dir, { throwIfNoEntry: false });
      if (stat && !stat.isDirectory()) throw new OutputFailed(dir, 'ALTERED');
      if (stat) this.folders.add(dir);
    }
  }

  /** Hands one operation to the writer; a failure so far ends the build. */
  private apply(op: FileOp): void {
    const target = within(this.t.tree, op.rel);
    this.throughFolders(target);
    if (op.op === 'missing') this.writer.failed.set(target, 'no bytes for it, and the live tree does not hold them');
    else if (op.op === 'join') {
      this.result.written++;
      this.joins.push(op);
    } else if (op.op === 'write') {
      this.result.written++;
      this.writer.add({ path: target, body: op.body, replace: op.replace });
    } else {
      this.result.linked++;
      this.writer.add({ path: target, from: within(op.live ? this.t.liveTree! : this.t.tree, op.from), replace: op.replace });
    }
    const failed = this.failure();
    if (failed) throw failed;
  }

  /** The first failure, if any, without copying the list. */
  private failure(): Error | undefined {
    const first = this.writer.failed.entries().next();
    return first.done ? undefined : placingFailed(first.value[0], first.value[1]);
  }

  private holds = (rel: string) => (this.made ??= this.lines.read()).has(rel);

  /** Once every file is given: the last files placed, the files that are gone removed, the tree swapped in. */
  private async finish(plain: boolean): Promise<void> {
    if (!this.diverged) await this.diverge();
    const { liveManifest, liveFiles } = this.t;
    if (this.diff && this.shared < liveFiles!.size) for (const [rel, hash] of liveFiles!) if (!this.holds(rel)) this.diff.set(rel, hash);
    const other = { previous: liveManifest?.key ?? '', diff: this.diff ?? new Map<string, string>() };
    // The tree's manifest is made while the writer places the last files.
    const manifest = plain ? undefined : formatManifest({ ...this.inputs(), ...other, files: this.lines });
    await this.placed();
    await this.placeJoins();
    const gone = removals(this.t.existing, this.holds, !!liveFiles && this.shared === liveFiles.size, this.added);
    await this.remove(gone);
    this.result.removed = gone.length;
    if (plain) return this.leavePair();
    await putManifest(this.t.where, this.t.slot, manifest!);
    await this.swap();
  }

  /** Removes the files the tree no longer holds, and the folders they leave empty. */
  private async remove(gone: string[]): Promise<void> {
    await this.orGiveUp(() => gone.forEach((rel) => this.throughFolders(within(this.t.tree, rel))));
    await Promise.all(gone.map((rel) => fs.rm(within(this.t.tree, rel), { force: true })));
    const dirs = new Set<string>();
    for (const rel of gone)
      for (let dir = path.posix.dirname(rel); dir !== '.'; dir = path.posix.dirname(dir)) dirs.add(within(this.t.tree, dir));
    removeDirs([...dirs]);
  }

  /** Waits for every file handed to the writer; a failure ends the build. */
  private async placed(): Promise<void> {
    await this.writer.flush();
    const failed = this.failure();
    if (!failed) return;
    await this.giveUp(failed);
    throw failed;
  }

  /** The joined files, made from the tree's files once they are all in place. */
  private async placeJoins(): Promise<void> {
    if (this.joins.length === 0) return;
    const { liveTree, liveFiles } = this.t;
    for (const op of this.joins.splice(0)) {
      // A rebuild takes the parts that did not change from the live tree's joined file, in runs,
      // rather than opening every part's file.
      const pieces = liveTree && liveFiles && joinPieces(op.join, liveFiles.get(op.rel), liveFiles);
      const liveJoined = within(liveTree ?? '', op.rel);
      const parts: JoinPart[] = pieces
        ? pieces.map((p) => ('rel' in p ? within(this.t.tree, p.rel) : { file: liveJoined, start: p.start, end: p.end }))
        : op.join.parts.map((rel) => within(this.t.tree, rel));
      this.writer.add({ path: within(this.t.tree, op.rel), join: { parts, compact: op.join.compact }, replace: op.replace });
    }
    await this.placed();
  }

  /** The swap: one rename of a link (two, from a plain output: `replaceOutput`). */
  private async swap(): Promise<void> {
    const { where, tree } = this.t;
    const link = path.join(where.root, `link-${process.pid}`);
    await fs.rm(link, { force: true });
    await fs.symlink(path.relative(path.dirname(this.outDir), tree), link);
    await replaceOutput(link, this.outDir, where);
  }

  /**
   * The tree leaves the pair: marked as the build's, it becomes the output folder, and nothing of
   * the pair stays beside it but the lock, which the build's end removes with the folder.
   */
  private async leavePair(): Promise<void> {
    const { where, tree } = this.t;
    const mark = path.join(tree, PLAIN_MARK);
    await fs.rm(mark, { force: true }); // left by a build stopped just after writing it
    await fs.writeFile(mark, PLAIN_MARK_TEXT, { flag: 'wx' });
    await replaceOutput(tree, this.outDir, where);
    for (const name of await fs.readdir(where.root))
      if (name !== path.basename(where.lock)) await fs.rm(path.join(where.root, name), { recursive: true, force: true });
  }

  /** Runs `work`; should it fail, the build gives up (`giveUp`) before the error goes on. */
  private async orGiveUp<T>(work: () => T | Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      await this.giveUp(err);
      throw err;
    }
  }

  /**
   * The build failed part way (a problem found while publishing, a failed write). A first build
   * leaves nothing behind, and neither does one the disk had no room for (its files would keep the
   * space the author must now find) or one that found its tree changed by another hand. Otherwise
   * the files placed so far are recorded, so that the next build of this tree starts from them.
   */
  private async giveUp(err: unknown): Promise<void> {
    const gone = err instanceof OutputFailed && ['ENOSPC', 'EDQUOT', 'ALTERED'].includes(err.code);
    // Recording is a courtesy to the next build: should it fail too, the tree is left without a
    // manifest, and so is built again from nothing. The first failure is the one told.
    await (gone ? this.removeTree() : this.record()).catch(() => {});
  }

  private async removeTree(): Promise<void> {
    await this.writer.flush().catch(() => {});
    await fs.rm(this.t.where.manifest(this.t.slot), { force: true });
    await fs.rm(this.t.tree, { recursive: true, force: true });
  }

  private async record(): Promise<void> {
    if (!this.diverged) return;
    await this.writer.flush().catch(() => {});
    const { tree, existing } = this.t;
    if (!this.t.liveTree) return fs.rm(tree, { recursive: true, force: true });
    const state = new Map<string, string>();
    for (const rel of existing.paths()) state.set(rel, existing.get(rel)!);
    for (const [rel, hash] of this.handed) state.set(rel, hash);
    for (const [rel, hash] of this.lines.read()) state.set(rel, hash);
    // A joined file not made yet is as it was.
    for (const { rel } of this.joins) {
      const was = existing.get(rel);
      if (was === undefined) state.delete(rel);
      else state.set(rel, was);
    }
    for (const target of this.writer.failed.keys()) state.delete(path.relative(tree, target).split(path.sep).join('/'));
    const unfinished = { key: '', tool: this.inputs().tool, settings: '', sources: [], records: {}, memory: [] };
    await putManifest(this.t.where, this.t.slot, formatManifest({ ...unfinished, previous: '', diff: new Map(), files: state }));
  }
}

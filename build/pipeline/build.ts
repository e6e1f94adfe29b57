// The pipeline: discover → parse and validate → resolve → derive → render → publish. Each stage
// is a module of its own; this one calls them in order, with one context per build.
import fs from 'node:fs';
import path from 'node:path';
import { baseUrlFromEnv, checkBaseUrl, sourceDateFromEnv } from '../config.ts';
import { readInside, UsageError } from '../guard.mjs';
import { codeFiles } from '../sources.mjs';
import { discover, type Listing } from './discover.ts';
import { hashText } from '../hash.ts';
import { readUnhashed } from './parse.ts';
import { formatMemory } from '../incremental/memory.ts';
import { sourceLines } from '../incremental/manifest.ts';
import { layout, openTree, readLive, readLiveHeader, type Inputs, type Live, type PublishResult, type Tree } from '../output/trees.ts';
import { checkOutput } from '../output/guard.ts';
import { apiPaths, defaultDataDir, defaultOutDir, hostRuleFiles, projectRoot, relativeTo } from '../paths.ts';
import { explorerFiles, sourceHash as explorerSourceHash, withWorld } from '../site/explorer.ts';
import { ENTRY as hostCodeEntry, hostCodeFiles } from '../site/host-code.ts';
import { BuildFailed, Problems } from '../report/problems.ts';
import type { Entry, Remembered, SourceFile, Store } from '../store.ts';
import type { OutputFile } from '../output/plan.ts';
import type { Context as RecordStage } from './facts.ts';
import type { CheckedRecords } from './checked.ts';
import { projectSchemas, type SchemaSet } from '../schemas/schemas.ts';
import { keepNamesCopy, namesSchemaFiles } from '../schemas/editor-schemas.ts';
import { compileValidators, type Validators } from '../schemas/validators.ts';
import { nameDirs } from './validate.ts';
import { Writer } from '../output/writer.ts';
import { withPagesIndexes } from '../output/pages.ts';
import { CHECK_ON_THREADS_FROM } from '../tuning.ts';
import { namesRule, worldSettings, worldSource, type WorldSource } from './world.ts';

/**
 * The stages that only a build with something to do needs, loaded once it is known there is: a
 * rebuild that changes nothing is over sooner than they load.
 */
const laterStages = async () => {
  const [checkPool, checked, derive, render, facts, resolve] = await Promise.all([
    import('./check-pool.ts'),
    import('./checked.ts'),
    import('./derive.ts'),
    import('./render.ts'),
    import('./facts.ts'),
    import('./resolve.ts'),
  ]);
  return { checkPool, checked, derive, render, facts, resolve };
};

export interface BuildOptions {
  dataDir?: string;
  outDir?: string;
  baseUrl?: string;
  /** Check the data and write nothing. */
  check?: boolean;
  /** Indent the published JSON. */
  pretty?: boolean;
  /** Leave the output as a plain folder rather than a link to one of two trees (for deploys). */
  plain?: boolean;
  /** With `plain`, write beside each folder's `index.json` an `index.html` of the same bytes, the only index GitHub Pages serves. */
  githubPages?: boolean;
  /**
   * A folder to keep the editors' copy of the source schemas in, offering the names of the records
   * built (editor-schemas.ts): written after a successful build, the files whose bytes changed only.
   */
  editorSchemas?: string;
  /** Told when a stage ends, and how far writing has got (records done of all). */
  onProgress?: (event: Progress) => void;
  /** Told what the data folder held when the build listed it. */
  onListed?: (listing: Listing) => void;
}

/** How a build does its work, for tests that hold every way to the same result. */
export interface Tuning {
  /** Check source files on worker threads (by default from `CHECK_ON_THREADS_FROM` bytes to parse). */
  checkOnThreads?: boolean;
}

export type Progress = { stage: string; ms: number } | { stage: 'write'; done: number; total: number };

export interface BuildResult {
  records: Record<string, number>;
  /** Files in the output, and what this build did to each: written, hard-linked, left as they were. */
  files: number;
  written: number;
  linked: number;
  unchanged: number;
  /** Files removed because their record is gone. */
  removed: number;
  /** Source files parsed; the others entered by what the last build remembered of them (facts.ts), or were taken from the cache. */
  parsed: number;
  /** Source files whose record was taken as checked from the cache (checked.ts). */
  cached: number;
  bytes: number;
  ms: number;
  /** Milliseconds spent in each stage, for the benchmark. */
  stages: Record<string, number>;
}

let compiled: Validators | undefined;
/** The schemas are read once per process, and compiled once, when a build first checks records. */
export function schemaSet(): { schemas: SchemaSet; readonly validators: Validators } {
  const schemas = projectSchemas();
  return {
    schemas,
    get validators() {
      return (compiled ??= compileValidators(schemas));
    },
  };
}

/**
 * What shapes the output, in one hash: the pipeline's code, the schemas, the locked versions of the
 * libraries, the hosts' rule files and code copied into the output and the explorer page's sources. The
 * entry points, tools, the API diff and the local server do not: editing them keeps every cache.
 */
function toolFingerprint(): string {
  if (fingerprint) return fingerprint;
  const outside = /^(cli|tools|diff)\/|^site\/serve\.ts$/;
  const code = codeFiles(path.join(projectRoot, 'build'))
    .filter((f) => !outside.test(f))
    .map((f) => `build/${f}`);
  const schemas = fs
    .readdirSync(path.join(projectRoot, 'schemas'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => `schemas/${f}`);
  // The worker's bundle comes from its source here, the paging module under build/ and esbuild, whose version the lockfile pins.
  const hosts = [...hostRuleFiles.map(([, file]) => file), hostCodeEntry].map((file) => relativeTo(projectRoot, file));
  const files = [...code, ...schemas, ...hosts, 'package-lock.json'].sort();
  const text = files.map((f) => `${f}\n${projectText(f)}`);
  return (fingerprint = hashText([...text, `explorer ${explorerSourceHash()}`].join('\n')));
}
let fingerprint: string | undefined;

/**
 * A file of the project the build is made from, read through the guard: a schema dropped into
 * schemas/ as a FIFO or a link out of the project is refused in one line, never waited on.
 */
function projectText(rel: string): string {
  const read = readInside(projectRoot, path.join(projectRoot, rel));
  if ('why' in read) throw new UsageError(`${rel}: ${read.why}`);
  return read.bytes.toString('utf8');
}

/**
 * Everything the output depends on, in one hash: same key, same bytes. Without the date, what the
 * output is made from: the hash `/api/v2/meta/` states, the same for the same sources whatever the date.
 */
function buildKey({ tool, baseUrl, options, world, date }: Context, files: SourceFile[], dated = true): string {
  const made = [tool, baseUrl, options.pretty ?? false, world.hash, ...(dated ? [date] : [])];
  return hashText([...made, ...files.map((f) => `${f.rel} ${f.hash}`)].join('\n'));
}

/** One build's settings and what it found so far, passed from stage to stage. */
interface Context {
  options: BuildOptions;
  tuning: Tuning;
  outDir: string;
  baseUrl: string;
  /** The date the API states as its own (`/api/v2/meta/`): part of the key, not of the settings, as it changes one file alone. */
  date: string;
  problems: Problems;
  tool: string;
  /** The world's settings file, read but not yet parsed (world.ts). */
  world: WorldSource;
  /** Hash of the tool, options and world settings: what the memory of records must have been made with. */
  settings: string;
  stages: Record<string, number>;
  timed: <T>(stage: string, value: T) => T;
  started: number;
}

function context(options: BuildOptions, tuning: Tuning): Context {
  const started = performance.now();
  const baseUrl = options.baseUrl ? checkBaseUrl(options.baseUrl) : baseUrlFromEnv();
  const date = sourceDateFromEnv();
  const tool = toolFingerprint();
  const problems = new Problems();
  // A change to the world's settings may change every record (its languages) and the site's pages
  // (its title): the next build is a full one, as with other settings.
  const world = worldSource(options.dataDir ?? defaultDataDir, problems);
  const stages: Record<string, number> = {};
  let mark = started;
  const timed = <T>(stage: string, value: T): T => {
    const now = performance.now();
    stages[stage] = now - mark;
    mark = now;
    options.onProgress?.({ stage, ms: stages[stage]! });
    return value;
  };
  return {
    options,
    tuning,
    outDir: options.outDir ?? defaultOutDir,
    baseUrl,
    date,
    problems,
    tool,
    world,
    settings: hashText([tool, baseUrl, options.pretty ?? false, world.hash].join('\n')),
    stages,
    timed,
    started,
  };
}

export async function build(options: BuildOptions = {}, tuning: Tuning = {}): Promise<BuildResult> {
  const ctx = context(options, tuning);
  if (!options.check)
    await checkOutput({ outDir: ctx.outDir, root: layout(ctx.outDir).root, dataDir: options.dataDir ?? defaultDataDir, projectRoot });
  const live = options.check ? undefined : await readLiveHeader(ctx.outDir);
  // With no tree built before, every file is to be written: the writer's thread, which takes tens of
  // milliseconds to start, starts now, while the sources are listed. The tree takes it when opened.
  const writer = options.check || live ? undefined : new Writer().start();
  try {
    return await run(ctx, writer);
  } finally {
    await writer?.close(); // nothing left to do once the tree that took it is closed
  }
}

const none = { files: 0, bytes: 0, written: 0, linked: 0, removed: 0, parsed: 0, cached: 0 };

async function run(ctx: Context, writer: Writer | undefined): Promise<BuildResult> {
  const { options, problems } = ctx;
  const seen: Live | undefined = options.check ? undefined : await readLive(ctx.outDir);
  const live = seen?.manifest;
  const files = ctx.timed('read', discover(options.dataDir ?? defaultDataDir, problems, live?.sources, options.onListed));
  // On a rebuild, files that changed are read now: with every hash known, the key says whether
  // anything changed at all.
  if (live) readUnhashed(files);
  const keyNow = live && files.every((f) => f.hash !== undefined) ? buildKey(ctx, files) : undefined;
  if (live && problems.count === 0 && !options.plain && live.key === keyNow) {
    // Nothing changed since the live tree was built: it is already the answer. The names copy may
    // not be, if a build of the same data into another tree (the dev loop's) wrote it since.
    if (options.editorSchemas) keepEditorSchemas(ctx, options.editorSchemas, files, keyNow);
    return { records: live.records, ...none, unchanged: live.fileCount, ms: performance.now() - ctx.started, stages: ctx.stages };
  }
  const src: Sources = { files, seen, memory: recall(ctx, seen), keyNow, tree: undefined, writer };
  let result: BuildResult;
  try {
    // A build that reads every file opens its tree now, before the later stages load: the writer
    // starts on the folders at once.
    if (!src.memory) await open(ctx, src, files);
    result = await compute(ctx, src);
  } catch (err) {
    await src.tree?.abort();
    throw err;
  }
  if (options.editorSchemas && !options.check) keepEditorSchemas(ctx, options.editorSchemas, files, keyNow ?? buildKey(ctx, files));
  return result;
}

/**
 * Opens the tree to build, unless only checking or a problem was found, and makes the folders of
 * `files`' records by name, known from the files alone (in a tree made anew; a kept tree gets a new
 * record's folder with its files: trees.ts, `prepare`).
 */
async function open(ctx: Context, src: Sources, files: SourceFile[]): Promise<void> {
  if (ctx.options.check || ctx.problems.count > 0) return;
  src.tree = await openTree(ctx.outDir, src.seen, src.writer);
  src.tree.prepare(nameDirs(files, schemaSet().schemas));
}

/**
 * The editors' copy of the source schemas, offering the names of a successful build's records: each
 * record is named as its file is (a build with a record named otherwise fails). Made again only when
 * the tool or the names differ from those it was made from.
 */
function keepEditorSchemas(ctx: Context, dir: string, files: SourceFile[], key: string): void {
  const namesKey = () => hashText([ctx.tool, ...files.map((file) => `${file.kind}/${file.stem}`)].join('\n'));
  keepNamesCopy(dir, key, namesKey, () => namesSchemaFiles(schemaSet().schemas, namesByKind(files)));
}

function namesByKind(files: SourceFile[]): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const file of files) {
    const ofKind = names.get(file.kind) ?? [];
    if (ofKind.length === 0) names.set(file.kind, ofKind);
    ofKind.push(file.stem);
  }
  return names;
}

/**
 * What the build of the live tree remembered of its records, when the same tool with the same
 * options built it and its list of files is whole (a record carried over keeps that tree's files).
 */
function recall(ctx: Context, seen: Live | undefined): Map<string, Remembered> | undefined {
  // A build for GitHub Pages makes each record's copy from its bytes (output/pages.ts): none is carried over.
  if (ctx.options.githubPages) return undefined;
  const manifest = seen?.manifest;
  if (manifest?.tool !== ctx.tool || manifest.settings !== ctx.settings || !manifest.files()) return undefined;
  return manifest.memory();
}

interface Sources {
  files: SourceFile[];
  seen: Live | undefined;
  memory: Map<string, Remembered> | undefined;
  keyNow: string | undefined;
  /** The tree being built, once opened (a rebuild opens it in `check`); aborted if the build fails. */
  tree: Tree | undefined;
  writer: Writer | undefined;
}

type Stages = Awaited<ReturnType<typeof laterStages>>;

/** What checking the sources gave: the store of records, and what is left to read or derive. */
interface Checked {
  store: Store;
  /** On a rebuild, the kinds with a record read again or removed. */
  read: Set<string> | undefined;
  /** Every record has the facts it had in the live tree's build (factsKept). */
  kept: boolean;
  /** Records checked before, for a build with no memory of the live tree's (checked.ts). */
  cache: CheckedRecords | undefined;
}

async function compute(ctx: Context, src: Sources): Promise<BuildResult> {
  const stages = await laterStages();
  const checked = await check(ctx, src, stages);
  try {
    return await render(ctx, src, stages, checked);
  } finally {
    checked.cache?.save(); // what was checked is kept, whether or not the build goes on to publish
  }
}

/** Resolves, derives and renders the records checked, then publishes them (or, with `--check`, only renders them). */
async function render(ctx: Context, src: Sources, stages: Stages, checked: Checked): Promise<BuildResult> {
  const { schemas, validators } = schemaSet();
  const { store, cache, read } = checked;
  const tree = src.tree;
  // When every record keeps its facts, only the files of records read again can change: the tree
  // built beside the live one is given those alone. Then, unless checking found a problem, only the
  // kinds read again, and those their derived fields read, are resolved: no other record's
  // references are published or derived from, and each still finds the ids and names it found. A
  // problem may be a record that lost its name, whose referrers a clean build reports.
  const changes = checked.kept && !!tree?.beside && !ctx.options.plain;
  const world = worldSettings(ctx.world, ctx.problems);
  const rule = namesRule(world, store, schemas, ctx.problems);
  const resolved = changes && ctx.problems.count === 0 ? stages.derive.readBy(read!) : undefined;
  // With problems, the build goes on only to find the rest of them.
  ctx.timed('resolve', stages.resolve.resolve(store, schemas, ctx.problems, resolved));
  ctx.timed('derive', deriveAndSettle(stages, checked, ctx.problems));
  if (ctx.problems.count > 0) failWithEveryProblem({ store, schemas, validators, problems: ctx.problems, rule }, stages);
  const live = src.seen?.manifest;
  // Records already published by this same tool were checked then; the rest are checked now.
  const output = stages.render.outputFiles(store, schemas, validators, ctx.problems, {
    pretty: ctx.options.pretty,
    published: (live?.tool === ctx.tool && live.files()) || new Map<string, string>(),
    read,
    extra:
      tree && !changes
        ? new Map<string, string | Buffer>([...ctx.timed('explorer', withWorld(await explorerFiles(), world)), ...(await hostCodeFiles())])
        : undefined,
    onRecord: ctx.options.onProgress && ((done, total) => ctx.options.onProgress!({ stage: 'write', done, total })),
    changes,
    world,
    rule,
    // Every file is hashed once checked.
    meta: { date: ctx.date, hash: buildKey(ctx, src.files, false) },
  });
  const result = tree ? await publish(ctx, src, store, tree, output, changes) : checkOnly(ctx, output);
  compiled?.keepCodeCache();
  // Counted once the output is made: a remembered record read again to publish it was parsed.
  const cached = cache?.taken ?? 0;
  const parsed = src.files.filter((f) => !f.known).length - cached;
  return { records: counts(store), ...result, parsed, cached, ms: performance.now() - ctx.started, stages: ctx.stages };
}

/**
 * Parses and checks every source not remembered, on worker threads when there are many; a rebuild
 * first decides which files it reads again (facts.ts) and opens its tree once it knows.
 */
async function check(ctx: Context, src: Sources, stages: Stages): Promise<Checked> {
  const { problems } = ctx;
  const { files, memory } = src;
  const set = schemaSet();
  const { schemas } = set;
  const { reuse, factsKept } = stages.facts;
  // With memory, the files read again, and the kinds they (or records removed) belong to.
  const read = memory ? ctx.timed('reuse', reuse(files, memory, schemas, problems)) : undefined;
  // Many files to read go to worker threads.
  const unread = files.filter((f) => !f.known && f.parsed === undefined);
  const threads = ctx.tuning.checkOnThreads ?? unread.reduce((bytes, f) => bytes + f.size, 0) >= CHECK_ON_THREADS_FROM;
  // A rebuild opens its tree once it knows which files it reads again.
  if (memory) await open(ctx, src, unread);
  const tree = src.tree;
  // A build that cannot go by the live tree's memory takes the records checked before from the cache.
  const cache = memory ? undefined : new stages.checked.CheckedRecords(ctx.tool, schemas.kinds.size);
  // Each record read is given its folder by id as soon as it reads well, for as long as no problem
  // is found (they are removed again if one is).
  const prepare = (entry: Entry) => {
    if (tree && problems.count === 0) tree.prepare([apiPaths.recordDir(entry.kind, entry.id)]);
  };
  // The validators are compiled when this thread first checks a file (on threads, while they work).
  const validate = stages.checkPool.validate(files, schemas, () => set.validators, ctx.baseUrl, problems, threads, prepare, cache);
  const store = ctx.timed('validate', await validate);
  const kept = !!read && factsKept(store, files, memory!, read);
  return { store, read, kept, cache };
}

/** Derives every kind a rebuild may change (every kind, in a first build) and settles them (facts.ts). */
function deriveAndSettle(stages: Stages, { store, read, kept }: Checked, problems: Problems): void {
  // A rebuild whose records all keep their facts derives only the kinds read again, and fills in
  // only the records read again: no other record's derived fields can change. Otherwise, every kind
  // those kinds' facts may change.
  const affected = read && (kept ? read : stages.derive.affectedKinds(read));
  const only = kept ? (entry: Entry) => !entry.file.known : undefined;
  stages.derive.derive(store, problems, affected, only);
  stages.facts.settle(store, affected, only);
}

/**
 * Nothing is published, but every record is read whole, for the problems found only then: those of
 * references outside a record's facts.
 */
function failWithEveryProblem(stage: RecordStage, stages: Stages): never {
  const { unpark } = stages.facts;
  for (const kind of stage.schemas.kinds.keys())
    for (const entry of [...stage.store.valid(kind), ...stage.store.apart(kind)]) if (entry.source !== undefined) unpark(entry, stage);
  throw new BuildFailed(stage.problems.list);
}

const counts = (store: Store) => Object.fromEntries(store.kinds().map((k) => [k, store.valid(k).length]));

/** `--check`: every record checked as if published, nothing written. */
function checkOnly(ctx: Context, output: Iterable<OutputFile>): Required<PublishResult> {
  for (const _ of output);
  return ctx.timed('check', { ...none, unchanged: 0 });
}

async function publish(
  ctx: Context,
  src: Sources,
  store: Store,
  tree: Tree,
  output: Iterable<OutputFile>,
  changes: boolean,
): Promise<Required<PublishResult>> {
  const { options } = ctx;
  // What the tree is built from, made once, when publishing first asks for it.
  let inputs: Inputs | undefined;
  const built = () =>
    (inputs ??= {
      key: src.keyNow ?? buildKey(ctx, src.files),
      tool: ctx.tool,
      settings: ctx.settings,
      sources: sourceLines(src.files, src.seen?.manifest?.sources),
      records: counts(store),
      memory: formatMemory(store),
    });
  const files = options.githubPages ? withPagesIndexes(output) : output;
  const result = ctx.timed('write', await tree.commit(built, files, { plain: options.plain, changes }));
  return { ...result, unchanged: result.unchanged ?? result.files - result.written - result.linked };
}

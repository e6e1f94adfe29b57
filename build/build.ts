// The pipeline: load → validate → resolve → derive → emit. Each stage is one module; this one
// calls them in order, with one context per build.
import fs from 'node:fs';
import path from 'node:path';
import { baseUrlFromEnv, checkBaseUrl } from './config.ts';
import {
  hashText,
  readAhead,
  readSources,
  readsAheadOnThread,
  stampOf,
  startReading,
  THREAD_THRESHOLD,
  type Ahead,
  type Reading,
  type SourceFile,
  type SourceStamp,
} from './load.ts';
import { formatMemory, parseMemory, type Remembered } from './memory.ts';
import { openTree, readLive, readLiveHeader, readMemory, type Inputs, type Live, type Tree } from './output.ts';
import { apiPaths, defaultDataDir, defaultOutDir, projectRoot } from './paths.ts';
import { BuildFailed, Problems } from './problems.ts';
import type { Entry } from './store.ts';
import type { LateKinds } from './emit.ts';
import { loadSchemas, type SchemaSet } from './schemas.ts';
import { compileValidators, nameDirs, validate, type Validators } from './validate.ts';
import { Writer } from './writer.ts';
import v8 from 'node:v8';

// V8 optimises the build's hot code on threads of its own, beside the writer's: at scale 1 that
// compiling came to about half a second of CPU, a third as much as the build's own thread spends.
// With less inlined into each optimised function, those compiles are smaller and fewer come back
// after a deoptimisation: measured at scale 1, 0.17 s less CPU and 9% less time (8 builds each on a
// RAM disk), and at scale 10 0.5 s less CPU and no slower. Set as the build's code is loaded,
// before any of its hot code is optimised. (V8's default is 920.)
v8.setFlagsFromString('--max-inlined-bytecode-size-cumulative=150');

/**
 * The stages that only a build with something to do needs, loaded once it is known there is: a
 * rebuild that changes nothing is over sooner than they load.
 */
const laterStages = () =>
  Promise.all([
    import('./check-threads.ts'),
    import('./derive.ts'),
    import('./emit.ts'),
    import('./explorer.ts'),
    import('./facts.ts'),
    import('./order.ts'),
    import('./resolve.ts'),
  ]);

/**
 * From how many records the sources are listed on a thread of their own. Measured on a rebuild with
 * nothing changed: 9,084 sources are listed in 70 ms here against 110 ms on a thread, which has to
 * start first; 88,374 in about 400 ms either way, which the thread spends while this one reads the
 * last build's manifest and memory.
 */
const LIST_ON_THREAD = 20_000;

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
  /** Read and check source files on worker threads (by default when there are many to read). */
  threads?: boolean;
  /**
   * Read the late kinds' records ahead on a thread of their own, when not on threads (by default when
   * there are many and a core to spare, `readsAheadOnThread`).
   */
  readAhead?: boolean;
  /** Told when a stage ends, and how far writing has got (records done of all). */
  onProgress?: (event: Progress) => void;
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
  /** Source files parsed; the others entered by what the last build remembered of them (facts.ts). */
  parsed: number;
  bytes: number;
  ms: number;
  /** Milliseconds spent in each stage, for the benchmark. */
  stages: Record<string, number>;
}

let loaded: SchemaSet | undefined;
let compiled: Validators | undefined;
/** The schemas are read once per process, and compiled once, when a build first checks records. */
export function schemaSet(): { schemas: SchemaSet; readonly validators: Validators } {
  const schemas = (loaded ??= loadSchemas());
  return {
    schemas,
    get validators() {
      return (compiled ??= compileValidators(schemas));
    },
  };
}

/** The tool itself: its schemas and code. A change to either rebuilds everything. */
function toolFingerprint(): string {
  const parts = (dir: string, ext: RegExp) =>
    fs
      .readdirSync(path.join(projectRoot, dir))
      .filter((name) => ext.test(name))
      .map((name) => `${dir}/${name}`);
  compiledTool ??= hashText(
    [...parts('schemas', /\.json$/), ...parts('build', /\.(ts|mjs)$/), 'package-lock.json']
      .sort()
      .map((f) => `${f}\n${fs.readFileSync(path.join(projectRoot, f), 'utf8')}`)
      .join('\n'),
  );
  return compiledTool;
}
let compiledTool: string | undefined;

/** The thread that reads late records ahead, when a build starts it before it knows its files. */
interface ReadingAhead {
  early?: Reading;
}

/** Everything the output depends on, in one hash: same key, same bytes. */
function buildKey(files: SourceFile[], baseUrl: string, pretty: boolean): string {
  return hashText([toolFingerprint(), baseUrl, pretty, ...files.map((f) => `${f.rel} ${f.hash}`)].join('\n'));
}

export async function build(options: BuildOptions = {}): Promise<BuildResult> {
  const started = performance.now();
  const outDir = options.outDir ?? defaultOutDir;
  const live = options.check ? undefined : await readLiveHeader(outDir);
  // With no tree built before, every file is to be written: the writer's thread, which takes tens of
  // milliseconds to start, starts now, while the sources are listed. The tree takes it when opened.
  const writer = options.check || live ? undefined : new Writer();
  const ahead: ReadingAhead = {};
  try {
    return await run(options, started, live?.records, writer, ahead);
  } finally {
    ahead.early?.close();
    await writer?.close(); // nothing left to do once the tree that took it is closed
  }
}

async function run(
  options: BuildOptions,
  started: number,
  records: Record<string, number> | undefined,
  writer: Writer | undefined,
  readingAhead: ReadingAhead,
): Promise<BuildResult> {
  const dataDir = options.dataDir ?? defaultDataDir;
  const outDir = options.outDir ?? defaultOutDir;
  const baseUrl = options.baseUrl ? checkBaseUrl(options.baseUrl) : baseUrlFromEnv();
  const problems = new Problems();

  const stages: Record<string, number> = {};
  let mark = performance.now();
  const timed = <T>(stage: string, value: T): T => {
    const now = performance.now();
    stages[stage] = now - mark;
    mark = now;
    options.onProgress?.({ stage, ms: stages[stage]! });
    return value;
  };

  const tool = toolFingerprint();
  const settings = hashText([tool, baseUrl, options.pretty ?? false].join('\n'));
  const reading = options.check ? undefined : readLive(outDir);
  // The same tool with the same options built the live tree: what it remembered spares reading
  // the records that did not change.
  let recalling: Promise<Map<string, Remembered> | undefined> | undefined;
  const recall = () =>
    (recalling ??= reading?.then(async (seen) => {
      // Memory is of the live tree: a record carried over keeps that tree's files. Without its list
      // of files whole (which any build but a no-op needs, parsed once) nothing is carried over.
      if (seen.manifest?.tool !== tool || !seen.manifest.files()) return undefined;
      return parseMemory(await readMemory(outDir, seen), { settings, key: seen.manifest.key });
    }));
  // Many sources are listed on a thread of their own while this one reads what the last build left;
  // a few are listed sooner here, and what was remembered is read only if something changed.
  const onThread = Object.values(records ?? {}).reduce((n, count) => n + count, 0) >= LIST_ON_THREAD;
  if (onThread) recall();
  const known = reading?.then((l) => l.manifest?.sources);
  // With no tree built before, every source is read. Those of late kinds (order.ts) are read and
  // parsed on a thread of their own, started as soon as they are listed: while this thread looks at
  // the sources and loads the later stages, that one has a core to itself.
  const onNames =
    records === undefined && !onThread
      ? await import('./order.ts').then(({ publishOrder }) => (abs: string[]) => {
          if (options.threads ?? abs.length >= THREAD_THRESHOLD) return; // read on threads (check-threads.ts)
          const late = new Set(publishOrder(schemaSet().schemas).late);
          const later = abs.filter((file) => late.has(path.basename(path.dirname(file))));
          if (readsAheadOnThread(later.length, options.readAhead)) readingAhead.early = startReading(later);
        })
      : undefined;
  const files = timed('read', await readSources(dataDir, problems, known, onThread, onNames));
  const seen: Live | undefined = await reading;
  const live = seen?.manifest;
  const none = { files: 0, bytes: 0, written: 0, linked: 0, removed: 0, parsed: 0 };
  let tree: Tree | undefined;
  // When every source has its hash already (read now or remembered) the key is taken now, once;
  // otherwise files are hashed as they are parsed, and the key is taken when all are.
  const keyNow = live && files.every((f) => f.hash !== '') ? buildKey(files, baseUrl, options.pretty ?? false) : undefined;
  if (live && problems.count === 0 && !options.plain && live.key === keyNow) {
    // Nothing changed since the live tree was built: it is already the answer.
    return {
      records: live.records,
      ...none,
      unchanged: live.fileCount,
      ms: performance.now() - started,
      stages,
    };
  }
  const memory = await recall();
  // The late records read ahead on a thread (`compute`), stopped once they are all read or the
  // build ends.
  let ahead: Ahead | undefined;
  try {
    // A build that reads every file opens its tree now, before the later stages load: the folders of
    // records by name are known from the files alone, and the writer starts on them at once.
    if (!memory && !options.check && problems.count === 0) {
      tree = await openTree(outDir, seen, writer);
      tree.prepare(nameDirs(files, schemaSet().schemas));
    }
    return await compute();
  } catch (err) {
    await tree?.abort();
    throw err;
  } finally {
    ahead?.close();
  }

  async function compute(): Promise<BuildResult> {
    const set = schemaSet();
    const { schemas } = set;
    const [
      { validateInThreads },
      { affectedKinds, derive },
      { outputFiles },
      { explorerFiles },
      { park, readLate, reuse, setAside, settle, unpark },
      { publishOrder },
      { resolve },
    ] = await laterStages();
    // With memory, only the kinds that records read again (or removed) may change are derived.
    const read = memory ? timed('reuse', reuse(files, memory, schemas, problems)) : undefined;
    const affected = read && affectedKinds(read);
    // Many files to read go to worker threads. Otherwise the records of late kinds (order.ts) still
    // to be read are read as they are published, while the files before them are written; a thread
    // of its own reads and parses them meanwhile.
    const unread = files.filter((f) => !f.known && !f.parsed);
    const threads = options.threads ?? unread.length >= THREAD_THRESHOLD;
    const order = publishOrder(schemas);
    const lateKinds = new Set(order.late);
    const later = new Set(threads ? [] : unread.filter((f) => lateKinds.has(f.kind)));
    ahead = readAhead(later, readingAhead.early, options.readAhead);
    // A build that reads every file opened its tree above; a rebuild opens it here, once it knows
    // which files it reads again. The folders of records by name are known from the files, and made
    // at once; each record read is given its folder by id as soon as it reads well, while the rest
    // are read, for as long as no problem is found (they are removed again if one is). A remembered
    // record's folders are the live tree's; its files bring them if need be.
    if (memory && !options.check && problems.count === 0) {
      tree = await openTree(outDir, seen, writer);
      tree.prepare(nameDirs(unread, schemas));
    }
    const prepare = (entry: Entry) => {
      if (tree && problems.count === 0) tree.prepare([apiPaths.recordDir(entry.kind, entry.id)]);
    };
    // On threads, this one compiles the validators meanwhile.
    const checking = threads ? validateInThreads(files, schemas, () => set.validators, baseUrl, problems, prepare) : undefined;
    const { validators } = set;
    const parkAndPrepare = (entry: Entry) => {
      park(entry);
      prepare(entry);
    };
    const store = timed(
      'validate',
      checking ? await checking : validate(files, schemas, validators, baseUrl, problems, parkAndPrepare, later),
    );
    for (const file of later) store.expect(file.kind, file.stem);
    const published = (live?.tool === tool && live.files()) || new Map<string, string>();
    // Derives the kinds given (those of them a rebuild may change) and settles them.
    const deriveAndSettle = (kinds: ReadonlySet<string>) => {
      derive(store, problems, new Set([...kinds].filter((kind) => !affected || affected.has(kind))));
      const stale = settle(store, schemas, affected, kinds);
      if (stale.size > 0) {
        // A record outside those kinds that cannot be carried over (it was read again): its kind is derived after all.
        derive(store, problems, stale);
        settle(store, schemas, new Set([...affected!, ...stale]), kinds);
      }
    };
    const ctx = { store, schemas, validators, problems };
    const entered = new Map(order.late.flatMap((kind) => store.valid(kind).map((e): [SourceFile, Entry] => [e.file, e])));
    const late: LateKinds = {
      order,
      waiting: later.size,
      *records(kind) {
        for (const file of files) {
          if (file.kind !== kind) continue;
          const isLate = later.has(file);
          if (isLate) ahead!.take(file);
          const entry = isLate ? readLate(file, ctx) : entered.get(file);
          if (!entry) continue;
          yield entry;
          if (isLate) setAside(entry);
        }
        store.seal();
      },
      done: () => {
        ahead!.close();
        deriveAndSettle(new Set([...order.late, ...order.after]));
      },
    };
    // With problems, the build goes on only to find the rest of them.
    timed('resolve', resolve(store, schemas, problems));
    timed('derive', deriveAndSettle(new Set([...order.early, ...order.late])));
    if (problems.count > 0) {
      // Nothing is published, but every record is read whole, for the problems found only then:
      // those of late records, and of references outside a record's facts.
      for (const kind of order.late) for (const _ of late.records(kind));
      late.done();
      for (const kind of schemas.kinds.keys()) for (const entry of store.valid(kind)) if (entry.source !== undefined) unpark(entry, ctx);
      throw new BuildFailed(problems.list);
    }

    const counts = () => Object.fromEntries(store.kinds().map((k) => [k, store.valid(k).length]));
    // Records already published by this same tool were checked then; the rest are checked now.
    const output = outputFiles(store, schemas, validators, problems, {
      pretty: options.pretty,
      published,
      // A kind with no record read again or removed has the same members: its list is the live tree's.
      keptLists: read && new Set([...schemas.kinds.keys()].filter((kind) => !read.has(kind))),
      extra: tree ? timed('explorer', await explorerFiles()) : undefined,
      onRecord: options.onProgress && ((done, total) => options.onProgress!({ stage: 'write', done, total })),
      late,
    });
    if (!tree) {
      for (const _ of output); // checks every record, writes nothing
      return {
        records: counts(),
        ...none,
        parsed: files.length,
        unchanged: 0,
        ms: performance.now() - started,
        stages: timed('check', stages),
      };
    }
    // What the tree is built from is known once every file is given: late records are hashed as read.
    let inputs: Inputs | undefined;
    const built = () =>
      (inputs ??= {
        key: keyNow ?? buildKey(files, baseUrl, options.pretty ?? false),
        tool,
        sources: files.map((f): [string, SourceStamp] => [f.rel, stampOf(f)]),
        records: counts(),
      });
    const result = timed(
      'write',
      await tree.commit(built, output, options.plain, () => formatMemory({ settings, key: built().key }, store)),
    );
    const records = built().records;
    return {
      records,
      ...result,
      parsed: files.filter((f) => f.parsed).length,
      unchanged: result.unchanged ?? result.files - result.written - result.linked,
      ms: performance.now() - started,
      stages,
    };
  }
}

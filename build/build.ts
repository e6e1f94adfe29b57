// The pipeline: load → validate → resolve → derive → emit. Each stage is one module; this one
// calls them in order, with one context per build.
import { baseUrlFromEnv, checkBaseUrl } from './config.ts';
import { derive } from './derive.ts';
import { outputFiles, recordDirs } from './emit.ts';
import { explorerFiles } from './explorer.ts';
import { THREAD_THRESHOLD, validateInThreads } from './check-threads.ts';
import fs from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { hashText, readSources, stampOf, type SourceFile } from './load.ts';
import { formatMemory, parseMemory, park, reuse, settle } from './facts.ts';
import { openTree, readLive, readMemory, type Live, type Tree } from './output.ts';
import { defaultDataDir, defaultOutDir, projectRoot } from './paths.ts';
import { BuildFailed, Problems } from './problems.ts';
import type { Entry } from './store.ts';
import { resolve } from './resolve.ts';
import { loadSchemas, type SchemaSet } from './schemas.ts';
import { compileValidators, validate, type Validators } from './validate.ts';

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
  compiledTool ??= hashText(
    fg
      .sync(['schemas/*.json', 'build/*.ts', 'build/*.mjs', 'package-lock.json'], {
        cwd: projectRoot,
      })
      .sort()
      .map((f) => `${f}\n${fs.readFileSync(path.join(projectRoot, f), 'utf8')}`)
      .join('\n'),
  );
  return compiledTool;
}
let compiledTool: string | undefined;

/** Everything the output depends on, in one hash: same key, same bytes. */
function buildKey(files: SourceFile[], baseUrl: string, pretty: boolean): string {
  return hashText([toolFingerprint(), baseUrl, pretty, ...files.map((f) => `${f.rel} ${f.hash}`)].join('\n'));
}

/** Records per kind in a published tree, counted from its manifest. */
function countRecords(files: Record<string, string>, schemas: SchemaSet): Record<string, number> {
  const counts = Object.fromEntries([...schemas.kinds.keys()].map((k) => [k, 0]));
  for (const rel of Object.keys(files)) {
    const m = /^api\/v2\/([a-z-]+)\/[0-9]+\/index\.json$/.exec(rel);
    if (m && m[1]! in counts) counts[m[1]!]!++;
  }
  return counts;
}

export async function build(options: BuildOptions = {}): Promise<BuildResult> {
  const started = performance.now();
  const dataDir = options.dataDir ?? defaultDataDir;
  const outDir = options.outDir ?? defaultOutDir;
  const baseUrl = options.baseUrl ? checkBaseUrl(options.baseUrl) : baseUrlFromEnv();
  const set = schemaSet();
  const { schemas } = set;
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

  const seen: Live | undefined = options.check ? undefined : await readLive(outDir);
  const live = seen?.manifest;
  const files = timed('read', await readSources(dataDir, problems, live?.sources));
  const tool = toolFingerprint();
  const none = { files: 0, bytes: 0, written: 0, linked: 0, removed: 0, parsed: 0 };
  let tree: Tree | undefined;
  // When every source has its hash already (read now or remembered) the key is taken now, once;
  // otherwise files are hashed as they are parsed, and the key is taken when all are.
  const keyNow = live && files.every((f) => f.hash !== '') ? buildKey(files, baseUrl, options.pretty ?? false) : undefined;
  if (live && problems.count === 0 && !options.plain && live.key === keyNow) {
    // Nothing changed since the live tree was built: it is already the answer.
    const unchanged = Object.keys(live.files).length;
    return {
      records: countRecords(live.files, schemas),
      ...none,
      unchanged,
      ms: performance.now() - started,
      stages,
    };
  }
  // The same tool with the same options built the live tree: what it remembered spares reading
  // the records that did not change.
  const settings = hashText([tool, baseUrl, options.pretty ?? false].join('\n'));
  const memory = seen && live?.tool === tool ? parseMemory(await readMemory(outDir, seen), { settings, key: live.key }) : undefined;
  try {
    return await compute();
  } catch (err) {
    await tree?.abort();
    throw err;
  }

  async function compute(): Promise<BuildResult> {
    if (memory) timed('reuse', reuse(files, memory, schemas, problems));
    // The tree to write is opened first: each record read is given its folders as soon as it reads
    // well, while the rest are read, for as long as no problem is found (they are removed again if
    // one is). A remembered record's folders are the live tree's; its files bring them if need be.
    if (!options.check && problems.count === 0) tree = await openTree(outDir, seen);
    const prepare = (entry: Entry) => {
      if (tree && problems.count === 0) tree.prepare(recordDirs(entry, schemas));
    };
    // Many files to read go to worker threads; meanwhile this one compiles the validators.
    const threads = options.threads ?? files.filter((f) => !f.known && !f.parsed).length >= THREAD_THRESHOLD;
    const checking = threads ? validateInThreads(files, schemas, () => set.validators, baseUrl, problems, prepare) : undefined;
    const { validators } = set;
    const parkAndPrepare = (entry: Entry) => {
      park(entry);
      prepare(entry);
    };
    const store = timed('validate', checking ? await checking : validate(files, schemas, validators, baseUrl, problems, parkAndPrepare));
    // With problems, the build goes on only to find the rest of them.
    timed('resolve', resolve(store, schemas, problems));
    timed('derive', derive(store, problems));
    const published = live?.tool === tool ? live.files : {};
    timed('settle', settle(store, schemas, published));
    if (problems.count > 0) throw new BuildFailed(problems.list);

    const records = Object.fromEntries(store.kinds().map((k) => [k, store.valid(k).length]));
    // Records already published by this same tool were checked then; the rest are checked now.
    const output = outputFiles(store, schemas, validators, problems, {
      pretty: options.pretty,
      published,
      extra: tree ? timed('explorer', await explorerFiles()) : undefined,
      onRecord: options.onProgress && ((done, total) => options.onProgress!({ stage: 'write', done, total })),
    });
    if (!tree) {
      for (const _ of output); // checks every record, writes nothing
      return {
        records,
        ...none,
        parsed: files.length,
        unchanged: 0,
        ms: performance.now() - started,
        stages: timed('check', stages),
      };
    }
    const key = keyNow ?? buildKey(files, baseUrl, options.pretty ?? false);
    const sources = Object.fromEntries(files.map((f) => [f.rel, stampOf(f)]));
    const result = timed(
      'write',
      await tree.commit({ key, tool, sources }, output, options.plain, () => formatMemory({ settings, key }, store)),
    );
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

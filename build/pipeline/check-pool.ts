// Stage 3, every file checked and indexed: on the build's thread, or, for worlds with many files to
// read, on worker threads, each of which runs `checkFile` on a share of the files and sets each
// record aside as JSON (facts.ts) as the build's own thread does. The build's thread indexes what
// comes back in file order, in the one loop either way, so the store, the problems and the output
// are the same.
import os from 'node:os';
import { park } from './facts.ts';
import type { Problem, Problems } from '../report/problems.ts';
import type { SchemaSet } from '../schemas/schemas.ts';
import type { Validators } from '../schemas/validators.ts';
import type { Worker } from 'node:worker_threads';
import { startThread } from '../threads.ts';
import { CHECK_CHUNK, CHECK_THREADS } from '../tuning.ts';
import { Store, type Entry, type SourceFile } from '../store.ts';
import { checkFile, index, remembered, validEntry, type Checked } from './validate.ts';
import type { CacheAt, CheckedRecords } from './checked.ts';
import { readUnhashed } from './parse.ts';

/** A file as sent to a thread. */
export type Sent = Pick<SourceFile, 'rel' | 'abs' | 'kind' | 'stem' | 'size' | 'mtimeMs' | 'hash' | 'media'>;

/**
 * What a thread found in one file: what `checkFile` gave, a record sent without its file, and one
 * set aside without its facts' value (they come as JSON, parsed here).
 */
export interface Found {
  hash?: string;
  problems: Problem[];
  checked: Checked;
  /** Taken from the cache as checked before: how many records of its kind the cache held. */
  cached?: number;
}

/** A chunk of files as sent to a thread, with the cache it takes records from (checked.ts). */
export interface Chunk {
  indexes: number[];
  files: Sent[];
  cache?: CacheAt;
}

/**
 * Parses each file not yet parsed, checks it and indexes its record, in file order, on this thread
 * or, with `threads`, on worker threads. Each record read now that passed its schema is set aside
 * (facts.ts) and given to `onRecord` as soon as it has (a remembered record enters with its facts
 * only, and is not given). `validators` is asked for only if a file is checked on this thread.
 */
export async function validate(
  files: SourceFile[],
  schemas: SchemaSet,
  validators: () => Validators,
  baseUrl: string,
  problems: Problems,
  threads: boolean,
  onRecord?: (entry: Entry) => void,
  cache?: CheckedRecords,
): Promise<Store> {
  const unnamed = [...schemas.kinds.values()].filter((info) => info.unpublished.includes('name')).map((info) => info.kind);
  const store = new Store(baseUrl, schemas.kinds.keys(), new Set(unnamed));
  // On threads, remembered and already parsed files and files of no kind are done on this thread;
  // the threads take records from the cache too, which reads and hashes every file.
  const here = (file: SourceFile) => !threads || file.known !== undefined || file.parsed !== undefined || !schemas.kinds.has(file.kind);
  // Without threads, every file is read before any is parsed: the build makes folders as records
  // pass, and reading while the writer makes folders contends for the file system.
  if (!threads) readUnhashed(files.filter((file) => !file.known));
  const found: Array<Found | undefined> = new Array(files.length);
  let indexed = 0;
  // Files are indexed in order as soon as what they need has come back.
  const indexReady = () => {
    for (; indexed < files.length; indexed++) {
      const file = files[indexed]!;
      const result = found[indexed];
      found[indexed] = undefined;
      if (!result && !file.known && !here(file)) return;
      const checked = result
        ? accept(file, result, problems, cache)
        : file.known
          ? remembered(file, file.known)
          : parked(checkFile(file, validators(), problems, cache)); // a thread's records come back set aside
      const entry = validEntry(checked);
      if (entry && !file.known) onRecord?.(entry);
      index(store, checked, problems);
    }
  };
  const chunks = chunksOf(files, here);
  await onThreads(Math.min(CHECK_THREADS, os.availableParallelism(), chunks.length), chunks, files, cache, (indexes, results) => {
    indexes.forEach((i, k) => (found[i] = results[k]));
    indexReady();
  });
  indexReady();
  if (indexed < files.length) throw new Error('the checking threads did not return every file');
  store.seal();
  return store;
}

/** The indexes of the files to check on threads, in chunks. */
function chunksOf(files: SourceFile[], here: (file: SourceFile) => boolean): number[][] {
  const indexes = [...files.keys()].filter((i) => !here(files[i]!));
  const chunks: number[][] = [];
  for (let at = 0; at < indexes.length; at += CHECK_CHUNK) chunks.push(indexes.slice(at, at + CHECK_CHUNK));
  return chunks;
}

/** Hands the chunks out to `count` threads, two at a time each, so that a thread never waits for the next. */
async function onThreads(
  count: number,
  chunks: number[][],
  files: SourceFile[],
  cache: CheckedRecords | undefined,
  onResults: (indexes: number[], results: Found[]) => void,
): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: count }, () => startThread('check'));
  const drive = (worker: Worker) =>
    new Promise<void>((resolve, reject) => {
      let out = 0;
      const send = () => {
        if (next < chunks.length) {
          const indexes = chunks[next++]!;
          worker.postMessage({ indexes, files: indexes.map((i) => sent(files[i]!)), cache: cache?.at } satisfies Chunk);
          out++;
        } else if (out === 0) resolve();
      };
      worker.on('message', ({ indexes, results }: { indexes: number[]; results: Found[] }) => {
        out--;
        onResults(indexes, results);
        send();
      });
      worker.on('error', reject);
      worker.on('exit', (code) => reject(new Error(`a checking thread stopped (exit code ${code})`)));
      send();
      send();
    });
  try {
    await Promise.all(workers.map(drive));
  } finally {
    for (const worker of workers) worker.removeAllListeners('exit');
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/** What checking gave, its record set aside if it passed its schema. */
function parked(checked: Checked): Checked {
  const entry = validEntry(checked);
  if (entry) park(entry);
  return checked;
}

const sent = ({ rel, abs, kind, stem, size, mtimeMs, hash, media }: SourceFile): Sent => ({
  rel,
  abs,
  kind,
  stem,
  size,
  mtimeMs,
  hash,
  media,
});

/** What a thread found, as `checkFile` would have given it on this thread (and kept in the cache as it would have). */
function accept(file: SourceFile, result: Found, problems: Problems, cache: CheckedRecords | undefined): Checked {
  file.hash = result.hash;
  for (const problem of result.problems) problems.add(problem);
  const entry = result.checked && 'entry' in result.checked ? result.checked.entry : undefined;
  if (entry) entry.file = file;
  if (entry?.valid) {
    entry.data = JSON.parse(entry.facts!);
    if (cache && result.cached !== undefined) cache.took(file, entry.source!, result.cached);
    else if (cache && result.problems.length === 0) cache.keep(file, entry.source!);
  }
  return result.checked;
}

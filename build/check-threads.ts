// Stage 2 on two threads, for worlds with many files to read: each thread reads, parses and checks
// a share of the files and sets each record aside as JSON (facts.ts), as the build's own thread
// does for small worlds; the build's thread indexes what they send back, in file order, so the
// store, the problems and the output are the same as from `validate`.
import os from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { park } from './facts.ts';
import type { SourceFile } from './load.ts';
import { Problems, type Problem } from './problems.ts';
import { loadSchemas, type SchemaSet } from './schemas.ts';
import { Store, type Entry } from './store.ts';
import { checkFile, compileValidators, index, remembered, validEntry, type Checked, type Validators } from './validate.ts';

const CHUNK = 256;

/** A file as sent to a thread. */
type Sent = Pick<SourceFile, 'rel' | 'abs' | 'kind' | 'stem' | 'size' | 'mtimeMs' | 'hash'>;

/** What a thread found in one file. */
interface Found {
  hash: string;
  problems: Problem[];
  broken?: Array<string | number>;
  id?: number;
  name?: string;
  valid?: boolean;
  /** The record as JSON, for a record that broke its schema (it is indexed, never published). */
  data?: string;
  source?: string;
  facts?: string;
}

function threadCount(): number {
  return Math.max(1, Math.min(2, os.availableParallelism()));
}

/**
 * Checks and indexes every file, as `validate` with `park` does, on worker threads; `onRecord` is
 * given each record read now that passed its schema, once set aside. Files parsed already, or remembered, are
 * checked on this thread; `validators` is asked for only if one needs them.
 */
export async function validateInThreads(
  files: SourceFile[],
  schemas: SchemaSet,
  validators: () => Validators,
  baseUrl: string,
  problems: Problems,
  onRecord?: (entry: Entry) => void,
  threads = threadCount(),
): Promise<Store> {
  const store = new Store(baseUrl, schemas.kinds.keys());
  const chunks: number[][] = [];
  let chunk: number[] = [];
  // Remembered and already parsed files, and files of no kind, are done on this thread.
  const here = (file: SourceFile) => file.known !== undefined || file.parsed || !schemas.kinds.has(file.kind);
  files.forEach((file, i) => {
    if (here(file)) return;
    chunk.push(i);
    if (chunk.length === CHUNK) (chunks.push(chunk), (chunk = []));
  });
  if (chunk.length) chunks.push(chunk);

  const found: Array<Found | undefined> = new Array(files.length);
  let nextChunk = 0;
  let indexed = 0;
  // Files are indexed in order as soon as what they need has come back.
  const indexReady = () => {
    for (; indexed < files.length; indexed++) {
      const file = files[indexed]!;
      const result = found[indexed];
      let checked: Checked;
      if (result) {
        found[indexed] = undefined;
        checked = accept(file, result, problems);
      } else if (file.known) {
        checked = remembered(file, file.known);
      } else if (here(file)) {
        checked = checkFile(file, validators(), problems);
      } else return;
      const entry = validEntry(checked);
      if (entry && !file.known) {
        if (!entry.partial) park(entry); // checked here; a thread's records come back set aside
        onRecord?.(entry);
      }
      index(store, checked, problems);
    }
  };

  const workers = Array.from(
    { length: Math.min(threads, chunks.length) },
    () => new Worker(new URL('./thread.mjs', import.meta.url), { workerData: { module: import.meta.url, role: 'check' } }),
  );
  try {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            let out = 0;
            const send = () => {
              if (nextChunk < chunks.length) {
                const indexes = chunks[nextChunk++]!;
                worker.postMessage({ indexes, files: indexes.map((i) => sent(files[i]!)) });
                out++;
              } else if (out === 0) resolve();
            };
            worker.on('message', ({ indexes, results }: { indexes: number[]; results: Found[] }) => {
              out--;
              indexes.forEach((i, k) => (found[i] = results[k]));
              indexReady();
              send();
            });
            worker.on('error', reject);
            worker.on('exit', (code) => reject(new Error(`a checking thread stopped (exit code ${code})`)));
            // Two chunks each, so a thread never waits for the next.
            send();
            send();
          }),
      ),
    );
    indexReady();
  } finally {
    for (const worker of workers) worker.removeAllListeners('exit');
    await Promise.all(workers.map((w) => w.terminate()));
  }
  if (indexed < files.length) throw new Error('the checking threads did not return every file');
  store.seal();
  return store;
}

const sent = ({ rel, abs, kind, stem, size, mtimeMs, hash }: SourceFile): Sent => ({ rel, abs, kind, stem, size, mtimeMs, hash });

/** What a thread found, as `checkFile` would have given it on this thread. */
function accept(file: SourceFile, result: Found, problems: Problems): Checked {
  file.hash = result.hash;
  file.parsed = true;
  for (const problem of result.problems) problems.add(problem);
  if (result.broken) return { kind: file.kind, broken: result.broken };
  if (result.id === undefined) return undefined;
  const { id, name = '', valid = false, source, facts } = result;
  if (!valid) return { entry: { kind: file.kind, id, name, file, data: JSON.parse(result.data!), valid } };
  return { entry: { kind: file.kind, id, name, file, data: JSON.parse(facts!), valid, partial: true, source, facts } };
}

/** A checking thread: answers each chunk of files with what it found in each. */
function serve(port: NonNullable<typeof parentPort>): void {
  const validators = compileValidators(loadSchemas());
  port.on('message', ({ indexes, files }: { indexes: number[]; files: Sent[] }) => {
    const results = files.map((sentFile): Found => {
      const file: SourceFile = { ...sentFile, text: '', value: undefined };
      const problems = new Problems();
      const checked = checkFile(file, validators, problems);
      const result: Found = { hash: file.hash, problems: problems.list };
      if (!checked) return result;
      if ('broken' in checked) return { ...result, broken: checked.broken };
      const { entry } = checked;
      if (!entry.valid) return { ...result, id: entry.id, name: entry.name, valid: false, data: JSON.stringify(entry.data) };
      park(entry);
      return { ...result, id: entry.id, name: entry.name, valid: true, source: entry.source, facts: entry.facts };
    });
    port.postMessage({ indexes, results });
  });
}

if (!isMainThread && (workerData as { role?: string } | undefined)?.role === 'check') serve(parentPort!);

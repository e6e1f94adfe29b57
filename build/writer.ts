// Puts files in place on a thread of its own (writer-thread.mjs): the file-system calls take as long
// as the rest of the build, and on the build's own thread they would wait for each other.
import { Worker } from 'node:worker_threads';

/** One file to place: write `body`, or hard-link `from` (a file placed earlier, or another tree's). */
export interface Op {
  path: string;
  body?: string | Uint8Array;
  from?: string;
  /** A file stands at `path` already: it is removed first (files are never written in place). */
  replace?: boolean;
}

type ToWriter = { dirs: string[] } | { ops: Op[] } | { undo: true };
/** Sent once per batch of ops, when all of them have ended: the paths that failed, and why. */
type FromWriter = { failed: Array<[string, string]> };

const BATCH = 64;
/**
 * Batches sent and not yet done: enough that a slow moment of the file system does not hold up the
 * build (with 4, the build's thread waited for the writer for a third of the time it took to write
 * 9,084 records, while the writer also waited for it), few enough to bound the bytes held.
 */
const AHEAD = 64;

/** The main thread's side. */
export class Writer {
  private readonly worker: Worker;
  private batch: Op[] = [];
  private sent = 0;
  private done = 0;
  private wake: (() => void) | undefined;
  private crash: Error | undefined;
  /** Paths that could not be placed, with the reason. */
  readonly failed = new Map<string, string>();

  constructor() {
    // Plain JavaScript needs no loader: the thread starts without the options (`--import tsx`) this one started with.
    this.worker = new Worker(new URL('./writer-thread.mjs', import.meta.url), { execArgv: [] });
    this.worker.on('message', (m: FromWriter) => {
      this.done++;
      for (const [p, why] of m.failed) this.failed.set(p, why);
      this.wake?.();
    });
    const fail = (err: Error) => {
      this.crash ??= err;
      this.wake?.();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the writer thread stopped (exit code ${code})`)));
  }

  /** A folder to make, sent in batches, ahead of the files that go in it. */
  dir(dir: string): void {
    this.dirBatch.push(dir);
    if (this.dirBatch.length === 1024) this.sendDirs();
  }
  private dirBatch: string[] = [];
  private sendDirs(): void {
    if (this.dirBatch.length) this.post({ dirs: this.dirBatch });
    this.dirBatch = [];
  }

  /** Queues a file; waits while the writer is far enough behind. */
  async add(op: Op): Promise<void> {
    this.batch.push(op);
    if (this.batch.length < BATCH) return;
    this.send();
    while (this.sent - this.done >= AHEAD) await this.next();
  }

  /** Waits until every file queued so far is placed (or has failed). */
  async flush(): Promise<void> {
    this.sendDirs();
    this.send();
    while (this.done < this.sent) await this.next();
  }

  /**
   * Stops the thread. With `undo`, the build is abandoned: the folders made for it that are still
   * empty are removed first, so that a failed build leaves no trace.
   */
  async close(undo = false): Promise<void> {
    if (undo && !this.crash) {
      this.dirBatch = [];
      this.batch = [];
      this.post({ undo: true });
      this.sent++;
      await this.flush().catch(() => {});
    }
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }

  private send(): void {
    if (this.batch.length === 0) return;
    this.post({ ops: this.batch });
    this.batch = [];
    this.sent++;
  }

  private post(message: ToWriter): void {
    if (this.crash) throw this.crash;
    this.worker.postMessage(message);
  }

  private next(): Promise<void> {
    if (this.crash) return Promise.reject(this.crash);
    return new Promise<void>((resolve) => (this.wake = resolve)).then(() => {
      this.wake = undefined;
      if (this.crash) throw this.crash;
    });
  }
}

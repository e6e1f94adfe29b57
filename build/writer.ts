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
 * Batches sent and not yet done, and their bytes: enough that the build's thread can go on to read
 * the records of late kinds (order.ts) while the writer places what came before — in a world of
 * PokeAPI's size, 12 MiB in 21,085 files — and that a slow moment of the file system does not hold
 * it up; few enough to bound the memory held.
 */
const AHEAD = 1024;
const AHEAD_BYTES = 32 * 2 ** 20;

/** The main thread's side. */
export class Writer {
  private readonly worker: Worker;
  private batch: Op[] = [];
  private sent = 0;
  private done = 0;
  /** The bytes of each batch sent and not yet done, oldest first, and their sum. */
  private readonly sizes: number[] = [];
  private bytesAhead = 0;
  private batchBytes = 0;
  private wake: (() => void) | undefined;
  private crash: Error | undefined;
  private closed = false;
  /** Paths that could not be placed, with the reason. */
  readonly failed = new Map<string, string>();

  constructor() {
    // Plain JavaScript needs no loader: the thread starts without the options (`--import tsx`) this one started with.
    this.worker = new Worker(new URL('./writer-thread.mjs', import.meta.url), { execArgv: [] });
    this.worker.on('message', (m: FromWriter) => {
      this.done++;
      this.bytesAhead -= this.sizes.shift() ?? 0;
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

  /**
   * Queues a file. While the writer is far enough behind, returns a promise to wait for; otherwise
   * nothing (a promise for each of tens of thousands of files costs the build's thread its time).
   */
  add(op: Op): Promise<void> | undefined {
    this.batch.push(op);
    if (op.body !== undefined) this.batchBytes += op.body.length; // characters or bytes: near enough
    if (this.batch.length < BATCH) return undefined;
    this.send();
    return this.behind() ? this.room() : undefined;
  }

  private behind(): boolean {
    return this.sent - this.done >= AHEAD || this.bytesAhead >= AHEAD_BYTES;
  }

  private async room(): Promise<void> {
    while (this.behind()) await this.next();
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
    if (this.closed) return;
    this.closed = true;
    if (undo && !this.crash) {
      this.dirBatch = [];
      this.batch = [];
      this.post({ undo: true });
      this.sent++;
      this.sizes.push(0);
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
    this.sizes.push(this.batchBytes);
    this.bytesAhead += this.batchBytes;
    this.batchBytes = 0;
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

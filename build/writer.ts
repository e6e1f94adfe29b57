// Puts files in place on a thread of its own (writer-thread.mjs): the file-system calls take as long
// as the rest of the build, and on the build's own thread they would wait for each other.
//
// While the build works, one thread places the files: with the build's own thread busy, a second
// one would only contend with it and with the first. The files the build has queued and the writer
// has not yet been given wait here. Once the build has queued its last file and waits for the
// writer (`flush`), a second thread takes a share of what is left: the file system makes files in
// different folders at once, and two threads place them in 0.65–0.75 of the time one takes.
import fs from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';

/** One file to place: write `body`, or hard-link `from` (a file placed earlier, or another tree's). */
export interface Op {
  path: string;
  body?: string | Uint8Array;
  from?: string;
  /** A file stands at `path` already: it is removed first (files are never written in place). */
  replace?: boolean;
}

type ToWriter = { dirs: string[] } | { ops: Op[] };
/** Sent once per batch of folders or ops, when all of them have ended: the paths that failed, and why. */
type FromWriter = { failed: Array<[string, string]> } | { created: string[] };

const BATCH = 64;
/**
 * Batches given to the writer and not yet done: enough that it never waits for the build's thread,
 * which gives it more each time it queues a file (a late record can take a few milliseconds to
 * read); few enough that little is left to it alone at the end.
 */
const GIVEN = 16;
/**
 * The bytes queued and not yet placed: enough that the build's thread can go on to read the records
 * of late kinds (order.ts) while the writer places what came before — in a world of PokeAPI's size,
 * 12 MiB in 21,085 files — and that a slow moment of the file system does not hold it up; few enough
 * to bound the memory held.
 */
const AHEAD_BYTES = 32 * 2 ** 20;
const THREADS = Math.min(2, os.availableParallelism());

interface Thread {
  worker: Worker;
  /** The bytes of each batch given to it and not yet answered for, oldest first. */
  given: number[];
  /** Batches given to it in all. */
  posted: number;
}

/** The main thread's side. */
export class Writer {
  private readonly threads: Thread[];
  /** How many batches each thread has done, counted by the thread: read here without waiting. */
  private readonly counts: Int32Array;
  private batch: Op[] = [];
  private batchBytes = 0;
  /** Batches queued and not yet given to a thread, with their bytes. */
  private readonly waiting: Array<{ ops: Op[]; bytes: number }> = [];
  private bytesAhead = 0;
  /** Once the build has queued its last file: every thread takes batches. */
  private finishing = false;
  private wake: (() => void) | undefined;
  private crash: Error | undefined;
  private closed = false;
  /** Paths that could not be placed, with the reason. */
  readonly failed = new Map<string, string>();

  constructor() {
    this.counts = new Int32Array(new SharedArrayBuffer(4 * THREADS));
    const fail = (err: Error) => {
      this.crash ??= err;
      this.wake?.();
    };
    this.threads = Array.from({ length: THREADS }, (_, i) => {
      // Plain JavaScript needs no loader: the thread starts without the options (`--import tsx`) this one started with.
      const worker = new Worker(new URL('./writer-thread.mjs', import.meta.url), {
        execArgv: [],
        workerData: { counts: this.counts, index: i },
      });
      const thread: Thread = { worker, given: [], posted: 0 };
      worker.on('message', (m: FromWriter) => {
        if (!('failed' in m)) return;
        this.bytesAhead -= thread.given.shift() ?? 0;
        for (const [p, why] of m.failed) this.failed.set(p, why);
        this.give();
        this.wake?.();
      });
      worker.on('error', fail);
      worker.on('exit', (code) => fail(new Error(`a writer thread stopped (exit code ${code})`)));
      return thread;
    });
  }

  /** A folder to make, sent in batches to the first thread, ahead of the files that go in it. */
  dir(dir: string): void {
    this.dirBatch.push(dir);
    if (this.dirBatch.length === 1024) this.sendDirs();
  }
  private dirBatch: string[] = [];
  private sendDirs(): void {
    if (this.dirBatch.length) this.hand(this.threads[0]!, { dirs: this.dirBatch }, 0);
    this.dirBatch = [];
  }

  /**
   * Queues a file. While the writer is far enough behind, returns a promise to wait for; otherwise
   * nothing (a promise for each of tens of thousands of files costs the build's thread its time).
   */
  add(op: Op): Promise<void> | undefined {
    // A link to the file just before it stays in that file's batch: the two may go to different threads.
    if (this.batch.length >= BATCH && !(op.from !== undefined && op.from === this.batch.at(-1)!.path)) this.queue();
    this.batch.push(op);
    if (op.body !== undefined) this.batchBytes += op.body.length; // characters or bytes: near enough
    this.give();
    return this.bytesAhead >= AHEAD_BYTES ? this.room() : undefined;
  }

  private async room(): Promise<void> {
    while (this.bytesAhead >= AHEAD_BYTES) await this.next();
  }

  /** Waits until every file queued so far is placed (or has failed). */
  async flush(): Promise<void> {
    this.sendDirs();
    this.queue();
    this.finishing = true;
    this.give();
    while (this.waiting.length > 0 || this.threads.some((t) => t.given.length > 0)) await this.next();
    this.finishing = false;
  }

  /**
   * Stops the threads. With `undo`, the build is abandoned: the folders made for it that are still
   * empty are removed first, so that a failed build leaves no trace.
   */
  async close(undo = false): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (undo && !this.crash) {
      this.dirBatch = [];
      this.batch = [];
      this.waiting.length = 0;
      await this.flush().catch(() => {});
      const made = await Promise.all(
        this.threads.map(
          ({ worker }) =>
            new Promise<string[]>((resolve) => {
              worker.on('message', (m: FromWriter) => 'created' in m && resolve(m.created));
              worker.once('exit', () => resolve([]));
              worker.postMessage({ created: true });
            }),
        ),
      );
      // Deepest first; a folder still holding a file is left (rmdir refuses it).
      for (const dir of made.flat().sort((a, b) => b.length - a.length)) {
        try {
          fs.rmdirSync(dir);
        } catch {}
      }
    }
    for (const { worker } of this.threads) worker.removeAllListeners('exit');
    await Promise.all(this.threads.map(({ worker }) => worker.terminate()));
  }

  /** The batch being filled joins those waiting to be given to a thread. */
  private queue(): void {
    if (this.batch.length === 0) return;
    this.waiting.push({ ops: this.batch, bytes: this.batchBytes });
    this.bytesAhead += this.batchBytes;
    this.batch = [];
    this.batchBytes = 0;
  }

  /**
   * Gives waiting batches to the threads: to the first while the build works, keeping it GIVEN
   * ahead; at the end to each thread as it runs short. A thread's progress is read from the count it
   * keeps, so that this needs no message from it.
   */
  private give(): void {
    const last = this.finishing ? this.threads.length : 1;
    for (let i = 0; i < last && this.waiting.length > 0; i++) {
      const thread = this.threads[i]!;
      const ahead = this.finishing ? 2 : GIVEN;
      while (this.waiting.length > 0 && this.inHand(i) < ahead) {
        const { ops, bytes } = this.waiting.shift()!;
        this.hand(thread, { ops }, bytes);
      }
    }
  }

  /** Batches given to thread `i` that it has not yet done (its answers may not have come yet). */
  private inHand(i: number): number {
    return this.threads[i]!.posted - Atomics.load(this.counts, i);
  }

  /** Gives a thread a batch of folders or files, answered for once done (`flush` waits for both). */
  private hand(thread: Thread, message: ToWriter, bytes: number): void {
    if (this.crash) throw this.crash;
    thread.worker.postMessage(message);
    thread.given.push(bytes);
    thread.posted++;
  }

  private next(): Promise<void> {
    if (this.crash) return Promise.reject(this.crash);
    return new Promise<void>((resolve) => (this.wake = resolve)).then(() => {
      this.wake = undefined;
      if (this.crash) throw this.crash;
    });
  }
}

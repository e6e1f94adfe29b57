// Puts files in place on a thread of its own (write-thread.ts): the file-system calls take as long
// as the rest of the build, and on the build's own thread they would wait for each other. Files go
// in batches by plain messages, and the writer answers each on a port the build's thread reads
// without waiting. While the writer is far enough behind, the build's thread places the next batch
// itself instead of queueing it, so that neither thread waits and the memory held stays bounded.
import { MessageChannel, receiveMessageOnPort, type Worker } from 'node:worker_threads';
import { startThread } from '../threads.ts';
import { WRITE_AHEAD, WRITE_AHEAD_BYTES, WRITE_BATCH, WRITE_DIR_BATCH } from '../tuning.ts';
import { makeDir, placeBatch, removeDirs, type Op } from './place.ts';
import type { FromWriter, ToWriter } from './write-thread.ts';

export type { Op } from './place.ts';

const sizeOf = (op: Op) => (op.body === undefined ? 0 : typeof op.body === 'string' ? op.body.length : op.body.byteLength);

/** The build thread's side. */
export class Writer {
  /** Started with the first batch sent: a rebuild that places a few files places them on the build's thread, at the flush. */
  private worker: Worker | undefined;
  /** Where the writer answers (`port2`, handed to the thread when it starts): read between batches, without giving up the thread. */
  private readonly answers = new MessageChannel();
  private batch: Op[] = [];
  private dirBatch: string[] = [];
  /** The bytes of each batch sent and not yet answered, oldest first. */
  private readonly pending: number[] = [];
  private pendingBytes = 0;
  private wake: (() => void) | undefined;
  private crash: Error | undefined;
  private closed = false;
  /** Folders made on this thread, for `close(true)`. */
  private readonly created: string[] = [];
  /** Paths that could not be placed, with the reason. */
  readonly failed = new Map<string, string>();
  /** Batches this thread placed itself. */
  helped = 0;

  constructor(private readonly ahead = { batches: WRITE_AHEAD, bytes: WRITE_AHEAD_BYTES }) {
    this.answers.port1.on('message', (m: FromWriter) => this.answered(m));
  }

  /** Starts the thread now, for a build that knows it will place many files: it takes tens of milliseconds to start. */
  start(): this {
    this.thread();
    return this;
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = startThread('write', { answers: this.answers.port2 }, [this.answers.port2]);
    const fail = (err: Error) => {
      this.crash ??= err;
      this.wake?.();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the writer thread stopped (exit code ${code})`)));
    return (this.worker = worker);
  }

  /** A folder to make, sent in batches, ahead of the files that go in it. */
  dir(dir: string): void {
    this.dirBatch.push(dir);
    if (this.dirBatch.length === WRITE_DIR_BATCH) this.sendDirs();
  }

  /**
   * Queues a file. A link to the file just before it goes in that file's batch: batches may be
   * placed out of order (here or by the writer), so a link may only name a file of its own batch
   * or of another tree.
   */
  add(op: Op): void {
    if (this.batch.length >= WRITE_BATCH && op.from !== this.batch.at(-1)!.path) this.dispatch();
    this.batch.push(op);
  }

  /** Waits until every file queued so far is placed (or has failed). */
  async flush(): Promise<void> {
    if (!this.worker) return this.placeHere();
    this.sendDirs();
    this.dispatch();
    while (this.pending.length > 0) await this.next();
  }

  /**
   * With nothing sent yet, what is queued (less than a batch of files and of folders) is placed on
   * this thread: starting the writer's would take longer than placing them.
   */
  private placeHere(): void {
    for (const dir of this.dirBatch.splice(0)) {
      try {
        makeDir(dir, this.created);
      } catch {} // a file that needs the folder reports the failure
    }
    for (const [p, why] of placeBatch(this.batch.splice(0), this.created)) this.failed.set(p, why);
  }

  /**
   * Stops the thread. With `undo`, the build is abandoned: the folders made for it that are still
   * empty are removed first, so that a failed build leaves no trace.
   */
  async close(undo = false): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (undo && (this.crash || !this.worker)) removeDirs(this.created);
    else if (undo) {
      this.dirBatch = [];
      this.batch = [];
      this.post({ undo: this.created });
      this.pending.push(0);
      while (this.pending.length > 0) await this.next().catch(() => this.pending.splice(0));
    }
    this.worker?.removeAllListeners('exit');
    this.answers.port1.close();
    await this.worker?.terminate();
  }

  private answered(m: FromWriter): void {
    this.pendingBytes -= this.pending.shift() ?? 0;
    for (const [p, why] of m.failed) this.failed.set(p, why);
    this.wake?.();
  }

  /** Sends the batch, or places it here while the writer is far enough behind. */
  private dispatch(): void {
    const ops = this.batch;
    if (ops.length === 0) return;
    this.batch = [];
    for (let m = receiveMessageOnPort(this.answers.port1); m; m = receiveMessageOnPort(this.answers.port1))
      this.answered(m.message as FromWriter);
    if (this.pending.length >= this.ahead.batches || this.pendingBytes >= this.ahead.bytes) {
      this.sendDirs(); // the writer makes the folders sent so far before the files it is sent later
      for (const [p, why] of placeBatch(ops, this.created)) this.failed.set(p, why);
      this.helped++;
      return;
    }
    const bytes = ops.reduce((n, op) => n + sizeOf(op), 0);
    this.post({ ops });
    this.pending.push(bytes);
    this.pendingBytes += bytes;
  }

  private sendDirs(): void {
    if (this.dirBatch.length) this.post({ dirs: this.dirBatch });
    this.dirBatch = [];
  }

  private post(message: ToWriter): void {
    if (this.crash) throw this.crash;
    this.thread().postMessage(message);
  }

  private next(): Promise<void> {
    if (this.crash) return Promise.reject(this.crash);
    return new Promise<void>((resolve) => (this.wake = resolve)).then(() => {
      this.wake = undefined;
      if (this.crash) throw this.crash;
    });
  }
}

// Puts files in place on a thread of its own (writer-thread.mjs): the file-system calls take as long
// as the rest of the build, and on the build's own thread they would wait for each other.
//
// The files' bytes go through a ring of memory both threads share: the build's thread writes each
// body into it once, and the writer writes it to disk from there, with nothing copied between them
// and nothing kept on either thread's heap. Whenever the build's thread would only wait — for room
// in the ring, or for the last files once it has given them all — it places the newest batches the
// writer has not begun itself, while the writer works through the older ones.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { BY_BUILD, makeDir, PLACED, placeOp, UNCLAIMED } from './place.mjs';

/** One file to place: write `body`, or hard-link `from` (a file placed earlier, or another tree's). */
export interface Op {
  path: string;
  body?: string | Uint8Array;
  from?: string;
  /** A file stands at `path` already: it is removed first (files are never written in place). */
  replace?: boolean;
}

/** An op as it is sent: its body, unless too large, as `len` bytes of the ring at `at`. */
export interface SentOp extends Op {
  at?: number;
  len?: number;
}

type ToWriter = { dirs: string[] } | { ops: SentOp[]; seq: number } | { undo: string[] };
/** Sent once per batch of ops, when all of them have ended: the paths that failed, and why. */
type FromWriter = { failed: Array<[string, string]> };

const BATCH = 64;
/**
 * Batches sent and not yet placed, and their bytes: enough that the build's thread can go on to
 * read the records of late kinds (order.ts) while the writer places what came before — in a world
 * of PokeAPI's size, 12 MiB in 21,085 files — and that a slow moment of the file system does not
 * hold it up; few enough to bound the memory held.
 */
const AHEAD = 1024;
const AHEAD_BYTES = 32 * 2 ** 20;
/** A body larger than this is sent as it is, not through the ring (a list of many records, say). */
const LARGEST_IN_RING = 2 ** 20;
/** The ring: the bytes ahead, and room for a batch's bodies beyond them. */
const RING_BYTES = AHEAD_BYTES + 4 * LARGEST_IN_RING;
/** Slots for batches, in the array that says which thread took each: more than can be outstanding. */
const SLOTS = 2 * AHEAD;

/** The build thread's side. */
export class Writer {
  private readonly worker: Worker;
  private batch: SentOp[] = [];
  /** Messages that are answered (batches, and the undo), sent and answered. */
  private sent = 0;
  private done = 0;
  private wake: (() => void) | undefined;
  private crash: Error | undefined;
  private closed = false;

  /** Batches sent (`seq` the next one's number); those from `oldest` on are not yet known placed. */
  private seq = 0;
  private oldest = 0;
  /** Per slot: its batch's ops, and where its bytes end in the ring. */
  private readonly posted: Array<SentOp[] | undefined> = new Array(SLOTS);
  private readonly ends = new Float64Array(SLOTS);
  /** Per slot, which thread took its batch (the first to claim it places it), and when it is placed. */
  private readonly claims = new Int32Array(new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT));
  /**
   * How many batches the writer has come to, placed or passed over: a slot is used again only once
   * it has come to the batch that held it before.
   */
  private readonly reached = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));

  /** The ring, and the bytes written to it (`head`) and let go (`tail`) since the start. */
  private readonly ring = Buffer.from(new SharedArrayBuffer(RING_BYTES));
  private head = 0;
  private tail = 0;

  /** Folders made on this thread, for `undo`. */
  private readonly created: string[] = [];
  /** Paths that could not be placed, with the reason. */
  readonly failed = new Map<string, string>();
  /** Batches this thread placed itself. */
  helped = 0;

  constructor() {
    // Plain JavaScript needs no loader: the thread starts without the options (`--import tsx`) this one started with.
    this.worker = new Worker(new URL('./writer-thread.mjs', import.meta.url), {
      execArgv: [],
      workerData: { claims: this.claims, reached: this.reached, ring: this.ring.buffer },
    });
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

  /**
   * Queues a file. While the writer is far enough behind, returns a promise to wait for; otherwise
   * nothing (a promise for each of tens of thousands of files costs the build's thread its time).
   */
  add(op: Op): Promise<void> | undefined {
    let wait: Promise<void> | undefined;
    // A link to the file just before it goes in that file's batch: whichever thread places the
    // batch finds the file there.
    if (this.batch.length >= BATCH && op.from !== this.batch.at(-1)!.path) {
      this.send();
      if (this.behind()) wait = this.room();
    }
    this.batch.push(op.body === undefined ? op : this.inRing(op, op.body));
    return wait;
  }

  /** The op with its body copied into the ring, when it fits; otherwise as it is. */
  private inRing(op: Op, body: string | Uint8Array): SentOp {
    const len = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    if (len > LARGEST_IN_RING) return op;
    // A body is never split at the ring's end: it starts again at the beginning.
    let at = this.head % RING_BYTES;
    const skip = at + len > RING_BYTES ? RING_BYTES - at : 0;
    if (this.head + skip + len - this.tail > RING_BYTES) {
      this.release();
      if (this.head + skip + len - this.tail > RING_BYTES) return op;
    }
    this.head += skip;
    at = this.head % RING_BYTES;
    if (typeof body === 'string') this.ring.write(body, at, len);
    else this.ring.set(body, at);
    this.head += len;
    return { path: op.path, at, len, replace: op.replace };
  }

  /** Lets go of the batches placed, oldest first, and the ring's bytes they held. */
  private release(): void {
    while (this.oldest < this.seq && this.placed(Atomics.load(this.claims, this.oldest % SLOTS))) {
      const slot = this.oldest % SLOTS;
      this.posted[slot] = undefined;
      this.tail = this.ends[slot]!;
      this.oldest++;
    }
  }

  /**
   * Whether a batch's claim says it is placed: by the writer, which says so once done, or by this
   * thread, which places a batch it took before it does anything else.
   */
  private placed(claim: number): boolean {
    return claim === PLACED || claim === BY_BUILD;
  }

  private behind(): boolean {
    this.release();
    return this.seq - this.oldest >= AHEAD || this.seq - Atomics.load(this.reached, 0) >= AHEAD || this.head - this.tail >= AHEAD_BYTES;
  }

  /** Until the writer is less far behind, this thread places batches itself, or waits. */
  private async room(): Promise<void> {
    while (this.behind()) if (!this.help(1)) await this.next();
  }

  /**
   * Waits until every file queued so far is placed (or has failed), placing the newest batches the
   * writer has not begun meanwhile.
   */
  async flush(): Promise<void> {
    this.sendDirs();
    this.send();
    this.help(Infinity);
    await this.settled();
  }

  private async settled(): Promise<void> {
    while (this.done < this.sent) await this.next();
  }

  /**
   * Places up to `most` batches on this thread: the newest the writer has not begun, one at a time,
   * so that the two threads meet in the middle. Says whether it placed any.
   */
  private help(most: number): boolean {
    let placed = 0;
    for (let seq = this.seq - 1; seq >= this.oldest && placed < most; seq--) {
      const slot = seq % SLOTS;
      const claim = Atomics.compareExchange(this.claims, slot, UNCLAIMED, BY_BUILD);
      if (claim === BY_BUILD) continue; // placed here before
      // The writer takes batches in order: below one it took, it took every one.
      if (claim !== UNCLAIMED) break;
      for (const op of this.posted[slot]!) this.placeHere(op);
      placed++;
      this.helped++;
    }
    return placed > 0;
  }

  /** Places a file on this thread; its folder, unless the writer made it already, is made here. */
  private placeHere(op: SentOp): void {
    try {
      try {
        placeOp(op, this.ring);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        makeDir(path.dirname(op.path), this.created);
        placeOp(op, this.ring);
      }
    } catch (err) {
      this.failed.set(op.path, (err as Error).message);
    }
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
      this.post({ undo: this.created });
      this.sent++;
      await this.settled().catch(() => {});
    }
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }

  private send(): void {
    if (this.batch.length === 0) return;
    const slot = this.seq % SLOTS;
    Atomics.store(this.claims, slot, UNCLAIMED);
    this.posted[slot] = this.batch;
    this.ends[slot] = this.head;
    this.post({ ops: this.batch, seq: this.seq++ });
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

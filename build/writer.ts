// Puts files in place on a thread of its own. Each file takes several file-system calls (open,
// write, close; mkdir, link, rm), each answered on the thread that asked: on the build's main
// thread they wait while records are serialised, and the disk idles. The writer's thread only asks.
import fs from 'node:fs/promises';
import path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

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
/** Batches sent and not yet done: enough to keep the writer busy, few enough to bound the bytes held. */
const AHEAD = 4;
const FILES_AT_ONCE = 64;
const DIRS_AT_ONCE = 8;

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
    this.worker = new Worker(new URL('./thread.mjs', import.meta.url), { workerData: { module: import.meta.url, role: 'writer' } });
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

  /** A folder to make, a few at a time, ahead of the files that go in it. */
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

/** The writer's thread: places what it is sent, in order of arrival, a bounded number at a time. */
function serve(port: NonNullable<typeof parentPort>): void {
  const dirs = new Map<string, Promise<unknown>>();
  /** Folders this thread made (rather than found), for `undo`. */
  const created = new Set<string>();
  const ensureDir = (dir: string) => {
    let made = dirs.get(dir);
    if (!made) {
      made = fs.mkdir(dir, { recursive: true }).then((first) => {
        if (first === undefined) return;
        for (let d = dir; d.length >= first.length; d = path.dirname(d)) created.add(d);
      });
      dirs.set(dir, made);
    }
    return made;
  };
  const dirQueue: string[] = [];
  let dirAt = 0;
  let dirsRunning = 0;
  const pumpDirs = () => {
    while (dirsRunning < DIRS_AT_ONCE && dirAt < dirQueue.length) {
      dirsRunning++;
      ensureDir(dirQueue[dirAt++]!)
        .catch(() => {}) // a file that needs the folder reports the failure
        .finally(() => {
          dirsRunning--;
          pumpDirs();
        });
    }
    if (dirAt === dirQueue.length) dirQueue.length = dirAt = 0;
  };

  /** Files in flight, by path: a link to one of them waits for it. */
  const placing = new Map<string, Promise<void>>();
  const place = async (op: Op) => {
    await ensureDir(path.dirname(op.path));
    if (op.replace) await fs.rm(op.path, { force: true });
    if (op.from !== undefined) {
      await placing.get(op.from)?.catch(() => {});
      await fs.link(op.from, op.path);
    } else await fs.writeFile(op.path, op.body!);
  };

  const batches: Array<{ left: number; failed: Array<[string, string]> }> = [];
  let sentUpTo = 0;
  const queue: Array<[Op, (typeof batches)[number]]> = [];
  let queueAt = 0;
  let running = 0;
  const pump = () => {
    while (running < FILES_AT_ONCE && queueAt < queue.length) {
      const [op, batch] = queue[queueAt]!;
      queue[queueAt++] = undefined as never;
      running++;
      const job = place(op);
      placing.set(op.path, job);
      job
        .catch((err: Error) => batch.failed.push([op.path, err.message]))
        .finally(() => {
          placing.delete(op.path);
          running--;
          batch.left--;
          // Batches are answered in the order they came.
          while (sentUpTo < batches.length && batches[sentUpTo]!.left === 0) {
            port.postMessage({ failed: batches[sentUpTo]!.failed } satisfies FromWriter);
            batches[sentUpTo++] = undefined as never;
          }
          pump();
        });
    }
    if (queueAt === queue.length) queue.length = queueAt = 0;
  };

  /** Once every folder and file asked for has been dealt with: the folders made, emptiest first, go. */
  const undo = async () => {
    dirQueue.length = dirAt = 0;
    while (dirsRunning > 0 || running > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const made = [...created].sort((a, b) => b.length - a.length);
    for (const dir of made) await fs.rmdir(dir).catch(() => {});
    port.postMessage({ failed: [] } satisfies FromWriter);
  };

  port.on('message', (m: ToWriter) => {
    if ('undo' in m) {
      void undo();
      return;
    }
    if ('dirs' in m) {
      for (const dir of m.dirs) dirQueue.push(dir);
      pumpDirs();
      return;
    }
    const batch = { left: m.ops.length, failed: [] as Array<[string, string]> };
    batches.push(batch);
    for (const op of m.ops) queue.push([op, batch]);
    pump();
  });
}

if (!isMainThread && (workerData as { role?: string } | undefined)?.role === 'writer') serve(parentPort!);

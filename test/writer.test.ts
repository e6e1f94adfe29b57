// The writer places every file it is given on its thread: a record's name path, a link to its id
// path, is placed after that file; a folder not made ahead is made when a file needs it; a file it
// cannot place is reported; and an abandoned build's folders are removed again. While the writer is
// too far behind (in batches or in bytes), the build's thread places the next batch itself, and it
// places fewer files than a batch itself, at the flush, without starting the writer's thread.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Writer, type Op } from '../build/output/writer.ts';
import { WRITE_BATCH } from '../build/tuning.ts';
import { tempDir } from './helpers.ts';

/** A tree's files (relative path → text), and which of them are one file under two names. */
function read(root: string): { files: Record<string, string>; inodes: Record<string, number> } {
  const files: Record<string, string> = {};
  const inodes: Record<string, number> = {};
  for (const rel of fs.readdirSync(root, { recursive: true }) as string[]) {
    const stat = fs.statSync(path.join(root, rel));
    if (!stat.isFile()) continue;
    files[rel] = fs.readFileSync(path.join(root, rel), 'utf8');
    inodes[rel] = stat.ino;
  }
  return { files, inodes };
}

/**
 * A named pipe, and a file joined from it: the writer's thread, reading the pipe, stays on the batch
 * that holds the file until `release` writes to the pipe. The file goes in the first batch, which is
 * always sent to the writer (nothing is pending then): the build's thread, which places only batches
 * it has not sent, never reads the pipe, or it would hold the test. The file is made outside `root`,
 * so that the files counted there are the others.
 */
function pipe(root: string): { op: Op; release: () => void; placed: () => string } {
  const file = path.join(root, 'pipe');
  execFileSync('mkfifo', [file]);
  const held = fs.mkdtempSync(path.join(os.tmpdir(), 'crs-held-'));
  onTestFinished(() => fs.rmSync(held, { recursive: true, force: true }));
  const target = path.join(held, 'held');
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    // Opened without waiting, once the writer has the pipe open to read it.
    const deadline = Date.now() + 20_000;
    let fd: number | undefined;
    while (fd === undefined) {
      if (Date.now() > deadline) throw new Error('the writer never read the pipe');
      try {
        fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENXIO') throw err;
      }
    }
    fs.writeSync(fd, 'first');
    fs.closeSync(fd);
  };
  // A test that fails while the writer waits on the pipe lets it go, or the thread could not end.
  onTestFinished(() => {
    try {
      release();
    } catch {}
  });
  return { op: { path: target, join: { parts: [file], compact: false } }, release, placed: () => fs.readFileSync(target, 'utf8') };
}

/**
 * How many batches `ops` go in, given in that order: a batch is sent once it holds WRITE_BATCH
 * files, but a link to the file just before it stays in that file's batch.
 */
function batchesOf(ops: Op[]): number {
  let batches = 0;
  let size = 0;
  let last: string | undefined;
  for (const op of ops) {
    if (size >= WRITE_BATCH && op.from !== last) size = 0;
    if (size === 0) batches++;
    size++;
    last = op.path;
  }
  return batches;
}

/** A record's file by id and its link by name, under `root`. */
function recordOps(root: string, records: number): Op[] {
  return Array.from({ length: records }, (_, i): Op[] => {
    const id = path.join(root, 'kind', String(i), 'index.json');
    return [
      { path: id, body: `{"id":${i}}` },
      { path: path.join(root, 'kind', `name-${i}`, 'index.json'), from: id },
    ];
  }).flat();
}

/** Each record's file holds its id, and its name path is the same file. */
function expectRecords(root: string, records: number): void {
  const { files, inodes } = read(root);
  for (let i = 0; i < records; i++) {
    const id = path.join('kind', String(i), 'index.json');
    const name = path.join('kind', `name-${i}`, 'index.json');
    expect(files[id], id).toBe(`{"id":${i}}`);
    expect(inodes[name], name).toBe(inodes[id]);
  }
}

describe('the writer', () => {
  it('places every file, each link after the file it links to, with folders made ahead or not', async () => {
    const root = await tempDir();
    const writer = new Writer();
    // One file first, so that a batch of 64 would end between a record's two paths: a link goes in
    // its file's batch all the same.
    expect(writer.add({ path: path.join(root, 'index.json'), body: '{}' })).toBeUndefined(); // nothing to wait for
    const records = 3000;
    for (let i = 0; i < records; i++) {
      const idDir = path.join(root, 'kind', String(i));
      const nameDir = path.join(root, 'kind', `name-${i}`);
      // Half the folders are made ahead, as the build does; the others when their file needs one.
      if (i % 2 === 0) {
        writer.dir(idDir);
        writer.dir(nameDir);
      }
      const id = path.join(idDir, 'index.json');
      writer.add({ path: id, body: `{"id":${i}}` });
      writer.add({ path: path.join(nameDir, 'index.json'), from: id });
    }
    await writer.flush();
    await writer.close();
    expect([...writer.failed]).toEqual([]);
    const { files } = read(root);
    expect(Object.keys(files)).toHaveLength(1 + 2 * records);
    expect(files['index.json']).toBe('{}');
    expectRecords(root, records);
  });

  it('reports a file it cannot place, and places the rest', async () => {
    const root = await tempDir();
    const writer = new Writer();
    fs.writeFileSync(path.join(root, 'blocker'), '');
    for (let i = 0; i < 200; i++) writer.add({ path: path.join(root, `f${i}`, 'index.json'), body: String(i) });
    writer.add({ path: path.join(root, 'blocker', 'index.json'), body: 'x' });
    writer.add({ path: path.join(root, 'linked'), from: path.join(root, 'missing') });
    await writer.flush();
    await writer.close();
    expect([...writer.failed.keys()].sort()).toEqual([path.join(root, 'blocker', 'index.json'), path.join(root, 'linked')]);
    const { files } = read(root);
    expect(Object.keys(files)).toHaveLength(201); // the blocker and the 200 placed
    for (let i = 0; i < 200; i++) expect(files[path.join(`f${i}`, 'index.json')]).toBe(String(i));
  });

  it('removes the folders it made when the build is abandoned, made ahead or for a file', async () => {
    const root = await tempDir();
    fs.mkdirSync(path.join(root, 'kept'));
    const writer = new Writer();
    for (let i = 0; i < 100; i++) writer.dir(path.join(root, 'ahead', String(i)));
    // Files in folders not made ahead.
    const placed: string[] = [];
    for (let i = 0; i < 2000; i++) {
      placed.push(path.join(root, 'late', String(i), 'index.json'));
      writer.add({ path: placed.at(-1)!, body: String(i) });
    }
    writer.add({ path: path.join(root, 'kept', 'index.json'), body: 'kept' });
    await writer.flush();
    expect(fs.readdirSync(path.join(root, 'ahead'))).toHaveLength(100);
    // The build failed: its files are removed, then the writer removes the folders it made.
    for (const file of placed) fs.rmSync(file);
    await writer.close(true);
    expect(fs.readdirSync(root).sort()).toEqual(['kept']);
    expect(fs.readdirSync(path.join(root, 'kept'))).toEqual(['index.json']);
  });

  it("places batches on the build's thread while the writer is held up, links with their files", async () => {
    const root = await tempDir();
    const held = pipe(root);
    // At most two batches ahead of the writer; bytes do not count here.
    const writer = new Writer({ batches: 2, bytes: Infinity });
    const records = 2000;
    const ops: Op[] = [held.op, ...recordOps(root, records)];
    for (const op of ops) writer.add(op);
    // The writer waits on the pipe, in the first batch: the second is sent too, and every batch
    // after them is placed here, each record's link in its file's batch. The last goes as the
    // writer is flushed.
    const batches = batchesOf(ops);
    expect(writer.helped).toBe(batches - 3);
    const flushing = writer.flush();
    expect(writer.helped).toBe(batches - 2);
    // Placed here already, before the writer goes on: all but the first two batches' records.
    const { files } = read(root);
    const here = Object.keys(files).length;
    expect(here).toBe(ops.length - 2 * WRITE_BATCH - 1); // the first batch holds one link more
    held.release();
    await flushing;
    expect(held.placed()).toBe('first\n');
    await writer.close();
    expect([...writer.failed]).toEqual([]);
    expectRecords(root, records);
    expect(Object.keys(read(root).files)).toHaveLength(2 * records);
  });

  it("makes the build's thread place batches when too many bytes are ahead of the writer", async () => {
    const root = await tempDir();
    const held = pipe(root);
    // Any number of batches ahead, but not 256 KiB.
    const writer = new Writer({ batches: 1000, bytes: 256 * 1024 });
    const body = (i: number, size: number) => String(i % 10).repeat(size);
    // The pipe's batch and three more of small files, then four of 8 KiB files (half a mebibyte a
    // batch), the last of them with a file of 3 MiB.
    const sizes = [
      ...Array.from({ length: WRITE_BATCH - 1 + 3 * WRITE_BATCH }, () => 10),
      ...Array.from({ length: 4 * WRITE_BATCH - 1 }, () => 8 * 1024),
      3 * 2 ** 20,
    ];
    const ops: Op[] = [held.op, ...sizes.map((size, i) => ({ path: path.join(root, `f${i}`), body: body(i, size) }))];
    const bigFrom = 4 * WRITE_BATCH; // the first op of the first batch of large files
    for (const [i, op] of ops.entries()) {
      writer.add(op);
      // Adding the first file of a batch sends the one before it: the small batches and the first
      // large one are sent, four and then five batches ahead, fewer bytes than the bound.
      if (i === bigFrom || i === bigFrom + WRITE_BATCH) expect(writer.helped, `at ${i}`).toBe(0);
      // Half a mebibyte ahead now: the next batches are placed here.
      if (i === bigFrom + 2 * WRITE_BATCH) expect(writer.helped).toBe(1);
    }
    expect(writer.helped).toBe(2);
    const flushing = writer.flush();
    expect(writer.helped).toBe(3);
    // The batches placed here are on disk before the writer has placed anything.
    for (let i = bigFrom + 2 * WRITE_BATCH; i < ops.length; i++) expect(fs.readFileSync(ops[i]!.path, 'utf8')).toBe(ops[i]!.body);
    // The batches sent, the first large one among them, wait for the writer.
    for (const i of [1, bigFrom - 1, bigFrom, bigFrom + WRITE_BATCH - 1]) expect(fs.existsSync(ops[i]!.path), `at ${i}`).toBe(false);
    held.release();
    await flushing;
    expect(held.placed()).toBe('first\n');
    await writer.close();
    expect([...writer.failed]).toEqual([]);
    for (const [i, size] of sizes.entries()) expect(fs.readFileSync(path.join(root, `f${i}`), 'utf8')).toBe(body(i, size));
  });

  it("removes the folders the build's thread made too when the build is abandoned", async () => {
    const root = await tempDir();
    const held = pipe(root);
    const writer = new Writer({ batches: 2, bytes: Infinity });
    writer.add(held.op);
    const placed: string[] = [];
    for (let i = 0; i < 500; i++) {
      placed.push(path.join(root, 'deep', String(i), 'index.json'));
      writer.add({ path: placed.at(-1)!, body: String(i) });
    }
    const flushing = writer.flush();
    expect(writer.helped).toBe(Math.ceil(501 / WRITE_BATCH) - 2);
    // Folders the build's thread made, the writer's thread having made none yet.
    expect(fs.readdirSync(path.join(root, 'deep'))).toHaveLength(500 + 1 - 2 * WRITE_BATCH);
    held.release();
    await flushing;
    expect(fs.readdirSync(path.join(root, 'deep'))).toHaveLength(500);
    for (const file of placed) fs.rmSync(file);
    await writer.close(true);
    expect(fs.readdirSync(root)).toEqual(['pipe']);
  });

  it("places fewer files than a batch on the build's thread as it is flushed, and removes its folders when abandoned", async () => {
    const root = await tempDir();
    fs.writeFileSync(path.join(root, 'blocker'), '');
    const writer = new Writer();
    writer.dir(path.join(root, 'ahead'));
    const ops = recordOps(root, 5);
    for (const op of ops) writer.add(op);
    writer.add({ path: path.join(root, 'blocker', 'index.json'), body: 'x' });
    expect(ops.length + 1).toBeLessThan(WRITE_BATCH);
    expect(fs.existsSync(path.join(root, 'kind'))).toBe(false); // nothing placed before the flush
    const flushing = writer.flush();
    // In place as the flush is called, before anything is awaited: placed on this thread, not sent
    // to the writer's, which a rebuild of one record does not wait to start.
    expectRecords(root, 5);
    expect(fs.existsSync(path.join(root, 'ahead'))).toBe(true);
    await flushing;
    expect([...writer.failed.keys()]).toEqual([path.join(root, 'blocker', 'index.json')]);
    for (const op of ops) fs.rmSync(op.path);
    await writer.close(true);
    expect(fs.readdirSync(root)).toEqual(['blocker']);
  });
});

// The writer places every file it is given on its thread: a record's name path, a link to its id
// path, is placed after that file; a folder not made ahead is made when a file needs it; a file it
// cannot place is reported; and an abandoned build's folders are removed again. While the writer is
// behind, the build's thread places the newest batches itself.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { UNCLAIMED } from '../build/place.mjs';
import { Writer } from '../build/writer.ts';
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
 * A named pipe: a file written to it is not placed until the pipe is read, so the writer stays on
 * the batch that holds it until `release` is called.
 */
function pipe(root: string): { path: string; release: () => string; taken: (writer: Writer) => Promise<void> } {
  const file = path.join(root, 'pipe');
  execFileSync('mkfifo', [file]);
  let read: string | undefined;
  // Once the pipe's batch (the first) is sent, the writer's thread must take it before the build's
  // thread would: placed there, the pipe would hold the build's thread, and the test with it.
  let taken = false;
  const waitTaken = async (writer: Writer) => {
    const inside = writer as unknown as { claims: Int32Array; seq: number };
    if (taken || inside.seq === 0) return;
    while (Atomics.load(inside.claims, 0) === UNCLAIMED) await new Promise((r) => setTimeout(r, 2));
    taken = true;
  };
  const release = () => {
    if (read !== undefined) return read;
    // Opened without waiting; the writer's open then goes through, and its bytes are read here.
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const chunks: Buffer[] = [];
    const buffer = Buffer.alloc(1024);
    for (;;) {
      let n = 0;
      try {
        n = fs.readSync(fd, buffer);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
        continue; // the writer has not written yet
      }
      if (n === 0 && chunks.length > 0) break; // written and closed
      if (n > 0) chunks.push(Buffer.from(buffer.subarray(0, n)));
    }
    fs.closeSync(fd);
    return (read = Buffer.concat(chunks).toString());
  };
  // A test that fails while the writer waits on the pipe lets it go, or the thread could not end.
  onTestFinished(() => void release());
  return { path: file, release, taken: waitTaken };
}

describe('the writer', () => {
  it('places every file, each link after the file it links to, with folders made ahead or not', async () => {
    const root = await tempDir();
    const writer = new Writer();
    // One file first, so that a batch of 64 would end between a record's two paths: a link goes in
    // its file's batch all the same.
    expect(writer.add({ path: path.join(root, 'index.json'), body: '{}' })).toBeUndefined(); // no promise: nothing to wait for
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
      await writer.add({ path: id, body: `{"id":${i}}` });
      await writer.add({ path: path.join(nameDir, 'index.json'), from: id });
    }
    await writer.flush();
    await writer.close();
    expect([...writer.failed]).toEqual([]);
    const { files, inodes } = read(root);
    expect(Object.keys(files)).toHaveLength(1 + 2 * records);
    for (let i = 0; i < records; i++) {
      const id = path.join('kind', String(i), 'index.json');
      const name = path.join('kind', `name-${i}`, 'index.json');
      expect(files[id]).toBe(`{"id":${i}}`);
      expect(inodes[name]).toBe(inodes[id]);
    }
  });

  it('reports a file it cannot place, and places the rest', async () => {
    const root = await tempDir();
    const writer = new Writer();
    fs.writeFileSync(path.join(root, 'blocker'), '');
    for (let i = 0; i < 200; i++) await writer.add({ path: path.join(root, `f${i}`, 'index.json'), body: String(i) });
    await writer.add({ path: path.join(root, 'blocker', 'index.json'), body: 'x' });
    await writer.add({ path: path.join(root, 'linked'), from: path.join(root, 'missing') });
    await writer.flush();
    await writer.close();
    expect([...writer.failed.keys()].sort()).toEqual([path.join(root, 'blocker', 'index.json'), path.join(root, 'linked')]);
    expect(Object.keys(read(root).files)).toHaveLength(201); // the blocker and the 200 placed
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
      await writer.add({ path: placed.at(-1)!, body: String(i) });
    }
    await writer.add({ path: path.join(root, 'kept', 'index.json'), body: 'kept' });
    await writer.flush();
    // The build failed: its files are removed, then the writer removes the folders it made.
    for (const file of placed) fs.rmSync(file);
    await writer.close(true);
    expect(fs.readdirSync(root).sort()).toEqual(['kept']);
    expect(fs.readdirSync(path.join(root, 'kept'))).toEqual(['index.json']);
  });

  it("places the newest batches on the build's thread while the writer is held up, links with their files", async () => {
    const root = await tempDir();
    const held = pipe(root);
    const writer = new Writer();
    await writer.add({ path: held.path, body: 'first' });
    const records = 2000;
    for (let i = 0; i < records; i++) {
      const id = path.join(root, 'kind', String(i), 'index.json');
      await writer.add({ path: id, body: `{"id":${i}}` });
      await writer.add({ path: path.join(root, 'kind', `name-${i}`, 'index.json'), from: id });
      await held.taken(writer);
    }
    // The writer waits on the pipe, in the first batch: every other batch is placed here, newest
    // first, each record's link in its file's batch.
    const flushing = writer.flush();
    const batches = Math.ceil((1 + 2 * records) / 64);
    expect(writer.helped).toBe(batches - 1);
    expect(held.release()).toBe('first');
    await flushing;
    await writer.close();
    expect([...writer.failed]).toEqual([]);
    const { files, inodes } = read(root);
    for (let i = 0; i < records; i++) {
      const id = path.join('kind', String(i), 'index.json');
      expect(files[id]).toBe(`{"id":${i}}`);
      expect(inodes[path.join('kind', `name-${i}`, 'index.json')]).toBe(inodes[id]);
    }
  });

  it("makes the build's thread place files when too many bytes are ahead, and a body too large for the ring is placed all the same", async () => {
    const root = await tempDir();
    const held = pipe(root);
    const writer = new Writer();
    await writer.add({ path: held.path, body: 'first' });
    const body = (i: number, size: number) => String(i % 10).repeat(size);
    // Half a mebibyte each: the second batch brings the bytes ahead past 32 MiB.
    const sizes = [...Array.from({ length: 63 }, () => 1024), ...Array.from({ length: 70 }, () => 512 * 1024), 3 * 2 ** 20];
    let waited = 0;
    for (const [i, size] of sizes.entries()) {
      const wait = writer.add({ path: path.join(root, `f${i}`), body: body(i, size) });
      await held.taken(writer);
      if (!wait) continue;
      waited++;
      // The build's thread has placed the newest batch already; now it waits for the writer.
      expect(writer.helped).toBe(1);
      setTimeout(() => held.release(), 50);
      await wait;
    }
    expect(waited).toBe(1);
    await writer.flush();
    await writer.close();
    expect([...writer.failed]).toEqual([]);
    for (const [i, size] of sizes.entries()) expect(fs.readFileSync(path.join(root, `f${i}`), 'utf8')).toBe(body(i, size));
  });

  it("removes the folders the build's thread made too when the build is abandoned", async () => {
    const root = await tempDir();
    const held = pipe(root);
    const writer = new Writer();
    await writer.add({ path: held.path, body: 'first' });
    const placed: string[] = [];
    for (let i = 0; i < 500; i++) {
      placed.push(path.join(root, 'deep', String(i), 'index.json'));
      await writer.add({ path: placed.at(-1)!, body: String(i) });
      await held.taken(writer);
    }
    const flushing = writer.flush();
    expect(writer.helped).toBeGreaterThan(0);
    held.release();
    await flushing;
    for (const file of placed) fs.rmSync(file);
    await writer.close(true);
    expect(fs.readdirSync(root)).toEqual(['pipe']);
  });
});

// The writer places every file it is given on its thread: a record's name path, a link to its id
// path, is placed after that file; a folder not made ahead is made when a file needs it; a file it
// cannot place is reported; and an abandoned build's folders are removed again.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
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

describe('the writer', () => {
  it('places every file, each link after the file it links to, with folders made ahead or not', async () => {
    const root = await tempDir();
    const writer = new Writer();
    // One file first, so that the batches' boundaries fall between a record's two paths: a link
    // whose file went in the batch before still finds it.
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
});

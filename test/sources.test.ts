// Source files are listed in the order of their paths, whatever order the file system gives them
// in: the build indexes them, and so reports clashes and writes lists, in that order.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSources } from '../build/load.ts';
import { Problems } from '../build/problems.ts';
import { tempDir } from './helpers.ts';

describe('the source listing', () => {
  it('gives files in the order of their paths, named from the data folder', async () => {
    const data = path.join(await tempDir(), 'world');
    // 'type-x/…' sorts before 'type/…' ('-' before '/'), though the folder 'type' sorts first.
    const names = ['type/b.yaml', 'type/a.yaml', 'type/a-b.yaml', 'type/a.json', 'type-x/z.yaml', 'stat/1.yaml', 'type.d/c.yaml'];
    for (const name of names) {
      fs.mkdirSync(path.dirname(path.join(data, name)), { recursive: true });
      fs.writeFileSync(path.join(data, name), 'id: 1\n');
    }
    const rels = (await readSources(data, new Problems())).map((f) => f.rel);
    const expected = names.map((n) => `world/${n}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(rels).toEqual(expected);
    expect(rels.indexOf('world/type-x/z.yaml')).toBeLessThan(rels.indexOf('world/type/a.yaml'));

    // Listed on a thread of their own (as for a large world), with their sizes and times, the same.
    const here = await readSources(data, new Problems());
    const onThread = await readSources(data, new Problems(), Promise.resolve(undefined), true);
    expect(onThread.map(({ rel, size, mtimeMs }) => ({ rel, size, mtimeMs }))).toEqual(
      here.map(({ rel, size, mtimeMs }) => ({ rel, size, mtimeMs })),
    );
    expect(onThread[0]!.size).toBe(6);
  });
});

// A tree's manifest reads back as it was written, whatever its paths hold, and a damaged one reads
// as no manifest at all (its tree is then built again from nothing).
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileList, formatManifest, Lines, manifestOf, readManifest, stampText } from '../build/incremental/manifest.ts';
import { layout, putManifest } from '../build/output/slots.ts';
import { WRITE_CHARS } from '../build/cache.mjs';
import { tempDir } from './helpers.ts';

const written = {
  key: 'k1',
  tool: 't1',
  settings: 's1',
  records: { type: 2 },
  previous: 'k0',
  sources: [
    ['data/type/fire.yaml', [120, 1700000000123.456, 'h1']],
    ['data/type/odd\tname.yaml', [7, 1, 'h2']],
    ['"quoted".yaml', [0, 0, 'h3']],
  ] as Array<[string, [number, number, string]]>,
  diff: new Map([
    ['api/v2/type/1/index.json', '10.x'],
    ['gone\nline.json', ''],
  ]),
  files: new Map([
    ['api/v2/type/1/index.json', '12.a'],
    ['api/v2/type/fire/index.json', '12.a'],
    ['odd\tpath.svg', '3.b'],
  ]),
  memory: [] as Array<string | Buffer>,
};

/** A manifest's text read back, as a build reads its bytes. */
const parse = (text: string) => manifestOf(Buffer.from(text));

/** The manifest's text, as its pieces are written one after another. */
const manifestText = (m: Parameters<typeof formatManifest>[0]) => formatManifest(m).join('');

describe('manifests', () => {
  it('read back as written, paths with tabs, newlines and quotes included', () => {
    const m = parse(manifestText(written))!;
    expect(m).toMatchObject({ key: 'k1', tool: 't1', settings: 's1', records: { type: 2 }, fileCount: 3, previous: 'k0' });
    expect([...m.sources]).toEqual(written.sources.map(([rel, stamp]) => [rel, stampText(stamp)]));
    // A source's hash is had by its size and time, only as they were.
    for (const [rel, [size, mtime, hash]] of written.sources) {
      const line = m.sources.indexOf(rel);
      expect(m.sources.stamped(line, size, mtime)).toBe(hash);
      expect(m.sources.stamped(line, size, mtime + 1)).toBeUndefined();
      expect(m.sources.stamped(line, size + 1, mtime)).toBeUndefined();
    }
    expect(m.diff).toEqual(written.diff);
    expect([...m.files()!]).toEqual([...written.files]);
  });

  it('keep the records they remember as the bytes they were read from where each character is a byte, and as text where not', async () => {
    for (const fact of ['plain', 'café']) {
      const lines = [`r\tdata/type/fire.yaml\th1\t1\t\t{"name":"${fact}"}\n`, 'r\tdata/type/water.yaml\th2\t2\t\t{}\n'];
      const memory = parse(manifestText({ ...written, memory: lines }))!.memory()!;
      const fire = memory.get('data/type/fire.yaml')!;
      expect(fire.bytes !== undefined, fact).toBe(fact === 'plain');
      expect(fire.facts).toBe(`{"name":"${fact}"}`);
      // A rebuild that keeps both lines writes them from what it read: the same bytes as they were written.
      const water = memory.get('data/type/water.yaml')!;
      const kept = (r: typeof fire) => (r.bytes ? r.bytes.subarray(r.start, r.end) : r.text.slice(r.start, r.end));
      const where = layout(path.join(await tempDir(), 'dist'));
      await fs.mkdir(where.root);
      await putManifest(where, 'a', formatManifest({ ...written, memory: [kept(fire), kept(water)] }));
      expect(await fs.readFile(where.manifest('a'), 'utf8')).toBe(manifestText({ ...written, memory: lines }));
    }
  });

  it('read as nothing when damaged', () => {
    const text = manifestText(written);
    expect(parse(text.replace('"format":"manifest 3"', '"format":"manifest 2"'))).toBeUndefined();
    expect(parse(text.replace('\ns\t', '\nx\t'))).toBeUndefined();
    expect(parse(text.replace(/\ns\t([^\n]*)\t[^\t\n]*\n/, '\ns\t$1\n'))).toBeUndefined();
    expect(parse(text.split('\n')[0]!)).toBeUndefined();
    // The list of files is read when asked for, and a damaged one is no list.
    const cut = parse(text.replace(/\nf\t[^\n]*\n$/, '\nf\n'))!;
    expect(cut.sources.size).toBe(3);
    expect(cut.files()).toBeUndefined();
  });

  it('list files that answer by path, in order, out of order and after many misses', () => {
    const pairs = Array.from({ length: 40 }, (_, i): [string, string] => [`api/v2/move/${i}/index.json`, `${i + 10}.h${i}`]);
    pairs.push(['odd\tpath.svg', '3.b'], ['"quoted".json', '4.c']);
    const list = parse(manifestText({ ...written, files: pairs }))!.files()!;
    expect(list.size).toBe(42);
    expect([...list]).toEqual(pairs);
    // In order, each found where the last one ended; the same path again, where it was.
    for (const [rel, hash] of pairs) {
      expect(list.get(rel)).toBe(hash);
      expect(list.get(rel)).toBe(hash);
    }
    // Every other path, as a kind's NDJSON file asks for its records' id paths (each followed by its
    // name path): each found from the one before, and the paths skipped still found after.
    const skipping = parse(manifestText({ ...written, files: pairs }))!.files()!;
    for (let i = 0; i < 40; i += 2) expect(skipping.get(pairs[i]![0])).toBe(pairs[i]![1]);
    for (let i = 1; i < 40; i += 2) expect(skipping.get(pairs[i]![0])).toBe(pairs[i]![1]);
    expect(skipping.has('api/v2/move/400/index.json')).toBe(false);
    // Out of order, and absent: first looked for in the text, then in an index of every path.
    for (let round = 0; round < 3; round++) {
      for (const i of [30, 2, 41, 17, 40, 0, 39]) expect(list.get(pairs[i]![0])).toBe(pairs[i]![1]);
      expect(list.has('api/v2/move/400/index.json')).toBe(false);
      expect(list.has('api/v2/move/4')).toBe(false);
      expect(list.has('pi/v2/move/4/index.json')).toBe(false);
    }
  });

  it('make lists of their own lines and runs of another list, the same as written whole', () => {
    const live = FileList.parse(
      manifestText({ ...written, files: written.files })
        .split(/^(?=f\t)/m)
        .slice(1)
        .join(''),
      3,
    )!;
    expect([...live]).toEqual([...written.files]);
    const lines = new Lines();
    lines.take(live, 0);
    lines.add('api/v2/type/2/index.json', '9.z');
    lines.take(live, 1);
    lines.take(live, 2);
    lines.take(live, 0);
    const expected: Array<[string, string]> = [
      ['api/v2/type/1/index.json', '12.a'],
      ['api/v2/type/2/index.json', '9.z'],
      ['api/v2/type/fire/index.json', '12.a'],
      ['odd\tpath.svg', '3.b'],
      ['api/v2/type/1/index.json', '12.a'],
    ];
    expect(lines.size).toBe(5);
    expect([...lines.read()]).toEqual(expected);
    const whole = new Lines();
    for (const [rel, hash] of expected) whole.add(rel, hash);
    expect(lines.text()).toBe(whole.text());
  });

  it('list no files when the lines are not as many as the header says, or not whole', () => {
    const text = manifestText(written);
    expect(parse(text.replace(/\nf\t[^\n]*\n$/, '\n'))!.files()).toBeUndefined();
    expect(parse(text + 'f\textra.json\t1.x\n')!.files()).toBeUndefined();
    expect(parse(text.slice(0, -1))!.files()).toBeUndefined();
    expect(parse(text.replace('\nf\t"', '\nf\t"\\'))!.files()).toBeUndefined();
    expect(parse(text)!.files()!.size).toBe(3);
  });

  it('hold the records remembered after the files, read apart from them, from the text or from the file', async () => {
    const memory = 'r\tdata/type/fire.yaml\th1\t10\td1\t{}\nr\tdata/type/odd.yaml\th2\t11\t\t{"a":1}\n';
    const files = new Map([...written.files, ['gone\nr\tline.json', '5.d']]);
    const text = manifestText({ ...written, files, memory: [memory] });
    // Each record is remembered with the text after the sources and where its line lies in it.
    const tail = text.slice(text.indexOf('\nf\t') + 1);
    const file = path.join(await tempDir(), 'a.manifest');
    await fs.writeFile(file, text);
    for (const m of [parse(text)!, (await readManifest(file))!]) {
      expect([...m.files()!]).toEqual([...files]);
      expect([...m.memory()!]).toEqual([
        [
          'data/type/fire.yaml',
          {
            hash: 'h1',
            id: 10,
            derived: 'd1',
            facts: '{}',
            text: tail,
            bytes: Buffer.from(tail),
            start: tail.indexOf('r\tdata'),
            end: tail.indexOf('r\tdata/type/odd'),
          },
        ],
        [
          'data/type/odd.yaml',
          {
            hash: 'h2',
            id: 11,
            derived: '',
            facts: '{"a":1}',
            text: tail,
            bytes: Buffer.from(tail),
            start: tail.indexOf('r\tdata/type/odd'),
            end: tail.length,
          },
        ],
      ]);
      expect(m.restated('k9').join('')).toBe(text.replace('"previous":"k0"', '"previous":"k9"').replace(/^d\t.*\n/gm, ''));
    }
    // A damaged record line costs the memory, not the list of files; no lines, nothing remembered.
    const damaged = parse(text.replace('\t11\t', '\televen\t'))!;
    expect(damaged.memory()).toBeUndefined();
    expect(damaged.files()!.size).toBe(4);
    expect(parse(manifestText({ ...written, files: new Map(), memory: [memory] }))!.memory()!.size).toBe(2);
    expect(parse(manifestText(written))!.memory()!.size).toBe(0);
    // A line of no kind after the sources makes the file no manifest.
    await fs.writeFile(file, text.replace('\nf\t', '\nx\t'));
    expect(await readManifest(file)).toBeUndefined();
    expect(parse(text.replace('\nf\t', '\nx\t'))).toBeUndefined();
  });

  it('are written whole from their pieces, however many batches they take', async () => {
    const dir = await tempDir();
    const where = layout(path.join(dir, 'dist'));
    await fs.mkdir(where.root);
    // Pieces longer than a batch, shorter ones between them, bytes among them, and a last one alone.
    const long = (c: string) => c.repeat(WRITE_CHARS + 7);
    const lines = Array.from({ length: 5000 }, (_, i) => `f\t${i}\n`);
    const pieces = ['header\n', long('a'), 'b\n', Buffer.from('é\n'), 'c\n', long('d'), ...lines, Buffer.from(long('e')), 'end\n'];
    await putManifest(where, 'a', pieces);
    expect(await fs.readFile(where.manifest('a'), 'utf8')).toBe(pieces.join(''));
    await putManifest(where, 'a', ['again\n']);
    expect(await fs.readFile(where.manifest('a'), 'utf8')).toBe('again\n');
  });
});

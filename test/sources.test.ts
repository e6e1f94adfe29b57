// Source files are listed in the order of their paths, whatever order the file system gives them
// in: the build indexes them, and so reports clashes and writes lists, in that order. Each is read
// as readFileSync reads it, and parsed as the build means to: js-yaml for ordinary YAML, `yaml` for
// anchors and for the errors it places, JSON as JSON, nothing nested past 32 levels.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { discover, listSources } from '../build/pipeline/discover.ts';
import type { SourceFile } from '../build/store.ts';
import { hashText } from '../build/hash.ts';
import { MAX_DEPTH, NotUtf8, parseSource, parseText, readText, withoutMark } from '../build/pipeline/parse.ts';
import { Problems } from '../build/report/problems.ts';
import { buildProblems, fixtureWorld, tempDir } from './helpers.ts';

// The module the build loads (it requires js-yaml when it first parses), so that a spy sees its calls.
const jsyaml = createRequire(import.meta.url)('js-yaml') as typeof import('js-yaml');

/** A source file at `abs` as discover would give it, not yet read. */
const sourceAt = (abs: string, rel = path.basename(abs)): SourceFile => ({
  rel,
  abs,
  kind: 'type',
  stem: path.basename(abs).replace(/\.[^.]+$/, ''),
  size: 0,
  mtimeMs: 0,
});

describe('the source listing', () => {
  it('gives files in the order of their paths, named from the data folder, with their sizes and times', async () => {
    const data = path.join(await tempDir(), 'world');
    // 'type-x/…' sorts before 'type/…' ('-' before '/'), though the folder 'type' sorts first.
    const names = ['type/b.yaml', 'type/a.yaml', 'type/a-b.yaml', 'type/a.json', 'type-x/z.yaml', 'stat/1.yaml', 'type.d/c.yaml'];
    for (const [i, name] of names.entries()) {
      fs.mkdirSync(path.dirname(path.join(data, name)), { recursive: true });
      fs.writeFileSync(path.join(data, name), `id: ${i}${' '.repeat(i)}\n`);
    }
    const problems = new Problems();
    const files = discover(data, problems);
    expect(problems.list).toEqual([]);
    const rels = files.map((f) => f.rel);
    const expected = names.map((n) => `world/${n}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(rels).toEqual(expected);
    expect(rels.indexOf('world/type-x/z.yaml')).toBeLessThan(rels.indexOf('world/type/a.yaml'));
    for (const file of files) {
      const name = file.rel.slice('world/'.length);
      const stat = fs.statSync(path.join(data, name));
      expect(file.abs).toBe(path.join(data, name));
      expect({ size: file.size, mtimeMs: file.mtimeMs }, name).toEqual({ size: stat.size, mtimeMs: stat.mtimeMs });
      expect(file.size, name).toBe(6 + names.indexOf(name));
      expect(file.kind, name).toBe(name.split('/')[0]);
      expect(file.stem, name).toBe(path.basename(name).replace(/\.[^.]+$/, ''));
      // Nothing is read yet: a file is hashed when read, or takes what a build remembered of it.
      expect(file.hash, name).toBeUndefined();
      expect(file.text, name).toBeUndefined();
    }

    // Thousands, in order, with the entries that are not files (folders named like sources) among
    // the others, which the build reports.
    const many = path.join(await tempDir(), 'many');
    fs.mkdirSync(path.join(many, 'stat'), { recursive: true });
    for (let i = 0; i < 3000; i++) fs.writeFileSync(path.join(many, 'stat', `s${i}.yaml`), 'x'.repeat(i % 7));
    for (const i of [5, 1500, 2999]) fs.mkdirSync(path.join(many, 'stat', `s${i}-dir.yaml`));
    const listed = listSources(many);
    expect(listed.sources).toHaveLength(3000);
    expect(listed.sources[1]).toMatchObject({ path: 'stat/s1.yaml', size: 1 });
    const paths = listed.sources.map((s) => s.path);
    expect(paths).toEqual([...paths].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(listed.others).toEqual(['stat/s1500-dir.yaml', 'stat/s2999-dir.yaml', 'stat/s5-dir.yaml']);

    const manyProblems = new Problems();
    const manyFiles = discover(many, manyProblems);
    expect(manyFiles.map((f) => f.rel)).toEqual(paths.map((p) => `many/${p}`));
    expect(manyFiles.map((f) => f.size)).toEqual(listed.sources.map((s) => s.size));
    expect(manyProblems.list.map((p) => p.file)).toEqual(['many/stat/s1500-dir.yaml', 'many/stat/s2999-dir.yaml', 'many/stat/s5-dir.yaml']);
    for (const p of manyProblems.list) expect(p.message).toMatch(/is not read/);
  });
});

describe('reading a source file', () => {
  it('gives what readFileSync gives, whatever the size, and throws where it throws', async () => {
    const dir = await tempDir();
    const kib = 1024;
    const texts: Record<string, Buffer> = {
      'empty.yaml': Buffer.alloc(0),
      'small.yaml': Buffer.from('id: 1\nname: a\n'),
      'marked.yaml': Buffer.from('\ufeffid: 2\n'),
      // Bytes that are not UTF-8: a lone continuation byte, a sequence cut short, an 0xff.
      'broken.yaml': Buffer.from([0x69, 0x64, 0x3a, 0x20, 0x80, 0xe2, 0x82, 0x0a, 0xff]),
      // Sizes about those of a reading buffer: 64 KiB exactly, one byte more, and a larger file with
      // a character of three bytes across 64 and 128 KiB.
      'exact.yaml': Buffer.alloc(64 * kib, 'a'),
      'over.yaml': Buffer.alloc(64 * kib + 1, 'b'),
      'large.yaml': Buffer.from('x'.repeat(64 * kib - 1) + '€' + 'y'.repeat(64 * kib - 3) + '€' + 'z'.repeat(100 * kib)),
    };
    for (const [name, bytes] of Object.entries(texts)) fs.writeFileSync(path.join(dir, name), bytes);
    // Read twice over, small after large: what a larger file was read with does not show.
    for (const name of [...Object.keys(texts), ...Object.keys(texts)]) {
      const abs = path.join(dir, name);
      if (name === 'broken.yaml') continue;
      expect(readText(abs), name).toBe(withoutMark(fs.readFileSync(abs, 'utf8')));
    }
    // Bytes that are not UTF-8 are refused at the first of them (the lone continuation byte), not replaced.
    expect(() => readText(path.join(dir, 'broken.yaml'))).toThrow(NotUtf8);
    expect(() => readText(path.join(dir, 'broken.yaml'))).toThrow('byte 0x80');
    expect(readText(path.join(dir, 'marked.yaml'))).toBe('id: 2\n');
    expect(() => readText(path.join(dir, 'missing.yaml'))).toThrow(/ENOENT/);
    expect(() => readText(dir)).toThrow(/no longer a regular file/);
  });

  it('takes a record nested 32 levels deep and refuses one nested 33, in lists or in maps', async () => {
    expect(MAX_DEPTH).toBe(32);
    const dir = await tempDir();
    // The record is the first level; each list (or map) inside it one more.
    const lists = (levels: number) => `id: 1\nv: ${'['.repeat(levels - 1)}1${']'.repeat(levels - 1)}\n`;
    const maps = (levels: number) => `id: 1\nv: ${'{a: '.repeat(levels - 1)}1${'}'.repeat(levels - 1)}\n`;
    for (const [shape, text] of [
      ['lists', lists],
      ['maps', maps],
    ] as const) {
      for (const levels of [32, 33]) {
        const abs = path.join(dir, `${shape}-${levels}.yaml`);
        fs.writeFileSync(abs, text(levels));
        const file = sourceAt(abs);
        const problems = new Problems();
        const value = parseSource(file, problems);
        const where = `${shape}, ${levels} levels`;
        if (levels === 32) {
          expect(problems.list, where).toEqual([]);
          expect(value, where).toMatchObject({ id: 1 });
        } else {
          expect(
            problems.list.map((p) => p.message),
            where,
          ).toEqual(['the document nests more than 32 levels deep']);
          expect(value, where).toBeUndefined();
        }
        // Read, hashed, and let go.
        expect(file.hash, where).toBe(hashText(text(levels)));
        expect(file.text, where).toBeUndefined();
      }
    }
  });

  const texts: Record<string, string> = {
    'plain.yaml': 'id: 1\nname: plain\nlevels: [1, 2.5, -3]\nnote: null\nwhen: 2001-12-14\nsalt: Salt & Pepper\n',
    'marked.yaml': '\uFEFFid: 2\r\nname: marked\r\n',
    'proto.yaml': 'id: 3\n__proto__:\n  polluted: true\n',
    'anchor.yaml': 'id: 4\nname: &n anchor\nalso: *n\n',
    'infinite.yaml': 'id: 5\nscore: .inf\n',
    'huge.yaml': 'id: 6\nscore: 1e999\n',
    'negative-zero.yaml': 'id: 7\nscore: -0.0\n',
    'broken.yaml': 'id: [1\n',
    'twice.yaml': 'id: 1\nid: 2\n',
    'empty.yaml': '',
    'deep.yaml': `id: 8\nv: ${'['.repeat(40)}${']'.repeat(40)}\n`,
    'record.json': '{"id": 9}',
    'broken.json': '{"id": 9,\n "x": }',
    // The same key in other objects, and keys, braces and quotes inside strings, are no repetition.
    'keyed.json': '{"id": 10, "a": {"id": 1, "s": "{\\"id\\": 2, \\"id\\": 3}"}, "b": [{"id": 1}, {"id": 2}], "c\\"": "}"}',
    'twice.json': '{"id": 11, "a": {"b": 1},\n "a" : 2}',
  };
  const jsYaml = (text: string) => jsyaml.load(text, { schema: jsyaml.CORE_SCHEMA });

  it('parses ordinary YAML with js-yaml, anchors with `yaml`, and places what it cannot parse', async () => {
    const dir = await tempDir();
    const files = Object.fromEntries(
      Object.entries(texts).map(([name, text]) => {
        fs.writeFileSync(path.join(dir, name), text);
        return [name, sourceAt(path.join(dir, name), `data/type/${name}`)];
      }),
    );
    const problems = new Problems();
    const loads = vi.spyOn(jsyaml, 'load');
    const values: Record<string, unknown> = {};
    try {
      for (const [name, file] of Object.entries(files)) {
        loads.mockClear();
        values[name] = parseSource(file, problems);
        // js-yaml is tried on every YAML document without an anchor.
        const anchorFree = name.endsWith('.yaml') && name !== 'anchor.yaml' && texts[name]!.trim() !== '';
        expect(loads.mock.calls.length, name).toBe(anchorFree ? 1 : 0);
        expect(file.hash, name).toBe(hashText(withoutMark(texts[name]!)));
        expect(file.text, name).toBeUndefined();
      }
    } finally {
      loads.mockRestore();
    }
    // What js-yaml gives, key order included, an own "__proto__" too; the mark and CRs are no part of it.
    for (const name of ['plain.yaml', 'marked.yaml', 'proto.yaml', 'infinite.yaml', 'huge.yaml', 'negative-zero.yaml']) {
      const own = jsYaml(withoutMark(texts[name]!));
      expect(values[name], name).toEqual(own);
      expect(JSON.stringify(values[name]), name).toBe(JSON.stringify(own));
    }
    expect(values['marked.yaml']).toEqual({ id: 2, name: 'marked' });
    expect(Object.keys(values['proto.yaml'] as object)).toEqual(['id', '__proto__']);
    expect(Object.getPrototypeOf(values['proto.yaml'])).toBe(Object.prototype);
    expect(values['infinite.yaml']).toEqual({ id: 5, score: Infinity });
    expect(values['huge.yaml']).toEqual({ id: 6, score: Infinity });
    expect(Object.is((values['negative-zero.yaml'] as { score: number }).score, -0)).toBe(true);
    expect(values['anchor.yaml']).toEqual({ id: 4, name: 'anchor', also: 'anchor' });
    expect(values['record.json']).toEqual({ id: 9 });
    expect(values['keyed.json']).toEqual(JSON.parse(texts['keyed.json']!));
    for (const name of ['broken.yaml', 'twice.yaml', 'empty.yaml', 'deep.yaml', 'broken.json', 'twice.json'])
      expect(values[name], name).toBeUndefined();
    // One problem for each file that could not be read as a record, placed where it goes wrong and
    // worded by `yaml` for YAML (js-yaml refused the first two).
    expect(problems.list.map(({ file, line, column, message }) => ({ file, line, column, message }))).toEqual([
      { file: 'data/type/broken.yaml', line: 2, column: 1, message: expect.stringMatching(/^invalid YAML: Flow sequence/) },
      { file: 'data/type/twice.yaml', line: 2, column: 1, message: 'invalid YAML: Map keys must be unique' },
      { file: 'data/type/empty.yaml', line: 1, column: 1, message: 'the file is empty; it should hold one record' },
      { file: 'data/type/deep.yaml', line: 1, column: 1, message: 'the document nests more than 32 levels deep' },
      { file: 'data/type/broken.json', line: 2, column: 7, message: "invalid JSON: Unexpected token '}'" },
      // JSON.parse would keep the second "a" without a word; YAML refuses it, and so does the build.
      { file: 'data/type/twice.json', line: 2, column: 2, message: 'invalid JSON: the key "a" is written twice in one object' },
    ]);

    // A file that cannot be read is reported, not thrown; one refused when listed is not read at all.
    const more = new Problems();
    expect(parseSource(sourceAt(path.join(dir, 'missing.yaml'), 'data/type/missing.yaml'), more)).toBeUndefined();
    expect(more.list).toEqual([
      expect.objectContaining({
        file: 'data/type/missing.yaml',
        line: 1,
        message: expect.stringMatching(/^the file could not be read: ENOENT/),
      }),
    ]);
    const refused = { ...files['plain.yaml']!, refused: 'the file is too large' };
    const none = new Problems();
    expect(parseSource(refused, none)).toBeUndefined();
    expect(none.list).toEqual([]);
  });

  it('reads a document the same whichever of the two parsers takes it', () => {
    // A comment with an anchor's mark in it sends a document to `yaml`, and changes nothing else.
    for (const name of [
      'plain.yaml',
      'marked.yaml',
      'proto.yaml',
      'infinite.yaml',
      'huge.yaml',
      'negative-zero.yaml',
      'broken.yaml',
      'twice.yaml',
    ]) {
      const text = withoutMark(texts[name]!);
      const quick = new Problems();
      const careful = new Problems();
      const a = parseText(text, name, quick);
      const b = parseText(`${text}# &mark\n`, name, careful);
      expect(b, name).toEqual(a);
      expect(JSON.stringify(b), name).toBe(JSON.stringify(a));
      if (a !== undefined) expect(Object.keys(b as object), name).toEqual(Object.keys(a as object));
      expect(
        careful.list.map((p) => p.message),
        name,
      ).toEqual(quick.list.map((p) => p.message));
      expect(careful.list.length, name).toBe(a === undefined ? 1 : 0);
    }
  });
});

describe('a source file that changes after it is listed', () => {
  it.each([
    ['on this thread', false],
    ['on checking threads', true],
  ])('is reported as unreadable by the build that reads it (%s)', async (_, checkOnThreads) => {
    const world = await fixtureWorld();
    // Once listed, one kind's file is replaced by a folder and another's removed: the build reads
    // what is there then.
    const problems = await buildProblems(
      {
        dataDir: world.data,
        outDir: world.out,
        onProgress: (event) => {
          if (event.stage !== 'read') return;
          fs.rmSync(path.join(world.data, 'gender', 'female.yaml'));
          fs.mkdirSync(path.join(world.data, 'gender', 'female.yaml'));
          fs.rmSync(path.join(world.data, 'location-area', 'ember-peak-base.yaml'));
        },
      },
      { checkOnThreads },
    );
    expect(problems.map(({ file, line, message }) => ({ file, line, message }))).toEqual([
      {
        file: 'data/gender/female.yaml',
        line: 1,
        message: expect.stringMatching(/^the file could not be read: it is no longer a regular file/),
      },
      { file: 'data/location-area/ember-peak-base.yaml', line: 1, message: expect.stringMatching(/^the file could not be read: ENOENT/) },
    ]);
    expect(fs.existsSync(world.out)).toBe(false); // a first build that failed leaves nothing
  });
});

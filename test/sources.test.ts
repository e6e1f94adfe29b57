// Source files are listed in the order of their paths, whatever order the file system gives them
// in: the build indexes them, and so reports clashes and writes lists, in that order.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { MessageChannel } from 'node:worker_threads';
import { hashText, loadYaml, readText, withoutMark } from '../build/fast-yaml.mjs';
import { listSources, listSourcesOnThread } from '../build/list-sources.mjs';
import { readAheadOnThread, type ReadAhead } from '../build/read-ahead.mjs';
import {
  MAX_FILE_BYTES,
  parseOne,
  READ_AHEAD_ON_THREAD,
  readAhead,
  readsAheadOnThread,
  readSources,
  startReading,
  type SourceFile,
} from '../build/load.ts';
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

    // Thousands, looked at by the thread and this one side by side in runs: the same as here, in order,
    // with the entries that are not files among the others.
    const many = path.join(await tempDir(), 'many');
    fs.mkdirSync(path.join(many, 'stat'), { recursive: true });
    for (let i = 0; i < 3000; i++) fs.writeFileSync(path.join(many, 'stat', `s${i}.yaml`), 'x'.repeat(i % 7));
    for (const i of [5, 1500, 2999]) fs.mkdirSync(path.join(many, 'stat', `s${i}-dir.yaml`));
    const sync = listSources(many);
    expect(sync.sources).toHaveLength(3000);
    expect(sync.sources[1]).toMatchObject({ path: 'stat/s1.yaml', size: 1 });
    expect(sync.others).toEqual(['stat/s1500-dir.yaml', 'stat/s2999-dir.yaml', 'stat/s5-dir.yaml']);
    expect(await listSourcesOnThread(many).done()).toEqual(sync);

    // The names are given as soon as they are listed, before any file is looked at: the same files,
    // and an entry that is not a file among them (it is reported instead).
    fs.mkdirSync(path.join(data, 'type', 'folder.yaml'));
    let given: string[] = [];
    const problems = new Problems();
    const listed = await readSources(data, problems, new Map(), false, (abs) => {
      given = abs;
      fs.writeFileSync(path.join(data, 'stat', 'late.yaml'), 'id: 2\n'); // written after the names were taken
    });
    expect(given).toEqual([...listed.map((f) => f.abs), path.join(data, 'type', 'folder.yaml')].sort());
    expect(listed.map((f) => f.rel)).not.toContain('world/stat/late.yaml');
    expect(problems.list.map((p) => p.file)).toEqual(['world/type/folder.yaml']);
  });
});

/** Writes `files` (name → text) into a fresh folder; returns their paths, in the order given. */
async function writeAll(files: Record<string, string>): Promise<string[]> {
  const dir = await tempDir();
  return Object.entries(files).map(([name, text]) => {
    fs.writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  });
}

/** Everything the reading thread sends for `paths`, by index, once it has closed its port. */
function readOnThread(paths: string[], reached = 0, maxBytes = MAX_FILE_BYTES): Promise<Map<number, ReadAhead | undefined>> {
  const { port1, port2 } = new MessageChannel();
  const results = new Map<number, ReadAhead | undefined>();
  port1.on('message', (batch: Array<[number, ReadAhead | undefined]>) => {
    for (const [i, result] of batch) results.set(i, result);
  });
  const shared = new Int32Array(new SharedArrayBuffer(4));
  shared[0] = reached;
  readAheadOnThread(paths, port2, shared, maxBytes);
  return new Promise((resolve) => port1.on('close', () => resolve(results)));
}

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
      // The buffer kept between files starts at 64 KiB and doubles: a file of that size exactly,
      // one byte more, and a larger one with a character of three bytes across 64 and 128 KiB.
      'exact.yaml': Buffer.alloc(64 * kib, 'a'),
      'over.yaml': Buffer.alloc(64 * kib + 1, 'b'),
      'large.yaml': Buffer.from('x'.repeat(64 * kib - 1) + '€' + 'y'.repeat(64 * kib - 3) + '€' + 'z'.repeat(100 * kib)),
    };
    for (const [name, bytes] of Object.entries(texts)) fs.writeFileSync(path.join(dir, name), bytes);
    // Read twice over, small after large: what a larger file left in the buffer does not show.
    for (const name of [...Object.keys(texts), ...Object.keys(texts)]) {
      const abs = path.join(dir, name);
      expect(readText(abs), name).toBe(withoutMark(fs.readFileSync(abs, 'utf8')));
    }
    expect(readText(path.join(dir, 'marked.yaml'))).toBe('id: 2\n');
    expect(() => readText(path.join(dir, 'missing.yaml'))).toThrow(/ENOENT/);
    expect(() => readText(dir)).toThrow(/EISDIR/);
  });

  it('takes a record nested 32 levels deep and refuses one nested 33, in lists or in maps', async () => {
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
        const file: SourceFile = {
          rel: path.basename(abs),
          abs,
          kind: 'type',
          stem: 'x',
          text: '',
          hash: '',
          size: 0,
          mtimeMs: 0,
          value: undefined,
        };
        const problems = new Problems();
        parseOne(file, problems);
        const where = `${shape}, ${levels} levels`;
        if (levels === 32) {
          expect(problems.list, where).toEqual([]);
          expect(file.value, where).toMatchObject({ id: 1 });
        } else {
          expect(
            problems.list.map((p) => p.message),
            where,
          ).toEqual(['the document nests more than 32 levels deep']);
          expect(file.value, where).toBeUndefined();
        }
      }
    }
  });
});

describe('the thread that reads late records ahead', () => {
  it('is started when asked, or for many records with a core to spare beside the build and the writer', () => {
    const cores = vi.spyOn(os, 'availableParallelism');
    try {
      for (const spare of [false, true]) {
        cores.mockReturnValue(spare ? 3 : 2);
        expect(readsAheadOnThread(READ_AHEAD_ON_THREAD)).toBe(spare);
        expect(readsAheadOnThread(READ_AHEAD_ON_THREAD - 1)).toBe(false);
        expect(readsAheadOnThread(5, true)).toBe(true);
        expect(readsAheadOnThread(10 * READ_AHEAD_ON_THREAD, false)).toBe(false);
        expect(readsAheadOnThread(0, true)).toBe(false);
      }
    } finally {
      cores.mockRestore();
    }
  });

  const texts: Record<string, string> = {
    'plain.yaml': 'id: 1\nname: plain\nlevels: [1, 2.5, -3]\nnote: null\nwhen: 2001-12-14\n',
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
  };

  it('parses ordinary YAML records as the build would, and leaves the rest to the build', async () => {
    const paths = await writeAll(texts);
    const missing = path.join(path.dirname(paths[0]!), 'missing.yaml');
    const results = await readOnThread([...paths, missing]);
    const names = Object.keys(texts);
    const got = (name: string) => results.get(names.indexOf(name));
    for (const name of names) {
      const text = withoutMark(texts[name]!);
      expect(got(name)?.hash, name).toBe(hashText(text));
    }
    // Parsed there, as JSON that reads back to what js-yaml gives (an own "__proto__" included).
    for (const name of ['plain.yaml', 'marked.yaml', 'proto.yaml']) {
      const json = got(name)?.json;
      expect(json, name).toBeDefined();
      expect(JSON.stringify(JSON.parse(json!))).toBe(JSON.stringify(loadYaml(withoutMark(texts[name]!))));
    }
    expect(Object.keys(JSON.parse(got('proto.yaml')!.json!))).toEqual(['id', '__proto__']);
    // Anchors, numbers JSON cannot carry, what js-yaml refuses, an empty file, a document nested past
    // what the build takes, and JSON come back as text.
    for (const name of [
      'anchor.yaml',
      'infinite.yaml',
      'huge.yaml',
      'negative-zero.yaml',
      'broken.yaml',
      'twice.yaml',
      'empty.yaml',
      'deep.yaml',
      'record.json',
    ])
      expect(got(name), name).toEqual({ hash: hashText(texts[name]!), text: texts[name] });
    // A file that cannot be read is sent as nothing: the build reads it again, and reports it.
    expect(results.has(names.length)).toBe(true);
    expect(results.get(names.length)).toBeUndefined();
  });

  it('fails without taking the build with it: the build reads what it did not send', async () => {
    // Given no list at all, the thread throws as it starts, sends nothing and closes its port.
    const results = await readOnThread(null as unknown as string[]);
    expect(results.size).toBe(0);
  });

  it('leaves a file over the size limit to the build, unread', async () => {
    const paths = await writeAll({ 'small.yaml': 'id: 1\n', 'large.yaml': `id: 2\nname: ${'x'.repeat(100)}\n` });
    const results = await readOnThread(paths, 0, 50);
    expect(results.get(0)?.json).toBe('{"id":1}');
    expect(results.has(1)).toBe(true);
    expect(results.get(1)).toBeUndefined();
  });

  it('passes over the files the build has reached itself', async () => {
    const paths = await writeAll(texts);
    const results = await readOnThread(paths, 4);
    expect([...results.keys()]).toEqual(paths.map((_, i) => i).filter((i) => i >= 4));
  });

  it('gives each file what the build would read itself, however far the thread has got', async () => {
    // Enough files for a thread; each taken in order as soon as asked, so that some come from the
    // thread and others are read here.
    const many: Record<string, string> = {};
    for (let i = 0; i < READ_AHEAD_ON_THREAD; i++)
      many[`r${String(i).padStart(3, '0')}.yaml`] = `id: ${i + 1}\nname: r${i}\nlist: [${i}, ${i * 2}]\n`;
    Object.assign(many, texts);
    const paths = await writeAll(many);
    const source = (abs: string): SourceFile => ({
      rel: path.basename(abs),
      abs,
      kind: 'location-area',
      stem: path.basename(abs).replace(/\.[^.]+$/, ''),
      text: '',
      hash: '',
      size: 0,
      mtimeMs: 0,
      value: undefined,
    });
    for (const wait of [0, 500]) {
      const files = paths.map(source);
      const own = paths.map(source);
      const ahead = readAhead(files, undefined, true);
      await new Promise((resolve) => setTimeout(resolve, wait));
      const problems = new Problems();
      const ownProblems = new Problems();
      let fromThread = 0;
      for (let i = 0; i < paths.length; i++) {
        ahead.take(files[i]!);
        if (files[i]!.json !== undefined) fromThread++;
        parseOne(files[i]!, problems);
        parseOne(own[i]!, ownProblems);
        expect(JSON.stringify(files[i]!.value), paths[i]).toBe(JSON.stringify(own[i]!.value));
        expect(files[i]!.hash, paths[i]).toBe(own[i]!.hash);
      }
      ahead.close();
      expect(problems.list).toEqual(ownProblems.list);
      expect(problems.list.length).toBeGreaterThan(0);
      if (wait > 0) expect(fromThread).toBeGreaterThan(READ_AHEAD_ON_THREAD / 2);
    }

    // A thread started before the build knew which files it needs (startReading), taken over: it
    // reads a file the build does not need, and not one it does. Each file the build needs comes
    // out as the build would read it itself, from the thread or not.
    const extra = path.join(path.dirname(paths[0]!), 'extra.yaml');
    fs.writeFileSync(extra, 'id: 999\n');
    const needed = paths.filter((_, i) => i !== 5);
    const reading = startReading([...needed.slice(0, 3), extra, ...needed.slice(3), paths[5]!].filter((p) => p !== paths[7]));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const files = needed.map(source);
    const own = needed.map(source);
    const ahead = readAhead(files, reading);
    let fromThread = 0;
    for (let i = 0; i < needed.length; i++) {
      ahead.take(files[i]!);
      if (files[i]!.json !== undefined) fromThread++;
      parseOne(files[i]!, new Problems());
      parseOne(own[i]!, new Problems());
      expect(JSON.stringify(files[i]!.value), needed[i]).toBe(JSON.stringify(own[i]!.value));
      expect(files[i]!.hash, needed[i]).toBe(own[i]!.hash);
    }
    ahead.close();
    expect(fromThread).toBeGreaterThan(READ_AHEAD_ON_THREAD / 2);
    expect(files.find((f) => f.abs === paths[7])!.json).toBeUndefined(); // not among the thread's
  });
});

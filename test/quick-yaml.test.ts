// The quick reader (build/quick-yaml.mjs) reads a record written in the plain block style as
// js-yaml reads it, and leaves every other document to js-yaml. What it takes must come out as
// js-yaml's value, key order included; what js-yaml refuses, it must not take.
import fs from 'node:fs';
import path from 'node:path';
import jsyaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { generateWorld, writeWorld } from '../build/gen-world.ts';
import { quickLoad } from '../build/quick-yaml.mjs';
import { fixturesDir, tempDir } from './helpers.ts';

const jsYaml = (text: string) => jsyaml.load(text, { schema: jsyaml.CORE_SCHEMA });

/** Every YAML file under `dir`. */
function yamlFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** The same value, with its keys in the same order. */
function expectSame(quick: unknown, text: string, where: string): void {
  const value = jsYaml(text);
  expect(quick, where).toEqual(value);
  expect(JSON.stringify(quick), where).toBe(JSON.stringify(value));
}

describe('the quick YAML reader', () => {
  it('reads every record of the shipped world and of a generated one as js-yaml does', async () => {
    const generated = path.join(await tempDir(), 'world');
    writeWorld(generateWorld(0.05, 5), generated);
    for (const dir of [path.join(import.meta.dirname, '..', 'data'), generated]) {
      const files = yamlFiles(dir);
      let taken = 0;
      for (const file of files) {
        const text = fs.readFileSync(file, 'utf8');
        const quick = quickLoad(text);
        if (quick === undefined) continue;
        taken++;
        expectSame(quick, text, file);
      }
      // Both are written in the plain style: the quick reader takes every file.
      expect(taken, dir).toBe(files.length);
      expect(taken, dir).toBeGreaterThan(500);
    }
  });

  it('reads each fixture it takes as js-yaml does, and leaves the broken ones to js-yaml', () => {
    let taken = 0;
    for (const file of yamlFiles(fixturesDir)) {
      const text = fs.readFileSync(file, 'utf8');
      const quick = quickLoad(text);
      if (quick === undefined) continue;
      taken++;
      expectSame(quick, text, file);
    }
    expect(taken).toBeGreaterThan(50);
    for (const bad of ['invalid-yaml/data/type/fire.yaml', 'alias-bomb/data/gender/female.yaml', 'empty-file/data/gender/female.yaml']) {
      expect(quickLoad(fs.readFileSync(path.join(fixturesDir, 'bad', bad), 'utf8')), bad).toBeUndefined();
    }
  });

  it.each([
    ['a sequence beside its key', 'a:\n- x\n- 2\nb: c\n', { a: ['x', 2], b: 'c' }],
    ['mappings in a sequence, nested', 'l:\n  - k: 1\n    m:\n      - n: v\n  - k: 2\n', { l: [{ k: 1, m: [{ n: 'v' }] }, { k: 2 }] }],
    [
      'null, booleans and integers',
      'a:\nb: Null\nc: TRUE\nd: false\ne: -0\nf: -12\ng: 999999999999999\n',
      { a: null, b: null, c: true, d: false, e: 0, f: -12, g: 999999999999999 },
    ],
    ['empty collections and a quoted string', 'a: []\nb: {}\nc: ""\nd: "x: y, z"\n', { a: [], b: {}, c: '', d: 'x: y, z' }],
    ['letters beyond ASCII, spaces around', 'name:   Plein d’idées   \n\n   \nother: ü\n', { name: 'Plein d’idées', other: 'ü' }],
  ])('takes %s', (_, text, value) => {
    expect(quickLoad(text)).toEqual(value);
    expectSame(quickLoad(text), text, text);
  });

  it.each([
    ['a comment', 'a: 1 # one\n'],
    ['an anchor and an alias', 'a: &x 1\nb: *x\n'],
    ['a tab', 'a:\n\t- 1\n'],
    ['a carriage return', 'a: 1\r\nb: 2\r\n'],
    ['a float', 'a: 1.5\n'],
    ['an integer with a leading zero', 'a: 007\n'],
    ['a hexadecimal integer', 'a: 0x1F\n'],
    ['an integer too long to be exact', 'a: 12345678901234567\n'],
    ['a scalar over two lines', 'a: one\n  two\n'],
    ['a duplicated key', 'a: 1\na: 2\n'],
    ['a key named __proto__', '__proto__: 1\n'],
    ['a key that reads as a boolean', 'true: 1\n'],
    ['a quoted key', '"a": 1\n'],
    ['a single-quoted string', "a: 'b'\n"],
    ['a double-quoted string with a quote in it', 'a: "b"c"\n'],
    ['a url', 'a: http://example.org\n'],
    ['a flow sequence', 'a: [1, 2]\n'],
    ['a block scalar', 'a: |\n  text\n'],
    ['an empty item', 'a:\n  -\n  - 1\n'],
    ['a sequence in an item', 'a:\n  - - 1\n'],
    ['a list at the top', '- 1\n- 2\n'],
    ['a document marker', '---\na: 1\n'],
    ['an empty document', '\n  \n'],
    ['bad indentation', 'a:\n    b: 1\n  c: 2\n'],
    ['U+2028', 'a: b\u2028c\n'],
  ])('leaves %s to js-yaml', (_, text) => {
    expect(quickLoad(text)).toBeUndefined();
  });

  it('takes nothing js-yaml refuses or reads otherwise, over 50,000 mutations of records', () => {
    const seeds = yamlFiles(path.join(import.meta.dirname, '..', 'data'))
      .filter((_, i) => i % 100 === 0)
      .map((file) => fs.readFileSync(file, 'utf8'))
      .map((text) => text.slice(0, text.lastIndexOf('\n', 800) + 1)); // whole lines
    seeds.push('a: 1\nb:\n- x\n- y\nc: "q"\n', 'a:\n  b:\n    c: -0\n  d: []\n');
    // A fixed sequence of pseudo-random numbers (mulberry32), so that a failure can be run again.
    let state = 20261124;
    const random = (n: number) => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) % n;
    };
    const pieces = [
      ' ',
      '  ',
      '\n',
      '\n  ',
      '-',
      '- ',
      ':',
      ': ',
      '"',
      'a',
      'Z',
      'é',
      '’',
      '\u00a0',
      '\u2028',
      '\ufeff',
      '_',
      '0',
      '1',
      '[',
      ']',
      '{',
      '}',
      ',',
      '.',
      '#',
      '&',
      '\t',
      'null',
      'True',
      '007',
      '-0',
      '1e3',
      '0x1',
      '__proto__',
    ];
    let taken = 0;
    for (let round = 0; round < 50_000; round++) {
      let text = seeds[random(seeds.length)]!;
      for (let edits = 1 + random(4); edits > 0; edits--) {
        const at = random(text.length + 1);
        const lines = text.split('\n');
        const line = random(lines.length);
        switch (random(4)) {
          case 0:
            text = text.slice(0, at) + pieces[random(pieces.length)] + text.slice(at);
            break;
          case 1:
            text = text.slice(0, at) + text.slice(at + 1 + random(3));
            break;
          case 2:
            lines.splice(line, 0, lines[random(lines.length)]!);
            text = lines.join('\n');
            break;
          default:
            lines[line] = ' '.repeat(random(5)) + lines[line]!.trimStart();
            text = lines.join('\n');
        }
      }
      const quick = quickLoad(text);
      if (quick === undefined) continue;
      taken++;
      expect(() => jsYaml(text), JSON.stringify(text)).not.toThrow();
      expect(JSON.stringify(quick), JSON.stringify(text)).toBe(JSON.stringify(jsYaml(text)));
    }
    // Enough of them still in the plain style to say something.
    expect(taken).toBeGreaterThan(5_000);
  });
});

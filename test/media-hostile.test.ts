// A record's media files are hostile input (media.test.ts has what they are for): a link out of the
// data folder, a FIFO, a file over the size limit, bytes not of the type the name says, a name that
// is no slug or a path, a file no field names — each refused in one line at the field naming it (or
// at the file), exit code 1, nothing written. Through the real command. In the slow suite.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturesDir, fixtureWorld, launched, tempDir } from './helpers.ts';

const MEDIA = path.join(fixturesDir, 'media');

const append = (file: string, text: string) => fs.appendFileSync(file, text);

describe('a media file is hostile input', () => {
  /** Emberpup's form naming `front.png` of its folder, laid out by `make`; the one problem line printed. */
  async function refused(make: (folder: string) => void, value = 'front.png') {
    const w = await fixtureWorld();
    const folder = path.join(w.data, 'creature-form/emberpup');
    fs.mkdirSync(folder);
    make(folder);
    append(path.join(w.data, 'creature-form/emberpup.yaml'), `sprites:\n  front_default: ${value}\n`);
    const built = await launched('build', ['--data', w.data, '--out', w.out, '--plain']);
    expect(built.code).toBe(1);
    const lines = built.stderr.split('\n').filter((line) => /^\s+data\/.*:\d+:\d+ /.test(line));
    expect(lines, built.stderr).toHaveLength(1);
    expect(fs.existsSync(w.out)).toBe(false);
    return lines[0]!.trim();
  }
  // The value's place: the line after `sprites:`, appended to the record's file, past `front_default: `.
  const line = fs.readFileSync(path.join(fixturesDir, 'starter/creature-form/emberpup.yaml'), 'utf8').split('\n').length + 1;
  const at = `data/creature-form/emberpup.yaml:${line}:18 creature-form emberpup at /sprites/front_default:`;

  it('refuses a link out of the data folder, naming where it leads', async () => {
    const outside = path.join(await tempDir(), 'secret.png');
    fs.copyFileSync(path.join(MEDIA, 'drop.png'), outside);
    const line = await refused((folder) => fs.symlinkSync(outside, path.join(folder, 'front.png')));
    expect(line.startsWith(`${at} the file data/creature-form/emberpup/front.png leads to ${fs.realpathSync(outside)}, outside `)).toBe(
      true,
    );
    expect(line).toMatch(/: only what is inside it is read$/);
  });

  it('refuses a FIFO without waiting on it', async () => {
    const line = await refused((folder) => execFileSync('mkfifo', [path.join(folder, 'front.png')]));
    expect(line).toBe(`${at} the file data/creature-form/emberpup/front.png is a FIFO (a named pipe), not a regular file`);
  });

  it('refuses a file over the size limit', async () => {
    const png = fs.readFileSync(path.join(MEDIA, 'drop.png'));
    const line = await refused((folder) => fs.writeFileSync(path.join(folder, 'front.png'), Buffer.concat([png, Buffer.alloc(3 << 20)])));
    expect(line).toMatch(
      new RegExp(`^${escape(at)} the file data/creature-form/emberpup/front.png is \\d+ bytes, over the limit of 2097152$`),
    );
  });

  it('refuses bytes that are not of the type the name says', async () => {
    const asPng = await refused((folder) => fs.copyFileSync(path.join(MEDIA, 'badge.svg'), path.join(folder, 'front.png')));
    expect(asPng).toBe(`${at} the file data/creature-form/emberpup/front.png is not a PNG image (its bytes do not start as one does)`);
    const asOgg = await refused((folder) => fs.copyFileSync(path.join(MEDIA, 'drop.png'), path.join(folder, 'cry.ogg')), 'cry.ogg');
    expect(asOgg).toBe(`${at} the file data/creature-form/emberpup/cry.ogg is not an OGG file (its bytes do not start as one does)`);
    // A browser reads an SVG as XML: a prefix bound to SVG's namespace, or a character reference, is no disguise.
    const svgs: Array<[string, RegExp]> = [
      ['<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', /front\.svg is an SVG that holds <script>: /],
      [
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:s="http://www.w3.org/2000/svg"><s:script>alert(1)</s:script></svg>',
        /front\.svg is an SVG that holds <s:script>: /,
      ],
      [
        '<svg xmlns="http://www.w3.org/2000/svg"><a href="&#106;avascript:alert(1)"/></svg>',
        /front\.svg is an SVG that holds <a> whose href is a script url$/,
      ],
    ];
    for (const [text, why] of svgs)
      expect(await refused((folder) => fs.writeFileSync(path.join(folder, 'front.svg'), `${text}\n`), 'front.svg')).toMatch(why);
  });

  it('refuses a name that is not a slug, a path, and a file the folder does not hold', async () => {
    for (const value of [
      'Front.PNG',
      '../../../etc/passwd.png',
      'sub/front.png',
      'front.gif',
      'https://x.example/"><img src=x onerror=alert(1)>.png',
    ]) {
      const found = await refused(() => {}, `'${value}'`);
      expect(found.startsWith(at), found).toBe(true);
      expect(found).toContain(`${JSON.stringify(value)} must match `);
    }
    expect(await refused(() => {})).toBe(`${at} names the file front.png, which data/creature-form/emberpup/ does not hold`);
  });

  it('refuses a file of the folder that no field names, at the file', async () => {
    const line = await refused((folder) => {
      fs.copyFileSync(path.join(MEDIA, 'drop.png'), path.join(folder, 'front.png'));
      fs.copyFileSync(path.join(MEDIA, 'drop.png'), path.join(folder, 'spare.png'));
    });
    expect(line).toBe(
      'data/creature-form/emberpup/spare.png:1:1 creature-form emberpup: the file data/creature-form/emberpup/spare.png is named by no field of the record: give it a place, or remove it',
    );
  });
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

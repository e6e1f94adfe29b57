// Images and sounds as data: a record gives a place of its sprites (or cries) as a url, kept as it
// is, or as a file of its own folder (`data/<kind>/<name>/`), which the build publishes at
// `media/<kind>/<id>/<file>`; the build draws only the places left out. Through the real command, in
// every output mode, across rebuilds, and served by the real server. That every file there is
// hostile input, refused in one line at the field naming it, is media-hostile.test.ts's (the slow suite).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BASE, buildWorld, fixturesDir, fixtureWorld, launched, rawRequest, serve, snapshot, tempDir } from './helpers.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');
const MEDIA = path.join(fixturesDir, 'media');

const read = (out: string, rel: string) => JSON.parse(fs.readFileSync(path.join(out, rel), 'utf8'));
const append = (file: string, text: string) => fs.appendFileSync(file, text);

/**
 * The starter world with images and sounds: emberpup's form gives its front image as a file and
 * its back one as a url, emberpup its cry as a file and its old cry as a url, the potion its image
 * as an SVG, and fire a symbol icon for one version group as a url.
 */
async function worldWithMedia() {
  const w = await fixtureWorld();
  const put = (folder: string, name: string, from = name) => {
    fs.mkdirSync(path.join(w.data, folder), { recursive: true });
    fs.copyFileSync(path.join(MEDIA, from), path.join(w.data, folder, name));
  };
  put('creature-form/emberpup', 'front.png', 'drop.png');
  append(
    path.join(w.data, 'creature-form/emberpup.yaml'),
    'sprites:\n  front_default: front.png\n  back_default: https://img.example.org/emberpup/back.png\n',
  );
  put('creature/emberpup', 'cry.ogg', 'chirp.ogg');
  append(
    path.join(w.data, 'creature/emberpup.yaml'),
    'cries:\n  latest: cry.ogg\n  legacy: https://img.example.org/emberpup/old-cry.ogg\n',
  );
  put('item/potion', 'badge.svg');
  append(path.join(w.data, 'item/potion.yaml'), 'sprites:\n  default: badge.svg\n');
  append(
    path.join(w.data, 'type/fire.yaml'),
    'sprites:\n  generation-i:\n    dawn-dusk:\n      symbol_icon: https://img.example.org/fire.png\n',
  );
  return w;
}

const media = (kind: string, id: number, file: string) => `${BASE}/media/${kind}/${id}/${file}`;
const drawn = (rel: string) => `${BASE}/sprites/${rel}`;

describe('images and sounds given by a record', () => {
  it('publishes a file of the record’s folder under the API’s paths, keeps a url as it is, and draws only the places left out', async () => {
    const w = await worldWithMedia();
    const built = await launched('build', ['--data', w.data, '--out', w.out, '--plain']);
    expect(built.stderr).not.toMatch(/problems? in/);
    expect(built.code).toBe(0);

    const form = read(w.out, 'api/v2/creature-form/1/index.json');
    expect(form.sprites).toMatchObject({
      front_default: media('creature-form', 1, 'front.png'),
      back_default: 'https://img.example.org/emberpup/back.png',
      front_shiny: drawn('creature-form/shiny/1.svg'),
    });
    expect(fs.readFileSync(path.join(w.out, 'media/creature-form/1/front.png'))).toEqual(fs.readFileSync(path.join(MEDIA, 'drop.png')));
    // The places given are not drawn; those left out are.
    expect(fs.existsSync(path.join(w.out, 'sprites/creature-form/1.svg'))).toBe(false);
    expect(fs.existsSync(path.join(w.out, 'sprites/creature-form/back/1.svg'))).toBe(false);
    expect(fs.existsSync(path.join(w.out, 'sprites/creature-form/shiny/1.svg'))).toBe(true);

    // The creature takes its default form's images where it gives none, in PokeAPI's tree.
    const creature = read(w.out, 'api/v2/creature/1/index.json');
    expect(creature.sprites.front_default).toBe(media('creature-form', 1, 'front.png'));
    expect(creature.sprites.other['official-artwork'].front_default).toBe(media('creature-form', 1, 'front.png'));
    expect(creature.sprites.versions['generation-i']['dawn-dusk'].back_default).toBe('https://img.example.org/emberpup/back.png');
    expect(creature.cries).toEqual({ latest: media('creature', 1, 'cry.ogg'), legacy: 'https://img.example.org/emberpup/old-cry.ogg' });
    expect(read(w.out, 'api/v2/creature/2/index.json').cries).toBeUndefined();

    expect(read(w.out, 'api/v2/item/1/index.json').sprites).toEqual({ default: media('item', 1, 'badge.svg') });
    expect(read(w.out, 'api/v2/item/2/index.json').sprites).toEqual({ default: null });

    // A version group the type gives is its own; the others keep the drawn name icon.
    const fire = read(w.out, 'api/v2/type/fire/index.json');
    expect(fire.sprites['generation-i']['dawn-dusk']).toEqual({ symbol_icon: 'https://img.example.org/fire.png' });
    expect(fire.sprites['generation-ii']['tide-ember'].name_icon).toMatch(/\/sprites\/types\/generation-ii\/tide-ember\/\d+\.svg$/);

    // Served with the type of each file.
    const server = await serve(w.out);
    try {
      const types = await Promise.all(
        ['media/creature-form/1/front.png', 'media/item/1/badge.svg', 'media/creature/1/cry.ogg'].map(
          async (rel) => (await rawRequest(server.url, `/${rel}`)).headers['content-type'],
        ),
      );
      expect(types).toEqual(['image/png', 'image/svg+xml', 'audio/ogg']);
    } finally {
      await server.close();
    }

    // GitHub Pages' output publishes them too.
    const pages = path.join(w.root, 'pages');
    expect((await launched('build', ['--data', w.data, '--out', pages, '--github-pages'])).code).toBe(0);
    expect(fs.readFileSync(path.join(pages, 'media/creature/1/cry.ogg'))).toEqual(fs.readFileSync(path.join(MEDIA, 'chirp.ogg')));
  }, 60_000);

  it('carries an unchanged file over a rebuild, writes a changed one, removes one the record drops: each time as a clean build', async () => {
    const w = await worldWithMedia();
    const image = path.join(w.data, 'creature-form/emberpup/front.png');
    const published = path.join(w.out, 'media/creature-form/1/front.png');
    /** A rebuild of the live tree, as a user runs it, which must equal a clean build of the same data. */
    const rebuild = async () => {
      const live = await launched('build', ['--data', w.data, '--out', w.out]);
      expect(live.stderr).not.toMatch(/problems? in/);
      expect(live.code).toBe(0);
      const clean = path.join(await tempDir(), 'dist');
      await buildWorld({ dataDir: w.data, outDir: clean });
      expect(await snapshot(w.out)).toEqual(await snapshot(clean));
    };
    await rebuild();
    const first = fs.statSync(published).ino;

    // Another record changes: the image is the same file, linked from the tree before.
    append(path.join(w.data, 'move/quick-strike.yaml'), '# edited\n');
    await rebuild();
    expect(fs.statSync(published).ino).toBe(first);

    // The image changes, its record's file does not.
    const png = fs.readFileSync(path.join(MEDIA, 'drop.png'));
    fs.writeFileSync(image, Buffer.concat([png, Buffer.from([0])])); // a trailing byte: another file, still a PNG
    await rebuild();
    expect(fs.statSync(published).ino).not.toBe(first);
    expect(fs.readFileSync(published)).toEqual(fs.readFileSync(image));

    // A file added beside it and named.
    fs.copyFileSync(path.join(MEDIA, 'badge.svg'), path.join(w.data, 'creature-form/emberpup/shiny.svg'));
    append(path.join(w.data, 'creature-form/emberpup.yaml'), '  front_shiny: shiny.svg\n');
    await rebuild();
    expect(read(w.out, 'api/v2/creature-form/1/index.json').sprites.front_shiny).toBe(media('creature-form', 1, 'shiny.svg'));
    expect(fs.existsSync(path.join(w.out, 'sprites/creature-form/shiny/1.svg'))).toBe(false);

    // The record drops its files: they go, and its places are drawn again.
    const yaml = path.join(w.data, 'creature-form/emberpup.yaml');
    fs.writeFileSync(yaml, fs.readFileSync(yaml, 'utf8').replace(/^sprites:[\s\S]*$/m, ''));
    fs.rmSync(path.join(w.data, 'creature-form/emberpup'), { recursive: true });
    await rebuild();
    expect(fs.existsSync(path.join(w.out, 'media/creature-form'))).toBe(false);
    expect(read(w.out, 'api/v2/creature-form/1/index.json').sprites.front_default).toBe(drawn('creature-form/1.svg'));
  }, 120_000);
});

describe('the API diff', () => {
  it('counts a file no longer published as a url that no longer answers', async () => {
    const w = await worldWithMedia();
    const base = path.join(w.root, 'base');
    expect((await launched('build', ['--data', w.data, '--out', base, '--plain'])).code).toBe(0);
    const yaml = path.join(w.data, 'item/potion.yaml');
    fs.writeFileSync(yaml, fs.readFileSync(yaml, 'utf8').replace(/^sprites:\n.*\n/m, ''));
    fs.rmSync(path.join(w.data, 'item/potion'), { recursive: true });
    const { stdout } = await run(process.execPath, ['build/launch.mjs', 'diff', '--base', base, '--data', w.data, '--report', 'json'], {
      cwd: root,
      env: { ...process.env, BASE_URL: BASE, CI: '1' },
    });
    expect(JSON.parse(stdout).breaking.urls).toEqual([
      { path: '/media/item/1/badge.svg', url: media('item', 1, 'badge.svg'), why: 'no longer published' },
    ]);
  }, 60_000);
});

// GitHub Pages: the starter world built with `--github-pages` by the real command, for a project
// site's address, and served by a model of Pages (pages-model.ts). A PokeAPI client reads a record,
// a list and a link there; what Pages cannot do is held as it is, so the README's word on it stays
// true: the query is not read (a list is whole, `next` null), a missing path is the 404 page as
// text/html, records are text/html, a folder without its slash is a redirect.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import Pokedex from 'pokedex-promise-v2';
import { MainClient, PokenodeError, type NamedAPIResourceList } from 'pokenode-ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { fixtureWorld, listFiles, tempDir } from './helpers.ts';
import { pagesModel } from './pages-model.ts';

/** A project site is served below the repository's name. */
const REPOSITORY = '/creatures';
const MARKUP = 'Fire <img src=x onerror="alert(1)"> & <script>alert(2)</script>';

let out: string;
let site: { url: string; close: () => Promise<void> };
let api: MainClient;
/** Every url the client asked for, in order. */
const requested: string[] = [];

const onDisk = (rel: string) => JSON.parse(fs.readFileSync(path.join(out, rel), 'utf8'));

beforeAll(async () => {
  const world = await fixtureWorld();
  out = world.out;
  // Text from the data that a browser would read as markup, in a record Pages sends as text/html.
  const fire = path.join(world.data, 'type', 'fire.yaml');
  fs.writeFileSync(fire, fs.readFileSync(fire, 'utf8').replace('name: Fire\n', `name: ${JSON.stringify(MARKUP)}\n`));
  fs.mkdirSync(out);
  // The model serves whatever is in the folder, so it starts first and tells the build its address.
  site = await pagesModel(out, REPOSITORY);
  await promisify(execFile)(
    process.execPath,
    [path.join(projectRoot, 'build/launch.mjs'), 'build', '--github-pages', '--data', world.data, '--out', out],
    { cwd: world.root, env: { ...process.env, BASE_URL: site.url } },
  );
  api = new MainClient({
    baseURL: `${site.url}/api/v2`,
    cache: false,
    fetch: (input, init) => {
      requested.push(String(input));
      return fetch(input, init);
    },
  });
});

afterAll(() => site?.close());

describe('pokenode-ts against the API on GitHub Pages', () => {
  it('reads a record by name and by id, each from its folder through a redirect', async () => {
    const fire = await api.pokemon.getTypeByName('fire');
    expect(fire).toEqual(onDisk('api/v2/type/fire/index.json'));
    expect(await api.pokemon.getTypeById(fire.id)).toEqual(fire);
    expect(requested).toContain(`${site.url}/api/v2/type/fire`);
    const answer = await fetch(`${site.url}/api/v2/type/fire`, { redirect: 'manual' });
    expect(answer.status).toBe(301);
    expect(answer.headers.get('location')).toBe(`${site.url}/api/v2/type/fire/`);
  });

  it('follows a link from one record to another', async () => {
    const fire = await api.pokemon.getTypeByName('fire');
    const target = fire.damage_relations.double_damage_to[0]!;
    expect(target.url.startsWith(`${site.url}/api/v2/type/`)).toBe(true);
    expect(await api.resolve(target)).toEqual(onDisk(`api/v2/type/${target.name}/index.json`));
  });

  it('answers a list whole whatever page is asked for, with next null, so a client that pages ends', async () => {
    const whole = onDisk('api/v2/type/index.json') as NamedAPIResourceList;
    expect(whole.results.length).toBeGreaterThan(2);
    const page = await api.pokemon.listTypes(2, 2);
    expect(page).toEqual(whole);
    expect(page.next).toBeNull();
    const walked: string[] = [];
    for await (const stat of api.pokemon.paginate('listStats', { pageSize: 3 })) walked.push(stat.name);
    expect(walked).toEqual(onDisk('api/v2/stat/index.json').results.map((r: { name: string }) => r.name));
  });

  it('gets a 404 for a record that is not there, its body the JSON of the 404 page', async () => {
    const failure = await api.pokemon.getTypeByName('fairy').catch((err: unknown) => err);
    expect(PokenodeError.isPokenodeError(failure)).toBe(true);
    expect((failure as PokenodeError).status).toBe(404);
    expect((failure as PokenodeError).body).toEqual({ detail: 'Not found.' });
  });
});

describe('what GitHub Pages answers', () => {
  it('sends a record as text/html with CORS, and the same bytes as the record', async () => {
    const answer = await fetch(`${site.url}/api/v2/stat/attack/`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(await answer.text()).toBe(fs.readFileSync(path.join(out, 'api/v2/stat/attack/index.json'), 'utf8'));
  });

  it('sends a record whose text holds markup with that text escaped: the same value, and no tag', async () => {
    const record = fs.readFileSync(path.join(out, 'api/v2/type/fire/index.json'), 'utf8');
    expect(record).toContain(MARKUP.replaceAll('"', '\\"'));
    const answer = await (await fetch(`${site.url}/api/v2/type/fire/`)).text();
    expect(answer).not.toMatch(/[<>&]/);
    expect(JSON.parse(answer)).toEqual(JSON.parse(record));
    expect((await api.pokemon.getTypeByName('fire')).names.map((n) => n.name)).toContain(MARKUP);
  });

  it('sends a missing path the 404 page, as text/html', async () => {
    const answer = await fetch(`${site.url}/api/v2/creature-form/999/`);
    expect(answer.status).toBe(404);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(JSON.parse(await answer.text())).toEqual({ detail: 'Not found.' });
  });

  it('sends the files that are files by their extension: the OpenAPI document as JSON', async () => {
    const answer = await fetch(`${site.url}/api/v2/openapi.json`);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect((await answer.json()).servers[0].url).toBe(site.url);
  });

  it('has an index.html beside every index.json of the API, and no folder of the API without one', async () => {
    const files = await listFiles(out);
    const json = files.filter((f) => f.startsWith('api/') && f.endsWith('/index.json'));
    const html = files.filter((f) => f.startsWith('api/') && f.endsWith('/index.html'));
    expect(html).toEqual(json.map((f) => f.replace(/json$/, 'html')));
    expect(json).toContain('api/v2/index.json');
  });

  it('answers a folder holding index.json alone with a 404 (what a build without --github-pages would give)', async () => {
    const dir = await tempDir();
    fs.mkdirSync(path.join(dir, 'type', 'fire'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'type', 'fire', 'index.json'), '{}');
    const bare = await pagesModel(dir, '');
    try {
      expect((await fetch(`${bare.url}/type/fire/`)).status).toBe(404);
      expect((await fetch(`${bare.url}/type/fire/index.json`)).status).toBe(200);
    } finally {
      await bare.close();
    }
  });
});

describe('pokedex-promise-v2 against the API on GitHub Pages', () => {
  it('reads a record, though it is sent as text/html', async () => {
    const { host, pathname } = new URL(site.url);
    const pokedex = new Pokedex({ protocol: 'http', hostName: host, versionPath: `${pathname}/api/v2/`, cacheLimit: 1 });
    expect(await pokedex.getTypeByName('water')).toEqual(onDisk('api/v2/type/water/index.json'));
  });
});

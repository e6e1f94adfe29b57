// Every endpoint two PokeAPI clients know, called against a world built and served on loopback,
// through the renaming an app puts in front of them (client-renaming.ts): pokenode-ts through its
// `fetch` option, pokedex-promise-v2 through a proxy. A method's endpoint is learned by calling it
// (the url it asks for), so a method a new version of a client adds is called too. Each answer is
// held to the record the build wrote, renamed back, and kept to be checked against the method's
// own declared type (client-types.ts).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import Pokedex from 'pokedex-promise-v2';
import { MainClient } from 'pokenode-ts';
import { expect } from 'vitest';
import { renamingFetch, renamingProxy } from './client-renaming.ts';
import type { Answer } from './client-types.ts';
import { serve, tempDir } from './helpers.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');

/** A world built by the real command and served; `api` is its api/v2 folder on disk. */
export interface World {
  name: string;
  url: string;
  api: string;
  close: () => Promise<void>;
}

/** `node build/launch.mjs <args>` from the project, the API's address given as BASE_URL. */
const launch = (args: string[], baseUrl: string) =>
  run(process.execPath, ['build/launch.mjs', ...args], {
    cwd: root,
    env: { ...process.env, BASE_URL: baseUrl, CI: '1' },
    maxBuffer: 64 << 20,
  });

/**
 * A copy of the world in `data` (or PokeAPI records in `from`, imported) built and served on a free
 * loopback port; the server starts first, so the build knows its address. A copy, as a build of the
 * project's own data/ would keep the editors' schemas beside it.
 */
export async function servedWorld(name: string, source: { data: string } | { from: string }): Promise<World> {
  const dir = await tempDir('crs-clients-');
  const out = path.join(dir, 'dist');
  fs.mkdirSync(out);
  const server = await serve(out);
  const data = path.join(dir, 'data');
  if ('from' in source) await launch(['import', '--from', source.from, '--out', data], server.url);
  else fs.cpSync(source.data, data, { recursive: true });
  await launch(['build', '--data', data, '--out', out, '--plain'], server.url);
  return { name, url: server.url, api: path.join(out, 'api', 'v2'), close: server.close };
}

// --- PokeAPI's names, and what the build wrote ---------------------------------------------------

const theirWord = (s: string) => s.replace(/athlon/g, 'pokeathlon').replace(/creature/g, 'pokemon');
const ourWord = (s: string) => s.replace(/pokeathlon/g, 'athlon').replace(/pokemon/g, 'creature');

/** A value as a client sees it through the renaming: keys and the kinds in urls as PokeAPI names them. */
function theirs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(theirs);
  if (typeof value === 'string') return value.replace(/(\/api\/v2\/)([a-z-]+)/, (_, at: string, kind: string) => at + theirWord(kind));
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [theirWord(k), theirs(v)]));
}

/** A file the build wrote under api/v2 (`kind` in PokeAPI's name), as the client sees it. */
const served = (world: World, ...at: Array<string | number>) =>
  theirs(
    JSON.parse(
      fs.readFileSync(path.join(world.api, ...at.map((step, i) => (i ? String(step) : ourWord(String(step)))), 'index.json'), 'utf8'),
    ),
  );

/** The kinds the world publishes, in PokeAPI's names. */
const publishedKinds = (world: World): string[] => Object.keys(served(world) as object);

type Rec = { id: number; name?: string } & Record<string, unknown>;

/** Every record of a kind (PokeAPI's name) the world publishes, by id. */
function recordsOf(world: World, kind: string): Rec[] {
  const dir = path.join(world.api, ourWord(kind));
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((entry) => /^-?\d+$/.test(entry))
    .map((id) => served(world, kind, id) as Rec)
    .sort((a, b) => a.id - b.id);
}

const holds = (v: unknown) =>
  v !== null && v !== undefined && !(Array.isArray(v) && !v.length) && !(typeof v === 'object' && !Object.keys(v).length);

/**
 * The records of a kind to call for: all of them, or a few — the first by id, and for each of its
 * fields the first record that gives it something — so that every field a kind carries is met.
 */
function samplesOf(world: World, kind: string, every: boolean): Rec[] {
  const all = recordsOf(world, kind);
  if (every || all.length <= 1) return all;
  const picked = new Set([all[0]!]);
  const fields = new Set(all.flatMap((r) => Object.keys(r)));
  for (const field of fields) {
    if ([...picked].some((r) => holds(r[field]))) continue;
    const first = all.find((r) => holds(r[field]));
    if (first) picked.add(first);
  }
  return [...picked];
}

// --- the clients' methods ------------------------------------------------------------------------

/** How a method is called: by a record's id, by its name, a page of a list, or a link followed. */
export type Way = 'id' | 'name' | 'list' | 'link';

export interface Method {
  client: 'pokenode-ts' | 'pokedex-promise-v2';
  /** `pokemon.getTypeById`, `getTypeByName`. */
  name: string;
  way: Way;
  /** The type its answer is declared with, for client-types.ts. */
  type: string;
  /** The address its answers name: the API's, or the proxy's in front of it. */
  origin: string;
  call: (...args: unknown[]) => Promise<unknown>;
}

export type Clients = Awaited<ReturnType<typeof clientsOf>>;

/** A client of each kind pointed at `world`, through the renaming; `asked` holds every url each asked for. */
export async function clientsOf(world: World) {
  const asked: string[] = [];
  const pokenode = new MainClient({
    baseURL: `${world.url}/api/v2`,
    cache: false,
    fetch: (url, init) => {
      asked.push(url);
      return renamingFetch(url, init);
    },
  });
  const proxy = await renamingProxy(world.url);
  const { host } = new URL(proxy.url);
  const pokedex = new Pokedex({ protocol: 'http', hostName: host, versionPath: '/api/v2/', cacheLimit: 1, timeout: 60_000 });
  return { pokenode, pokedex, asked, proxy };
}

/** What is not an endpoint on a client: its settings and its cache. */
export const NOT_ENDPOINTS = ['cacheSize', 'clearCache', 'getCachedItemsCount', 'getConfig'];

/** A method's way, by its name. */
const WAYS: Array<[RegExp, Way]> = [
  [/^get\w+ById$/, 'id'],
  [/^get\w+ByName$/, 'name'],
  [/^list\w+$|^get\w+List$/, 'list'],
  [/^(get)?[rR]esource(ByUrl)?$/, 'link'],
];
const wayOf = (name: string): Way | undefined => WAYS.find(([pattern]) => pattern.test(name))?.[1];

/** The methods of a class's instances, but its constructor. */
const methodsOf = (instance: object) =>
  Object.getOwnPropertyNames(Object.getPrototypeOf(instance)).filter((name) => name !== 'constructor');

/**
 * Every method each client has for an endpoint: pokenode-ts's sections' own methods, and
 * pokedex-promise-v2's. A method of neither way nor NOT_ENDPOINTS is `way: undefined`, for the
 * test to fail on.
 */
export function endpointMethods(
  world: World,
  { pokenode, pokedex, proxy }: Clients,
): Array<Omit<Method, 'way'> & { way: Way | undefined }> {
  const sections = Object.entries(pokenode).filter(([, section]) => section && typeof section.paginate === 'function');
  const fromPokenode = sections.flatMap(([section, client]) =>
    methodsOf(client).map((name) => ({
      client: 'pokenode-ts' as const,
      name: `${section}.${name}`,
      way: wayOf(name),
      type: `Of<MainClient['${section}']['${name}']>`,
      origin: world.url,
      call: (...args: unknown[]) => client[name](...args),
    })),
  );
  const fromPokedex = methodsOf(pokedex)
    .filter((name) => !NOT_ENDPOINTS.includes(name))
    .map((name) => ({
      client: 'pokedex-promise-v2' as const,
      name,
      way: wayOf(name),
      type: `One<Pokedex['${name}']>`,
      origin: proxy.url,
      // Each call asks: its cache would answer a method asking for the url another just asked for (a
      // deprecated name's). clearCache is the client's own, which its types leave out.
      call: (...args: unknown[]) => {
        (pokedex as any).clearCache();
        return (pokedex as any)[name](...args);
      },
    }));
  return [...fromPokenode, ...fromPokedex];
}

// --- calling every endpoint ----------------------------------------------------------------------

/** What the sweep of one world found. */
export interface Swept {
  /** Answers to type-check. */
  answers: Answer[];
  /** `<client> <method>` of each endpoint the world does not publish. */
  unpublished: string[];
  /** `<client> <method>` of each endpoint by name whose records are reached by id only (a 404 by name). */
  byIdOnly: string[];
}

/** A record of no such kind: what a method is first called with, to learn its endpoint from the url it asks for. */
const NO_SUCH = 'no-such-record';

/** The endpoint a url asks for: the kind after api/v2 (`''` for the index; `?` for no url, which no world publishes). */
const endpointOf = (url: string | undefined) => (url && /\/api\/v2\/([a-z-]*)/.exec(url)?.[1]) ?? '?';

/**
 * Calls every method by id, by name or by page, for the samples of its kind; each answer must be
 * the record (or list page) the build wrote, renamed back. `asked` is where the methods' client
 * puts each url it asks for. Links are followed elsewhere.
 */
export async function sweep(world: World, methods: Method[], asked: string[], every: boolean): Promise<Swept> {
  const kinds = new Set(publishedKinds(world));
  const swept: Swept = { answers: [], unpublished: [], byIdOnly: [] };
  for (const own of methods.filter((m) => m.way !== 'link')) {
    // Held to what the build wrote, whose urls name the API.
    const method = { ...own, call: async (...args: unknown[]) => atOrigin(await own.call(...args), own.origin, world.url) };
    const probe = method.way === 'list' ? [0, 1] : [NO_SUCH];
    const before = asked.length;
    await method
      .call(...(method.client === 'pokedex-promise-v2' && method.way === 'list' ? [{ offset: 0, limit: 1 }] : probe))
      .catch(() => undefined);
    const url = asked[before];
    const endpoint = endpointOf(url);
    // A creature's encounters are a path below its record: `pokemon/<id>/encounters`.
    const below = url && /\/encounters\/?$/.test(url) ? 'encounters' : undefined;
    if (endpoint && !kinds.has(endpoint)) {
      swept.unpublished.push(`${method.client} ${method.name}`);
      continue;
    }
    const label = `${method.client} ${endpoint || '(index)'}${below ? `/${below}` : ''}`;
    const keep = (value: unknown) => swept.answers.push({ label, type: method.type, value });
    if (method.way === 'list') await calledForList(world, method, endpoint, keep);
    else
      try {
        for (const [i, record] of samplesOf(world, endpoint, every).entries())
          await calledForRecord(world, method, [endpoint, below], record, i === 0, keep);
      } catch (err) {
        if (!(err instanceof NotByName)) throw err;
        swept.byIdOnly.push(`${method.client} ${method.name}`);
      }
  }
  return swept;
}

/** A list, whole or a page of it, as a client pages it. */
async function calledForList(world: World, method: Method, kind: string, keep: (v: unknown) => void): Promise<void> {
  const whole = served(world, ...(kind ? [kind] : [])) as { count: number; results: unknown[] };
  if (!kind) {
    // The index: one url per kind, no paging.
    const index = await method.call();
    expect(index, method.name).toEqual(whole);
    return keep(index);
  }
  const page = (offset: number, limit: number) =>
    method.client === 'pokenode-ts' ? method.call(offset, limit) : method.call({ offset, limit });
  const first = (await page(0, 2)) as typeof whole;
  expect(first.count, method.name).toBe(whole.count);
  expect(first.results, method.name).toEqual(whole.results.slice(0, 2));
  const rest = (await page(1, whole.count)) as typeof whole;
  expect(rest.results, method.name).toEqual(whole.results.slice(1));
  keep(first);
}

/**
 * A record by id or by name; pokedex-promise-v2 takes either, and a list of them. An answer by name
 * is the same record as by id: only the first is kept, for the type its method declares.
 */
async function calledForRecord(
  world: World,
  method: Method,
  [kind, below]: [string, string | undefined],
  record: Rec,
  first: boolean,
  keep: (v: unknown) => void,
): Promise<void> {
  const expected = below ? served(world, kind, record.id, below) : record;
  // pokedex-promise-v2 refuses an id that is falsy before asking (PokeAPI's id 0 too): by name only.
  const byId = method.client === 'pokenode-ts' ? method.way === 'id' : record.id !== 0;
  if (byId) {
    const answer = await method.call(record.id);
    expect(answer, `${method.name}(${record.id})`).toEqual(expected);
    keep(answer);
  }
  if (method.way === 'name' && typeof record.name === 'string') {
    // A name two records share names the first of them.
    const answer = (await method.call(record.name).catch((err: unknown) => {
      throw statusOf(err) === 404 ? new NotByName() : err;
    })) as Rec;
    expect(answer, `${method.name}(${record.name})`).toEqual(served(world, kind, record.name));
    if (first && method.client === 'pokenode-ts') keep(answer);
  }
  if (method.client === 'pokedex-promise-v2' && method.way === 'name' && typeof record.name === 'string') {
    const both = await method.call([record.name, record.id]);
    expect(both, `${method.name}([name, id])`).toEqual([served(world, kind, record.name), expected]);
  }
}

/** `value` with the urls naming `from` naming `to`. */
export const atOrigin = (value: unknown, from: string, to: string) =>
  from === to ? value : JSON.parse(JSON.stringify(value).replaceAll(from, to));

/** A record asked for by name was not found: its kind is reached by id only. */
class NotByName extends Error {}

/** The HTTP status a client's error carries: pokenode-ts's `status`, axios's `response.status`. */
const statusOf = (err: unknown) => {
  const e = err as { status?: number; response?: { status?: number } } | undefined;
  return e?.status ?? e?.response?.status;
};

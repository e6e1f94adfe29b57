// Talking to the API. Everything is fetched relative to the page, so the site works under any
// sub-path. Urls inside records are absolute (made with the build's BASE_URL, which may be a
// different host than the one serving this page); they are mapped back to paths under the page.
export interface NamedRef {
  name: string;
  url: string;
}
/** A list's item: a record's name and url, or its url alone where the kind publishes no name (characteristic). */
export interface ListItem {
  name?: string;
  url: string;
}
export interface List {
  count: number;
  results: ListItem[];
}
export type ApiRecord = Record<string, unknown> & { id: number; name?: string };

const API = '/api/v2/';

/** The part of a url after `/api/v2/` (`type/2/`), or undefined for urls outside the API. */
export function apiPathOf(url: string): string | undefined {
  const at = url.indexOf(API);
  return at < 0 ? undefined : url.slice(at + API.length);
}

/** The kind and key (id or name) a record url names, or undefined. */
export function recordOf(url: string): { kind: string; key: string } | undefined {
  const rest = apiPathOf(url);
  const m = rest === undefined ? null : /^([a-z0-9-]+)\/([^/?#]+)\/?$/.exec(rest);
  return m ? { kind: m[1]!, key: m[2]! } : undefined;
}

/** The id a reference's url names (NaN for a url that names none). */
export const idOf = (ref: { url: string }) => Number(recordOf(ref.url)?.key);

/** A reference to a record of a kind published without names (an evolution chain, a characteristic): its url alone. */
export interface UrlRef {
  url: string;
}

export function isUrlRef(value: unknown): value is UrlRef {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === 'url' && typeof (value as UrlRef).url === 'string';
}

export function isNamedRef(value: unknown): value is NamedRef {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const v = value as Record<string, unknown>;
  return keys.length === 2 && typeof v.name === 'string' && typeof v.url === 'string';
}

/** The site root the data's urls start with (BASE_URL), learned from the API index. */
let dataBase: string | undefined;

/**
 * Where an absolute url from the data (a sprite, a record) lives relative to this page; undefined for
 * one that is not an http(s) url once placed. Any text of a record may look like a url, and a link or
 * a source the page makes of it must not run script: `<BASE_URL>/javascript:…` is a path under the
 * site root, never a url of its own.
 */
export function localUrl(url: string): string | undefined {
  const rest = dataBase && url.startsWith(dataBase + '/') ? url.slice(dataBase.length + 1) : undefined;
  const apiRest = rest === undefined ? apiPathOf(url) : undefined;
  const local = rest !== undefined ? `./${rest}` : apiRest !== undefined ? pageUrl(apiRest) : url;
  let placed: URL;
  try {
    placed = new URL(local, document.baseURI);
  } catch {
    return undefined;
  }
  return placed.protocol === 'http:' || placed.protocol === 'https:' ? placed.href : undefined;
}

/** The absolute url of `api/v2/<rest>` next to this page. */
export function pageUrl(rest: string): string {
  return new URL(API.slice(1) + rest, document.baseURI).href;
}

export class NotFound extends Error {}

const cache = new Map<string, Promise<unknown>>();

async function getJson<T>(rest: string): Promise<T> {
  let pending = cache.get(rest);
  if (!pending) {
    // In the dev loop the data changes under the page, so every read asks the server.
    pending = fetch(pageUrl(rest), { cache: import.meta.env.DEV ? 'no-cache' : 'default' }).then(async (res) => {
      if (res.status === 404) throw new NotFound(rest);
      if (!res.ok) throw new Error(`${res.status} ${res.statusText} for ${rest}`);
      return res.json();
    });
    pending.catch(() => cache.delete(rest));
    cache.set(rest, pending);
  }
  return pending as Promise<T>;
}

/** Forgets everything fetched so far (after the data was rebuilt). */
export function forget(): void {
  cache.clear();
}

/** The index's entry that is no kind: the API's word about itself (its build's date and sources' hash), as PokeAPI's index has it. */
const META = 'meta';

/** Kind → list url, from `api/v2/index.json`. */
export async function kinds(): Promise<string[]> {
  const index = await getJson<Record<string, string>>('index.json');
  const first = Object.values(index)[0];
  if (first && first.includes(API)) dataBase = first.slice(0, first.indexOf(API));
  return Object.keys(index)
    .filter((k) => k !== META)
    .sort();
}

export function list(kind: string): Promise<List> {
  return getJson<List>(`${kind}/index.json`);
}

/** A record by id (or by name, where the kind publishes names). */
export function record(kind: string, key: string): Promise<ApiRecord> {
  return getJson<ApiRecord>(`${kind}/${key}/index.json`);
}

/** The file of every record of a kind, one a line (NDJSON), next to this page. */
export function ndjsonUrl(kind: string): string {
  return pageUrl(`${kind}/all.ndjson`);
}

/** The list of every kind's NDJSON file, next to this page. */
export const ndjsonListUrl = (): string => pageUrl('ndjson/');

/** The url a person would call for this record: the API's own, next to this page. */
export function recordApiUrl(kind: string, key: string | number): string {
  return pageUrl(`${kind}/${key}/`);
}

/**
 * What an API url names (`…/api/v2/evolution-chain/1/`, `…/api/v2/creature/1/encounters`), read
 * from its file next to this page; a url outside the API is not found.
 */
export function atUrl<T>(url: string): Promise<T> {
  const rest = apiPathOf(url);
  if (rest === undefined) return Promise.reject(new NotFound(url));
  return getJson<T>(`${rest.replace(/\/?$/, '/')}index.json`);
}

/** Every record of a kind, in the list's order, fetched in parallel; each is kept like any other read. */
export async function records(kind: string): Promise<ApiRecord[]> {
  const { results } = await list(kind);
  return Promise.all(results.map((ref) => record(kind, recordOf(ref.url)?.key ?? String(ref.name))));
}

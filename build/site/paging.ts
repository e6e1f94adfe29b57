// Paging a list: the full list a kind's index.json holds, and a request's query, in; the page
// PokeAPI would answer, out. PokeAPI pages with Django REST framework's LimitOffsetPagination
// (default limit 20, no maximum), and this reads `offset` and `limit` exactly as it does. Pure,
// with no imports, so that every place that pages (the local server, the hosts' functions) bundles
// the same code.

/** A kind's list: `count` is every record, `results` the page. */
export interface NamedRefList<T = unknown> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** PokeAPI's page size (its `PAGE_SIZE`), given when `limit` is missing or unusable. */
const DEFAULT_LIMIT = 20n;

/** The query parameters that ask for a page. */
const PAGING_PARAMS = ['offset', 'limit'] as const;

/**
 * Python's `int(str)`: surrounding whitespace (ASCII's, and Unicode's beyond ASCII), a sign,
 * decimal digits of any script, single underscores between digits. It refuses over 4,300 digits.
 */
const PY_SPACE = '\\t\\n\\v\\f\\r\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_INT = new RegExp(`^[${PY_SPACE}]*([+-]?)(\\p{Nd}+(?:_\\p{Nd}+)*)[${PY_SPACE}]*$`, 'u');
const PY_MAX_DIGITS = 4300;
const DIGIT = /\p{Nd}/u;

/** The value of a decimal digit of any script: Unicode places each script's 0 to 9 in a run of ten. */
function digitValue(char: string): number {
  const code = char.codePointAt(0)!;
  let zero = code;
  while (DIGIT.test(String.fromCodePoint(zero - 1))) zero--;
  return (code - zero) % 10;
}

/** The integer Python's `int(text)` gives, or undefined where it raises ValueError. */
export function pythonInt(text: string): bigint | undefined {
  const match = PY_INT.exec(text);
  if (!match) return undefined;
  const digits = [...match[2]!.replaceAll('_', '')];
  if (digits.length > PY_MAX_DIGITS) return undefined;
  const ascii = digits.map((d) => (d >= '0' && d <= '9' ? d : String(digitValue(d)))).join('');
  const value = BigInt(ascii);
  return match[1] === '-' ? -value : value;
}

/**
 * DRF's `_positive_int`: the value, refused when negative (or zero, when strict); Django's query
 * dict gives the last value of a repeated parameter.
 */
function positive(query: URLSearchParams, name: string, strict: boolean): bigint | undefined {
  const all = query.getAll(name);
  if (all.length === 0) return undefined;
  const value = pythonInt(all[all.length - 1]!);
  if (value === undefined || value < 0n || (strict && value === 0n)) return undefined;
  return value;
}

/**
 * The page a query asks for, as LimitOffsetPagination reads it: a bad or missing `limit` is the
 * default, a bad or missing `offset` is 0. Undefined when the query names neither: the full list.
 */
export function pagingOf(query: URLSearchParams): { offset: bigint; limit: bigint } | undefined {
  if (!PAGING_PARAMS.some((name) => query.has(name))) return undefined;
  return { offset: positive(query, 'offset', false) ?? 0n, limit: positive(query, 'limit', true) ?? DEFAULT_LIMIT };
}

/** `{listUrl}?offset=N&limit=M`: the form PokeAPI's own site links its pages by. */
function pageUrl(listUrl: string, offset: bigint, limit: bigint): string {
  return `${listUrl}?offset=${offset}&limit=${limit}`;
}

/**
 * The page of `list` that `query` asks for, its links based on `listUrl` (the kind's list url as
 * the build wrote it, e.g. `{BASE_URL}/api/v2/type/`). Without paging parameters, `list` itself.
 * `next` and `previous` are DRF's, in PokeAPI's url form (see hosts/README.md).
 */
export function page<T>(list: NamedRefList<T>, listUrl: string, query: URLSearchParams): NamedRefList<T> {
  const paging = pagingOf(query);
  if (!paging) return list;
  const { offset, limit } = paging;
  const count = BigInt(list.results.length);
  // An offset past the end slices nothing (a huge one is Infinity as a Number).
  const results = list.results.slice(Number(offset), Number(min(offset + limit, count)));
  return {
    count: list.results.length,
    next: offset + limit >= count ? null : pageUrl(listUrl, offset + limit, limit),
    previous: offset <= 0n ? null : pageUrl(listUrl, offset - limit > 0n ? offset - limit : 0n, limit),
    results,
  };
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);

/** The kind a list's path names (`/api/v2/type`, `/api/v2/type/`), or undefined for any other path. */
export function listKind(pathname: string): string | undefined {
  return /^\/api\/v2\/([a-z0-9-]+)\/?$/.exec(pathname)?.[1];
}

/**
 * The page as JSON, from the texts of the API's index (which gives the kind's list url, as the
 * records link to it) and of the kind's full list: what a host's code answers.
 */
export function pageJson(indexText: string, listText: string, kind: string, query: URLSearchParams): string {
  const listUrl = listUrlOf(indexText, kind);
  if (listUrl === undefined) throw new Error(`the API's index has no list url for ${kind}`);
  return pageOf(listUrl, listText, query);
}

/** The url the API's index gives for a kind's list, if it gives one. */
function listUrlOf(indexText: string, kind: string): string | undefined {
  const listUrl = (JSON.parse(indexText) as Record<string, unknown>)[kind];
  return typeof listUrl === 'string' ? listUrl : undefined;
}

const pageOf = (listUrl: string, listText: string, query: URLSearchParams) =>
  JSON.stringify(page(JSON.parse(listText) as NamedRefList, listUrl, query));

/**
 * The files a page is made from, as paths in the output. They are paths.ts's `apiPaths.index` and
 * `apiPaths.list` (a test holds them equal), repeated so that this module imports nothing.
 */
export const pageSources = { index: 'api/v2/index.json', list: (kind: string) => `api/v2/${kind}/index.json` };

/**
 * What a host's code answers to a request for `url`: the page, as JSON, when it asks for a page of a
 * kind's list; undefined for any other request, and for a kind with no list, left to the static
 * files. `read` gives the text of a file of the output by its path, or undefined when there is none.
 */
export async function pageFor(url: URL, read: (rel: string) => Promise<string | undefined>): Promise<string | undefined> {
  const kind = listKind(url.pathname);
  if (!kind || !pagingOf(url.searchParams)) return undefined;
  const [listText, indexText] = await Promise.all([read(pageSources.list(kind)), read(pageSources.index)]);
  if (listText === undefined || indexText === undefined) return undefined;
  // The index also names `/api/v2/meta/`, which is no list, and names no list url for the dumps'
  // folder (`/api/v2/ndjson/`), whose file lists them: the query of either plays no part, as at PokeAPI.
  const listUrl = listText.includes('"results"') ? listUrlOf(indexText, kind) : undefined;
  return listUrl === undefined ? undefined : pageOf(listUrl, listText, url.searchParams);
}

/**
 * A page's `Cache-Control` where the host gives its list none: the local server's for a list
 * (its rule for JSON files in hosts/serve.json; a test holds the two equal). A page is as fresh as its list.
 */
export const PAGE_CACHE_CONTROL = 'public, max-age=300';

/** Every answer's type is the one it is given: a browser is not to guess another from its bytes (JSON read as a page). */
export const NOSNIFF = { 'X-Content-Type-Options': 'nosniff' } as const;

/** The headers every answer of the API carries, on every host: any origin may read it, and its type is as given. */
export const EVERY_ANSWER = { 'Access-Control-Allow-Origin': '*', ...NOSNIFF } as const;

/** What a request for a page is answered: a 200 with the page, or a 304 (both with the page's ETag), with no body for HEAD. */
export interface PageAnswer {
  status: 200 | 304;
  headers: Record<string, string>;
  body: string | null;
}

/**
 * RFC 9110 §13.1.2: true when an `If-None-Match` value names `etag` by weak comparison (`W/"x"`
 * matches `"x"`), in a comma-separated list, or is `*`. A tag may itself hold a comma, so the
 * value is read tag by tag, not split.
 */
export function noneMatchHits(ifNoneMatch: string | null | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = (tag: string) => tag.replace(/^W\//, '');
  return (ifNoneMatch.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => opaque(tag) === opaque(etag));
}

/** A strong ETag of the bytes of `text`: the same page, the same tag, on every host and after every rebuild. */
async function etagOf(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-1', new TextEncoder().encode(text));
  return `"${[...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')}"`;
}

/**
 * The answer to a request for `url` with `method` and `If-None-Match` when it asks for a page of
 * a kind's list; undefined otherwise (see `pageFor`). `listCacheControl` gives, once the files
 * are read, the `Cache-Control` the host sent with the list, where it sent one.
 */
export async function pageAnswer(
  request: { url: URL; method: string; ifNoneMatch?: string | null },
  read: (rel: string) => Promise<string | undefined>,
  listCacheControl: () => string | null | undefined = () => undefined,
): Promise<PageAnswer | undefined> {
  const body = await pageFor(request.url, read);
  if (body === undefined) return undefined;
  const etag = await etagOf(body);
  const headers = { ...EVERY_ANSWER, 'Cache-Control': listCacheControl() ?? PAGE_CACHE_CONTROL, ETag: etag };
  if (noneMatchHits(request.ifNoneMatch, etag)) return { status: 304, headers, body: null };
  return {
    status: 200,
    headers: { ...headers, 'Content-Type': 'application/json; charset=utf-8' },
    body: request.method === 'HEAD' ? null : body,
  };
}

/**
 * What a host's function answers, as a web Response (workerd, Netlify and Node share the type):
 * the page, when the request asks for one, read through `fetchFile` (the site's own files by
 * path), with the list's `Cache-Control` when the host sends one; undefined for anything else,
 * left to the host.
 */
export async function pageResponse(request: Request, fetchFile: (rel: string) => Promise<Response>): Promise<Response | undefined> {
  let listCacheControl: string | null = null;
  const read = async (rel: string) => {
    const res = await fetchFile(rel);
    if (rel !== pageSources.index) listCacheControl = res.headers.get('Cache-Control');
    return res.ok ? res.text() : undefined;
  };
  const url = new URL(request.url);
  const ifNoneMatch = request.headers.get('If-None-Match');
  const answer = await pageAnswer({ url, method: request.method, ifNoneMatch }, read, () => listCacheControl);
  if (!answer) return undefined;
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

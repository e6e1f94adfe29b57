// The local server: `serve-handler` (the request handler of the `serve` package) over the output
// folder, with the rules a static host is given in its config: JSON for API paths, with or
// without the trailing slash, CORS and nosniff on every answer, a JSON 404, no listings, nothing
// outside the folder; and conditional and range requests as RFC 9110 has them.
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import handler from 'serve-handler';
import { NOT_FOUND_BODY, serveConfigFile } from '../paths.ts';
import { EVERY_ANSWER, noneMatchHits, pageAnswer } from './paging.ts';

const ALLOWED = 'GET, HEAD, OPTIONS';
const JSON_TYPE = 'application/json; charset=utf-8';
const RANGE_NOT_SATISFIABLE = 416;

/**
 * serve-handler's rules are those `npx serve dist` reads from the output's serve.json: one copy of
 * them for both servers. Its rewrites match segments without a dot, so that a rewritten path
 * (…/index.json) is never rewritten again.
 */
const handlerConfig = () => ({
  ...(JSON.parse(fs.readFileSync(serveConfigFile, 'utf8')) as object),
  etag: true,
});

function sendJson(res: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** A list asked for with `offset` or `limit`: the page or its 304 (true when answered); anything else is left to the static rules. */
async function answerPage(publicDir: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean> {
  const read = (rel: string) => fs.promises.readFile(path.join(publicDir, rel), 'utf8').catch(() => undefined);
  const url = new URL(req.url ?? '/', 'http://localhost');
  const answer = await pageAnswer({ url, method: req.method ?? 'GET', ifNoneMatch: req.headers['if-none-match'] }, read);
  if (!answer) return false;
  if (answer.body !== null) answer.headers['Content-Length'] = String(Buffer.byteLength(answer.body));
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body ?? undefined);
  return true;
}

/**
 * The headers RFC 9110 §15.4.5 has a 304 carry from the 200 it stands for (the headers set on
 * every answer stay too).
 */
const KEPT_BY_304 = new Set(['etag', 'cache-control', 'expires', 'vary', 'content-location', 'date']);

/**
 * What serve-handler is given for one request. It opens a file before it decides how to answer
 * and closes it only by piping it to the end, so an answer that ends another way (a 304, a client
 * gone mid-answer) kept its descriptor open; it compares `If-None-Match` whole, answering 304
 * without the answer's headers; it reads no `If-Range`, and sends the whole file as the body of a
 * 416. Here its files are opened when read and closed with the answer, and its answers' heads
 * decide the conditions, the range and HEAD.
 */
function handlerMethodsFor(req: http.IncomingMessage, res: http.ServerResponse) {
  const asked = takeConditions(req);
  const files = filesClosedWith(res);
  decideHeads(req, res, asked, files);
  return { createReadStream: files.createReadStream, lstat, sendError };
}

/** The conditions of a request, decided here on the head of its answer. */
interface Conditions {
  ifNoneMatch: string | undefined;
  ifRange: string | undefined;
}

/**
 * Takes off the request what serve-handler is not to decide: `If-None-Match` and `If-Range`. It
 * keeps `Range` only where a server is to read one (RFC 9110 §14.2): on a GET, in bytes, for one
 * range. A range in another unit is ignored, and several ranges get the whole file rather than
 * the first range alone.
 */
function takeConditions(req: http.IncomingMessage): Conditions {
  const { 'if-none-match': ifNoneMatch, range } = req.headers;
  // Node joins the values of a repeated header into one string (only Set-Cookie's are a list).
  const ifRange = req.headers['if-range'] as string | undefined;
  delete req.headers['if-none-match'];
  delete req.headers['if-range'];
  delete req.headers.range;
  const one = /^bytes=([^,]+)$/i.exec(range?.trim() ?? '');
  if (req.method === 'GET' && one) req.headers.range = `bytes=${one[1]}`;
  return { ifNoneMatch, ifRange };
}

/**
 * A `createReadStream` whose files are opened when first read and closed when `res` ends, however
 * it ends; `closeAll` closes them sooner, and `readWhole` has every file opened from then on read
 * whole, whatever range it was asked for. serve-handler asks for the stream of the body before it
 * writes the head and reads it only after, so the head decides what the body holds, and a file
 * whose answer ends at its head is never opened.
 */
function filesClosedWith(res: http.ServerResponse) {
  const streams = new Set<Readable>();
  const closeAll = () => streams.forEach((stream) => stream.destroy());
  let whole = false;
  // A client may have gone while the tree and the page were looked up.
  let ended = res.destroyed;
  res.once('close', () => {
    ended = true;
    closeAll();
  });
  const createReadStream = (file: string, options?: { start?: number; end?: number }) => {
    const stream = Readable.from(
      readWhenAsked(file, () => (whole ? undefined : options)),
      { objectMode: false },
    );
    // An unreadable file (EMFILE, EACCES) ends its answer instead of throwing from the stream.
    stream.on('error', () => res.destroy());
    if (ended) stream.destroy();
    else streams.add(stream);
    return stream;
  };
  return { createReadStream, closeAll, readWhole: () => (whole = true) };
}

/** The bytes of `file`, in the range `options` gives once they are first asked for. */
async function* readWhenAsked(file: string, options: () => { start?: number; end?: number } | undefined) {
  yield* fs.createReadStream(file, options());
}

type WriteHead = (status: number, headers?: http.OutgoingHttpHeaders) => http.ServerResponse;

/**
 * Decides, where serve-handler writes a found file's head, what it leaves undecided, in the order
 * of RFC 9110 §13.2.2: `If-None-Match` on the head's `ETag`, a 304 with the headers the 200 would
 * carry; then `If-Range`, a range of a version other than the one it names being the whole file;
 * then a range past the end, a 416 whose body is the JSON error, not the file. A HEAD answer ends at its head.
 * An answer that is not the file's bytes closes the file unread and ends, so what serve-handler
 * pipes next gives nothing.
 */
function decideHeads(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  asked: Conditions,
  files: { closeAll: () => void; readWhole: () => void },
): void {
  const writeHead = res.writeHead.bind(res) as WriteHead;
  const endWith = (status: number, headers: http.OutgoingHttpHeaders, body?: string) => {
    writeHead(status, headers);
    files.closeAll();
    return res.end(body);
  };
  const head = (status: number, headers: http.OutgoingHttpHeaders = {}) => {
    // A 416 is a file found, its range not.
    if (!(status >= 200 && status < 300) && status !== RANGE_NOT_SATISFIABLE) return writeHead(status, headers);
    const etag = String(headers.ETag ?? '');
    if (noneMatchHits(asked.ifNoneMatch, etag)) return endWith(304, keptBy304(headers));
    const ranged = status === 206 || status === RANGE_NOT_SATISFIABLE;
    if (ranged && !ifRangeHolds(asked.ifRange, etag)) {
      files.readWhole();
      return writeHead(200, wholeFileHeaders(res, headers));
    }
    if (status === RANGE_NOT_SATISFIABLE) {
      const text = JSON.stringify({ detail: 'Range not satisfiable.' });
      return endWith(status, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(text) }, text);
    }
    if (req.method === 'HEAD') return endWith(status, headers);
    return writeHead(status, headers);
  };
  res.writeHead = head as typeof res.writeHead;
}

/**
 * RFC 9110 §13.1.5: whether a range is to be answered as asked, given the request's `If-Range` and
 * the file's `etag`: always without one; with one, only when it names that tag by strong
 * comparison (a weak tag never does). A date never does either: the answers carry no
 * `Last-Modified` to compare it with.
 */
export function ifRangeHolds(ifRange: string | undefined, etag: string): boolean {
  if (ifRange === undefined) return true;
  return etag.startsWith('"') && ifRange.trim() === etag;
}

/** The head of a ranged answer made the head of the whole file's: its length is the one its `Content-Range` ends with. */
function wholeFileHeaders(res: http.ServerResponse, headers: http.OutgoingHttpHeaders): http.OutgoingHttpHeaders {
  const contentRange = String(headers['Content-Range'] ?? res.getHeader('Content-Range') ?? '');
  res.removeHeader('Content-Range');
  const { 'Content-Range': _range, ...rest } = headers;
  return { ...rest, 'Content-Length': /\/(\d+)$/.exec(contentRange)![1] };
}

/** serve-handler's `lstat`, with a name the file system cannot hold (a segment over 255 bytes) missing, not its HTML 500. */
const lstat = (file: string) =>
  fs.promises.lstat(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENAMETOOLONG' || err.code === 'ELOOP') err.code = 'ENOENT';
    throw err;
  });

const keptBy304 = (headers: http.OutgoingHttpHeaders) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => KEPT_BY_304.has(name.toLowerCase())));

/** serve-handler's error page, as the API's: the JSON 404 for a missing or refused path. */
function sendError(
  _abs: string,
  res: http.ServerResponse,
  _json: boolean,
  _cur: string,
  _h: unknown,
  _c: unknown,
  spec: { statusCode: number },
) {
  if (spec.statusCode === 404 || spec.statusCode === 400) return sendJson(res, 404, NOT_FOUND_BODY);
  return sendJson(res, spec.statusCode, { detail: 'Server error.' });
}

/** The local server's answer to a request, over the output folder `publicDir` (a link a build swaps). */
export function requestHandler(publicDir: string): http.RequestListener {
  const config = handlerConfig();
  return (req, res) => {
    for (const [name, value] of Object.entries(EVERY_ANSWER)) res.setHeader(name, value);
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'Access-Control-Allow-Methods': ALLOWED,
        'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] ?? '*',
        'Access-Control-Max-Age': '86400',
        Allow: ALLOWED,
      });
      return res.end();
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', ALLOWED);
      return sendJson(res, 405, { detail: `Method "${req.method}" not allowed.` });
    }
    if (!safePath(req.url ?? '/')) return sendJson(res, 404, NOT_FOUND_BODY);
    // `dist` is a link a build swaps to the tree it made. Resolved once per request, every file of
    // an answer comes from one tree: serve-handler sizes a file and opens it in two steps, and
    // through the link a swap between them sent one build's length with another build's bytes.
    fs.promises.realpath(publicDir).then(
      (tree) =>
        answerPage(tree, req, res)
          .then((answered) => (answered ? undefined : handler(req, res, { ...config, public: tree }, handlerMethodsFor(req, res) as never)))
          .catch(() => {
            if (!res.headersSent) sendJson(res, 500, { detail: 'Server error.' });
            else res.destroy();
          }),
      () => sendJson(res, 404, NOT_FOUND_BODY), // nothing built yet
    );
  };
}

/**
 * False for a path that tries to leave the folder or hide what it is: a `..` or `.` segment, a
 * backslash or NUL (also percent-encoded, once or twice), bad encoding, an overlong path, or a
 * request target no URL parser reads (`http://[`, which a client may send in absolute form).
 * serve-handler checks containment too; this answers such paths with the plain JSON 404.
 */
export function safePath(url: string): boolean {
  // The path alone is held to a length: a query plays no part in which file answers (a long one of
  // a tracker's is as PokeAPI would take it), and Node refuses a request line past 16 kB itself.
  let pathname = url.split('?')[0]!;
  if (pathname.length > 2048 || !URL.canParse(url, 'http://localhost')) return false;
  for (let i = 0; i < 3 && pathname.includes('%'); i++) {
    try {
      pathname = decodeURIComponent(pathname);
    } catch {
      return false;
    }
  }
  if (/[\\\0]/.test(pathname)) return false;
  return !pathname.split('/').some((seg) => seg === '..' || seg === '.');
}

/**
 * Starts the server on `port` (0 picks a free one) on `host`; resolves with its address as a url
 * (a wildcard host as localhost, an IPv6 host in brackets).
 */
export async function listen(server: http.Server, port: number, host = '127.0.0.1'): Promise<string> {
  server.listen(port, host);
  await once(server, 'listening'); // rejects with an 'error' that comes first
  const { port: actual } = server.address() as AddressInfo;
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${actual}`;
}

// The local server: `serve-handler` (the request handler of the `serve` package) over the output
// folder, with the rules a static host is given in its config: JSON for API paths, with or
// without the trailing slash, CORS, a JSON 404, no listings, nothing outside the folder.
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import handler from 'serve-handler';
import { NOT_FOUND_BODY, serveConfigFile } from '../paths.ts';
import { noneMatchHits, pageAnswer } from './paging.ts';

const ALLOWED = 'GET, HEAD, OPTIONS';

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
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
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
 * The headers RFC 9110 §15.4.5 has a 304 carry from the 200 it stands for (the CORS header, set on
 * every answer, stays too).
 */
const KEPT_BY_304 = new Set(['etag', 'cache-control', 'expires', 'vary', 'content-location', 'date']);

/**
 * What serve-handler is given for one request. It opens a file before it decides how to answer
 * and closes it only by piping it to the end, so an answer that ends another way (a 304, a client
 * gone mid-answer) kept its descriptor open; and it compares `If-None-Match` whole, answering 304
 * without the answer's headers. Here its files are closed with the answer, and its answers' heads
 * decide `If-None-Match` and HEAD.
 */
function handlerMethodsFor(req: http.IncomingMessage, res: http.ServerResponse) {
  const files = filesClosedWith(res);
  decideHeads(req, res, files.closeAll);
  return { createReadStream: files.createReadStream, lstat, sendError };
}

/** A `createReadStream` whose files are closed when `res` ends, however it ends, and `closeAll` to close them sooner. */
function filesClosedWith(res: http.ServerResponse) {
  const streams = new Set<fs.ReadStream>();
  const closeAll = () => streams.forEach((stream) => stream.destroy());
  // A client may have gone while the tree and the page were looked up.
  let ended = res.destroyed;
  res.once('close', () => {
    ended = true;
    closeAll();
  });
  const createReadStream = (file: string, options?: { start?: number; end?: number }) => {
    const stream = fs.createReadStream(file, options);
    // An unreadable file (EMFILE, EACCES) ends its answer instead of throwing from the stream.
    stream.on('error', () => res.destroy());
    if (ended) stream.destroy();
    else streams.add(stream);
    return stream;
  };
  return { createReadStream, closeAll };
}

/**
 * Takes `If-None-Match` from the request and decides it where serve-handler writes a found file's
 * head, on that head's `ETag`: a 304 with the headers the 200 would carry (RFC 9110). A HEAD answer
 * ends at its head. Either way the file is closed unread (`closeAll`) and the answer ended, so what
 * serve-handler pipes next gives nothing.
 */
function decideHeads(req: http.IncomingMessage, res: http.ServerResponse, closeAll: () => void): void {
  const ifNoneMatch = req.headers['if-none-match'];
  delete req.headers['if-none-match'];
  const writeHead = res.writeHead.bind(res) as (status: number, headers?: http.OutgoingHttpHeaders) => http.ServerResponse;
  const head = (status: number, headers: http.OutgoingHttpHeaders = {}) => {
    const found = status >= 200 && status < 300;
    const notModified = found && noneMatchHits(ifNoneMatch, String(headers.ETag ?? ''));
    if (!notModified && !(found && req.method === 'HEAD')) return writeHead(status, headers);
    writeHead(notModified ? 304 : status, notModified ? keptBy304(headers) : headers);
    closeAll();
    return res.end();
  };
  res.writeHead = head as typeof res.writeHead;
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
    res.setHeader('Access-Control-Allow-Origin', '*');
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
 * backslash or NUL (also percent-encoded, once or twice), bad encoding, or an overlong path.
 * serve-handler checks containment too; this answers such paths with the plain JSON 404.
 */
export function safePath(url: string): boolean {
  if (url.length > 2048) return false;
  let pathname = url.split('?')[0]!;
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

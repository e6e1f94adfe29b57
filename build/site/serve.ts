// The local server: `serve-handler` (the request handler of the `serve` package) over the output
// folder, with the rules a static host is given in its config: JSON for API paths, with or
// without the trailing slash, CORS, a JSON 404, no listings, nothing outside the folder.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import handler from 'serve-handler';
import { NOT_FOUND_BODY, serveConfigFile } from '../paths.ts';
import { pageFor } from './paging.ts';

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
  sendText(res, status, JSON.stringify(body));
}

function sendText(res: http.ServerResponse, status: number, text: string) {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** A list asked for with `offset` or `limit`: the page (true when answered); anything else is left to the static rules. */
async function answerPage(publicDir: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean> {
  const read = (rel: string) => fs.promises.readFile(path.join(publicDir, rel), 'utf8').catch(() => undefined);
  const body = await pageFor(new URL(req.url ?? '/', 'http://localhost'), read);
  if (body !== undefined) sendText(res, 200, body);
  return body !== undefined;
}

export function createServer(publicDir: string): http.Server {
  const config = handlerConfig();
  const methods = {
    sendError: (
      _abs: string,
      res: http.ServerResponse,
      _json: boolean,
      _cur: string,
      _h: unknown,
      _c: unknown,
      spec: { statusCode: number },
    ) => {
      if (spec.statusCode === 404 || spec.statusCode === 400) return sendJson(res, 404, NOT_FOUND_BODY);
      return sendJson(res, spec.statusCode, { detail: 'Server error.' });
    },
  };
  return http.createServer((req, res) => {
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
          .then((answered) => (answered ? undefined : handler(req, res, { ...config, public: tree }, methods as never)))
          .catch(() => {
            if (!res.headersSent) sendJson(res, 500, { detail: 'Server error.' });
            else res.destroy();
          }),
      () => sendJson(res, 404, NOT_FOUND_BODY), // nothing built yet
    );
  });
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

/** Starts the server on `port` (0 picks a free one) on `host`; resolves with its address. */
export async function listen(server: http.Server, port: number, host = '127.0.0.1'): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: actual } = server.address() as AddressInfo;
  return `http://${host === '0.0.0.0' ? 'localhost' : host}:${actual}`;
}

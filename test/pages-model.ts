// A model of GitHub Pages serving a site deployed from an artifact (actions/upload-pages-artifact,
// actions/deploy-pages), for tests on loopback: GitHub has no emulator of it. It follows the rules
// GitHub documents or its answers show, and nothing a site could configure, since Pages has no such
// setting:
//
// - The site is served under its base path: `/<repository>/` for a project site.
// - The query string is never read: every query gets the same file.
// - A path naming a file answers the file, with the Content-Type its extension has in mime-db (GitHub
//   says its types are generated from mime-db); an extension mime-db does not know is a download.
// - A path ending in `/` answers the folder's `index.html`. That is a folder's only index: an
//   `index.json` beside it is not served for the folder.
// - A path naming a folder without the slash is redirected, 301, to the path with it; one naming
//   neither a file nor a folder but `<path>.html` answers that file.
// - Anything else is a 404 whose body is the site's `404.html`, as `text/html`.
// - Every answer carries `Access-Control-Allow-Origin: *`; no other header can be set.
// - Hidden files are not deployed (upload-pages-artifact leaves them out of the artifact).
// - Only GET and HEAD are served.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { listen } from '../build/site/serve.ts';

/** The types of the extensions a build writes, as mime-db gives them and Pages sends them. */
const TYPES: Record<string, string> = {
  '.json': 'application/json; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ogg': 'audio/ogg',
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};
/** What Pages sends for an extension mime-db does not know (`.ndjson` is one). */
export const UNKNOWN_TYPE = 'application/octet-stream';

export const typeOf = (file: string) => TYPES[path.extname(file)] ?? UNKNOWN_TYPE;

/** What the model answers a path with; a 404 without a file is GitHub's own page. */
type Answer = { status: 200 | 404; file: string | undefined } | { status: 301; location: string };

/** The site's answer to `pathname` (decoded, below the base path, starting with '/'), for the folder `root`. */
function answer(root: string, pathname: string): Answer {
  const segments = pathname.split('/').slice(1);
  const page404 = path.join(root, '404.html');
  const missing: Answer = { status: 404, file: isFile(page404) ? page404 : undefined };
  if (segments.some((s) => s.startsWith('.'))) return missing;
  const at = path.join(root, ...segments);
  const index = path.join(at, 'index.html');
  if (pathname.endsWith('/')) return isFile(index) ? { status: 200, file: index } : missing;
  if (isFile(at)) return { status: 200, file: at };
  if (isFolder(at)) return { status: 301, location: `${pathname}/` };
  if (isFile(`${at}.html`)) return { status: 200, file: `${at}.html` };
  return missing;
}

const isFile = (file: string) => fs.statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
const isFolder = (dir: string) => fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false;

/** The path below `basePath`, decoded; undefined for one outside it, or that does not decode. */
function below(basePath: string, url: string | undefined): string | undefined {
  const { pathname } = new URL(url ?? '/', 'http://pages');
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded === basePath) return '/';
  return decoded.startsWith(`${basePath}/`) ? decoded.slice(basePath.length) : undefined;
}

/** Serves `root` as Pages would at `http://127.0.0.1:<port><basePath>/` (basePath: '' or '/name'). */
export async function pagesModel(root: string, basePath: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405).end();
    const pathname = below(basePath, req.url);
    const found: Answer = pathname === undefined ? { status: 404, file: undefined } : answer(root, pathname);
    if (found.status === 301) {
      const location = `http://${req.headers.host}${basePath}${found.location}`;
      return void res.writeHead(301, { Location: location, 'Content-Type': TYPES['.html'] }).end('<html>301 Moved Permanently</html>');
    }
    const body = found.file ? fs.readFileSync(found.file) : Buffer.from('<html>404 File not found</html>');
    res.writeHead(found.status, { 'Content-Type': found.file ? typeOf(found.file) : TYPES['.html']! });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  const url = await listen(server, 0, '127.0.0.1');
  return { url: `${url}${basePath}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

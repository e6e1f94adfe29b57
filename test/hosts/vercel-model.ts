// Vercel has no local emulator that runs offline. This serves a folder by the route table that
// Vercel's own @vercel/routing-utils makes from vercel.json, read by the documented phases of
// that table: routes up to `handle: filesystem` (headers that `continue`, redirects), then the
// files, then rewrites whose `check` sends them back to the files, then the 404 page. It is a
// model of Vercel, good for catching a pattern that does not match; it is not Vercel.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

export interface VercelRoute {
  src?: string;
  dest?: string;
  headers?: Record<string, string>;
  status?: number;
  continue?: boolean;
  check?: boolean;
  handle?: string;
}

const TYPES: Record<string, string> = {
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ogg': 'audio/ogg',
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

export function vercelModel(dist: string, routes: VercelRoute[]): http.Server {
  /** The file of the output for a request path: a folder's own is its index.html. */
  const fileFor = (pathname: string): string | undefined => {
    const file = path.join(dist, decodeURIComponent(pathname), pathname.endsWith('/') ? 'index.html' : '');
    if (!file.startsWith(dist + path.sep)) return undefined;
    return fs.statSync(file, { throwIfNoEntry: false })?.isFile() ? file : undefined;
  };
  const filesystem = routes.findIndex((r) => r.handle === 'filesystem');
  const before = routes.slice(0, filesystem);
  const after = routes.slice(filesystem + 1).filter((r) => !r.handle);

  return http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://model');
    const headers: Record<string, string> = {};
    const send = (status: number, file?: string) => {
      const body = file ? fs.readFileSync(file) : Buffer.alloc(0);
      res.writeHead(status, {
        'Content-Type': TYPES[path.extname(file ?? '')] ?? 'application/octet-stream',
        'Content-Length': body.length,
        ...headers,
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    };

    let pathname = url.pathname;
    for (const route of before) {
      const m = new RegExp(route.src!).exec(pathname);
      if (!m) continue;
      const { Location, ...rest } = route.headers ?? {};
      Object.assign(headers, rest);
      if (route.status && Location) {
        res.writeHead(route.status, { ...headers, Location: substitute(Location, m) + url.search });
        return res.end();
      }
      if (route.dest) pathname = substitute(route.dest, m);
      if (!route.continue) break;
    }
    const file = fileFor(pathname);
    if (file) return send(200, file);
    for (const route of after) {
      const m = new RegExp(route.src!).exec(pathname);
      if (!m) continue;
      pathname = substitute(route.dest!, m);
      const target = fileFor(pathname);
      if (target) return send(200, target);
      if (!route.check) break;
    }
    send(404, fileFor('/404.html'));
  });
}

const substitute = (template: string, m: RegExpExecArray) => template.replace(/\$(\d+)/g, (_, n: string) => m[Number(n)] ?? '');

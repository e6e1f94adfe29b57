// `npm run dev [-- --data DIR --port N --host H]`: the explorer through vite's dev server, beside
// the API built from the data into a temp folder. A change under the data folder rebuilds the API;
// problems are printed here and shown on the page until a save fixes them.
import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createServer as createViteServer, type Plugin, type ViteDevServer } from 'vite';
import { build } from '../pipeline/build.ts';
import { listSources } from '../pipeline/discover.ts';
import { UsageError } from '../config.ts';
import { OutputFailed } from '../output/failure.ts';
import { defaultDataDir, projectRoot } from '../paths.ts';
import { BuildFailed, formatProblems } from '../report/problems.ts';
import { createServer } from '../site/serve.ts';
import { editorSchemasFor } from '../schemas/editor-schemas.ts';
import { BUILD_EVENT, STATUS_PATH, type BuildStatus } from '../site/dev-status.ts';

/** Saves closer together than this make one rebuild. */
const SETTLE_MS = 25;

export interface DevOptions {
  dataDir?: string;
  port?: number;
  host?: string;
  /** Print build results (default true). */
  log?: boolean;
}

export interface DevServer {
  url: string;
  vite: ViteDevServer;
  status(): BuildStatus;
  close(): Promise<void>;
}

const API_PATHS = /^\/(api\/|sprites\/|schema\/|404\.json$)/;

function sendJson(res: http.ServerResponse, status: number, body: unknown) {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(JSON.stringify(body));
}

/** Where a dev server reads the data and writes the API, and whether it prints build results. */
interface BuildPlan {
  dataDir: string;
  outDir: string;
  log: boolean;
}

export async function startDev(options: DevOptions = {}): Promise<DevServer> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crs-dev-'));
  const plan: BuildPlan = {
    dataDir: path.resolve(options.dataDir ?? defaultDataDir),
    outDir: path.join(tmp, 'dist'),
    log: options.log ?? true,
  };
  const serveApi = apiHandler(plan.outDir);

  let status: BuildStatus = { ok: false, version: 0, ms: 0, records: 0, text: 'building…', problems: [] };
  let vite: ViteDevServer | undefined;
  let baseUrl = '';
  let firstBuild!: () => void;
  const built = new Promise<void>((resolve) => (firstBuild = resolve));

  const builds = coalesced(async () => {
    const before = listing(plan.dataDir);
    status = await buildApi(plan, baseUrl, status.version + 1);
    vite?.ws.send({ type: 'custom', event: BUILD_EVENT, data: status });
    // The watcher can miss a save: one made just after a file was replaced, while it watches the
    // new file anew. The folder, listed again, shows it, and the build runs again.
    if (listing(plan.dataDir) !== before) settle.call();
  });
  const settle = debounced(() => void builds.run(), SETTLE_MS);
  const onChange = (file: string) => {
    if (file.startsWith(plan.dataDir + path.sep)) settle.call();
  };
  const plugin = devApiPlugin(plan.dataDir, () => status, built, serveApi, onChange);

  // Records link by absolute url, and the port is known only once vite listens: the first build waits for it.
  vite = await startVite(options, plan.log, plugin, tmp);
  const url = serverUrl(vite, options.host);
  baseUrl = url;
  await builds.run();
  firstBuild();

  return {
    url,
    vite,
    status: () => status,
    close: async () => {
      settle.cancel();
      await builds.running();
      await vite!.close();
    },
  };
}

/** The data folder's entries with their sizes and times, to compare: empty when it cannot be listed. */
function listing(dataDir: string): string {
  try {
    return JSON.stringify(listSources(dataDir));
  } catch {
    return '';
  }
}

/**
 * The local server's own request handling (CORS, JSON 404, rewrites), over the temp build. It
 * never listens: the dev server hands it the API's requests.
 */
function apiHandler(outDir: string) {
  const api = createServer(outDir);
  return (req: http.IncomingMessage, res: http.ServerResponse) => api.emit('request', req, res);
}

/** One build of the API, as the status the page shows. A failed build leaves the last good one in place. */
async function buildApi({ dataDir, outDir, log }: BuildPlan, baseUrl: string, version: number): Promise<BuildStatus> {
  const started = performance.now();
  try {
    const result = await build({ dataDir, outDir, baseUrl, editorSchemas: editorSchemasFor(dataDir) });
    const records = Object.values(result.records).reduce((a, b) => a + b, 0);
    const status = { ok: true, version, ms: performance.now() - started, records, text: '', problems: [] };
    if (log) console.log(`${time()} built ${records} records in ${Math.round(status.ms)} ms`);
    return status;
  } catch (err) {
    const problems = err instanceof BuildFailed ? err.problems : [];
    const text = failureText(err);
    const status = { ok: false, version, ms: performance.now() - started, records: 0, text, problems };
    if (log) console.error(`${time()} the build failed; the API keeps the last good build\n${text}`);
    return status;
  }
}

/** The problems in the data, a usage error's or a refused write's message, or the stack of anything unexpected. */
function failureText(err: unknown): string {
  if (err instanceof BuildFailed) return formatProblems(err.problems);
  if (err instanceof UsageError || err instanceof OutputFailed) return err.message;
  return `internal error: ${(err as Error).stack ?? err}`;
}

/** Runs `task` now, or once more after the run in flight, however many calls came meanwhile. */
function coalesced(task: () => Promise<void>): { run: () => Promise<void>; running: () => Promise<void> | undefined } {
  let running: Promise<void> | undefined;
  let again = false;
  const run = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await task();
      } while (again);
      running = undefined;
    })();
    return running;
  };
  return { run, running: () => running };
}

/** Calls `fn` once `ms` have passed without another call. */
function debounced(fn: () => void, ms: number): { call: () => void; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  return {
    call: () => {
      clearTimeout(timer);
      timer = setTimeout(fn, ms);
    },
    cancel: () => clearTimeout(timer),
  };
}

/**
 * Answers the status path and hands the API's requests to `serveApi` once the first build is
 * done; every other request is vite's. Reports each change the watcher sees to `onChange`.
 */
function devApiPlugin(
  dataDir: string,
  status: () => BuildStatus,
  built: Promise<void>,
  serveApi: (req: http.IncomingMessage, res: http.ServerResponse) => unknown,
  onChange: (file: string) => void,
): Plugin {
  return {
    name: 'creature-api',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const pathname = (req.url ?? '/').split('?')[0]!;
        if (pathname === STATUS_PATH) return sendJson(res, 200, status());
        if (!API_PATHS.test(pathname)) return next();
        built.then(() => serveApi(req, res));
      });
      server.watcher.add(dataDir);
      for (const event of ['add', 'change', 'unlink'] as const) server.watcher.on(event, onChange);
    },
  };
}

/** Starts vite listening with the API plugin; the temp build is removed when its http server closes. */
async function startVite(options: DevOptions, log: boolean, plugin: Plugin, tmp: string): Promise<ViteDevServer> {
  const vite = await createViteServer({
    configFile: path.join(projectRoot, 'vite.config.ts'),
    logLevel: log ? 'info' : 'warn',
    server: { port: options.port ?? 5173, strictPort: options.port !== undefined, host: options.host ?? 'localhost' },
    plugins: [plugin],
  });
  // Vite closes itself on SIGTERM and exits; the temp build goes with its http server.
  vite.httpServer!.once('close', () => fs.rmSync(tmp, { recursive: true, force: true }));
  await vite.listen();
  return vite;
}

/** The url a browser on this machine opens: a wildcard address is reached as localhost. */
function serverUrl(vite: ViteDevServer, requestedHost: string | undefined): string {
  const address = vite.httpServer!.address();
  if (!address || typeof address === 'string') throw new Error('the dev server has no port');
  const host = requestedHost && requestedHost !== '0.0.0.0' && requestedHost !== '::' ? requestedHost : 'localhost';
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

function time(): string {
  return new Date().toTimeString().slice(0, 8);
}

const HELP = `Usage: npm run dev -- [options]

Serves the explorer and the API built from the data, rebuilding the API when a file changes.

Options:
  --data DIR    source records (default: data/)
  --port N      port (default 5173; 0 picks a free one)
  --host H      address to listen on (default localhost)
  -h, --help    show this help`;

export async function main(argv: string[]): Promise<void> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: { data: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }).values;
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${HELP}`);
    process.exit(2);
  }
  if (args.help) return console.log(HELP);
  const port = args.port === undefined ? undefined : Number(args.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    console.error(`--port must be a port number, got "${args.port}"`);
    process.exit(2);
  }
  const dev = await startDev({ dataDir: args.data, port, host: args.host });
  const data = path.resolve(args.data ?? defaultDataDir);
  const shown = path.relative(process.cwd(), data);
  console.log(
    `explorer at ${dev.url}/  ·  API at ${dev.url}/api/v2/  ·  watching ${shown && !shown.startsWith('..') ? shown : data}/ (Ctrl-C to stop)`,
  );
  const stop = async () => {
    await dev.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main(process.argv.slice(2));

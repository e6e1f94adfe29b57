// `npm run dev [-- --data DIR --port N --host H]`: the explorer through vite's dev server, beside
// the API built from the data into a temp folder. A change under the data folder rebuilds the API;
// problems are printed here and shown on the page until a save fixes them.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createServer as createViteServer, type Plugin, type ViteDevServer } from 'vite';
import { build } from '../pipeline/build.ts';
import { listSources, type Listing } from '../pipeline/discover.ts';
import { worldText } from '../pipeline/world.ts';
import { fillWorld } from '../site/explorer.ts';
import { escaped, portNumber, shown, UsageError } from '../config.ts';
import { defaultDataDir, NOT_FOUND_BODY, projectRoot } from '../paths.ts';
import { BuildFailed, formatProblems } from '../report/problems.ts';
import { NOSNIFF } from '../site/paging.ts';
import { listen, requestHandler } from '../site/serve.ts';
import { openTree } from '../output/trees.ts';
import { editorSchemasFor } from '../schemas/editor-schemas.ts';
import { exitCodeOf } from './build.ts';
import { commandOptions, onStop, stopping, untilStopped } from './common.ts';
import { BUILD_EVENT, STATUS_PATH, type BuildStatus } from '../site/dev-status.ts';

/**
 * How long after a build the data folder is listed again, for a save the watcher missed: long
 * enough that the answer a browser waits for goes out before the listing holds the process.
 */
const RECHECK_MS = 50;
/**
 * How long a failed build waits for the watchers to hear more before its failure is shown: an editor
 * writes a save in steps (a probe file, the old file moved aside, the new one written), each of
 * which alone is broken data, and on a busy machine the steps can be milliseconds apart.
 */
const SAVE_STEPS_MS = 100;
/**
 * How long failed builds are passed over while saves keep coming before the failure is shown:
 * requests wait for the build after a half-written save, but saves that keep breaking the data
 * (a script writing, an editor saving on each key) would hold them for as long as they come.
 */
const FAILING_MS = 2_000;
/** Without `--port`, the first free one of these, as vite picks. */
const DEFAULT_PORTS = Array.from({ length: 10 }, (_, i) => 5173 + i);

interface DevOptions {
  dataDir?: string;
  port?: number;
  host?: string;
}

const API_PATHS = /^\/(api\/|sprites\/|media\/|schema\/|404\.json$)/;
/**
 * vite's editor launcher: it would start the user's editor on any file a page of any origin names.
 * It is taken out of vite's middlewares, and its path, matched as they match it (any case, any
 * path under it), is the API's 404.
 */
const EDITOR_LAUNCHER = '/__open-in-editor';
const EDITOR_PATHS = /^\/__open-in-editor(?:[/.]|$)/i;

function sendJson(res: http.ServerResponse, status: number, body: unknown) {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(JSON.stringify(body));
}

/** What the loop shows: the latest build's status, and the tree of the last good build, which the API answers from. */
interface Shown {
  status: BuildStatus;
  tree: string | undefined;
}

/** Thrown from a build's progress callback to stop it: the loop is closing. */
class Stopped extends Error {}

/**
 * The dev loop: a temp folder it builds the API into, an http server that answers the status and
 * the API itself and hands every other request to vite (in middleware mode, so that this loop, not
 * vite, owns the port and the process's signals), and the rebuilds the watcher asks for.
 */
class DevLoop {
  url = '';
  private vite: ViteDevServer | undefined;
  private readonly tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crs-dev-'));
  /** Where the loop reads the data and writes the API. */
  private readonly dataDir: string;
  private readonly outDir = path.join(this.tmp, 'dist');
  private readonly server = http.createServer();
  private shown: Shown = {
    status: { ok: false, version: 0, served: 0, ms: 0, records: 0, text: 'building…', problems: [] },
    tree: undefined,
  };
  private stopping = false;
  private starting: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  /** Lets the API's waiting requests through. */
  private release: () => void = () => {};
  /** What the API's requests wait for, while they are held: from the start until a build is shown, and during each build. */
  private pending: Promise<void> | undefined;
  private readonly apis = new Map<string, http.RequestListener>();
  private readonly builds = coalesced(async () => {
    await this.rebuild();
    if (this.shown.status.ok && !this.filled && !this.builds.pending() && !this.stopping) await this.fill();
  });
  /** Whether a fill ran to its end, or failed (`fill`): it is not tried again. */
  private filled = false;
  /** When the builds began to fail, since the last build shown (`FAILING_MS`). */
  private failingSince: number | undefined;
  private recheck: NodeJS.Timeout | undefined;
  private watcher: { close: () => void } | undefined;
  /** How many changes the watchers have reported. */
  private heard = 0;
  /** Ends a failed build's wait for more (`quiet`). */
  private wake: (() => void) | undefined;

  constructor(private readonly options: DevOptions) {
    this.dataDir = path.resolve(options.dataDir ?? defaultDataDir);
    this.hold();
  }

  /** Told when the server fails once listening. */
  onServerError: (err: Error) => void = () => {};

  /** Listens, then builds once; records link by absolute url, and the port is known only once the server listens. */
  start(): Promise<void> {
    this.starting ??= (async () => {
      const vite = await createViteServer({
        configFile: path.join(projectRoot, 'vite.config.ts'),
        logLevel: 'info',
        // The host is vite's too: it answers requests that name it (server.allowedHosts). vite's CORS
        // is off: its middleware would answer an API's preflight from another origin before the
        // API's own rules do (`*`, as `npm start` and PokeAPI), and the explorer's page needs none.
        server: { middlewareMode: true, ws: { server: this.server }, host: this.options.host, cors: false },
        plugins: [this.plugin()],
      });
      this.vite = vite;
      vite.middlewares.stack = vite.middlewares.stack.filter((layer) => layer.route !== EDITOR_LAUNCHER);
      // Every answer, vite's own included, has its type taken as given, never guessed from its bytes.
      this.server.on('request', (req, res) => {
        for (const [name, value] of Object.entries(NOSNIFF)) res.setHeader(name, value);
        vite.middlewares(req, res);
      });
      if (this.stopping) return;
      this.url = await listenOn(this.server, this.options.port, this.options.host ?? 'localhost');
      this.server.on('error', (err) => this.onServerError(err));
      if (this.stopping) return;
      // A save is built at once; the saves that come during a build make one more build after it.
      this.watcher = watchFolders(this.dataDir, () => {
        this.heard++;
        this.wake?.();
        void this.builds.run();
      });
      // Started once the first build is shown (or the loop stops), not once the fill after it ends;
      // a failure of the loop itself before then fails the start.
      await Promise.race([this.pending, this.builds.run()]);
    })();
    return this.starting;
  }

  /** Stops the loop (a build in flight stops at its next step), closes the server and removes the temp folder. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.stopping = true;
      clearTimeout(this.recheck);
      this.wake?.();
      this.watcher?.close();
      this.release();
      await this.starting?.catch(() => {});
      await this.builds.running();
      await this.vite?.close();
      this.server.closeAllConnections();
      await new Promise((resolve) => this.server.close(resolve));
      this.removeTemp();
    })();
    return this.closing;
  }

  /** Removes the temp folder; also the last thing done when the process exits by any other way. */
  removeTemp = () => fs.rmSync(this.tmp, { recursive: true, force: true, maxRetries: 5 });

  /** One build; status and served tree change together, in one step, once it is done. */
  private async rebuild(): Promise<void> {
    if (this.stopping) return;
    clearTimeout(this.recheck); // this build lists the folder itself
    // The API answers from the newest build: a request that comes during one waits for it, and is
    // answered from it.
    this.hold();
    const heard = this.heard;
    let built = ''; // what the build listed; nothing if it stopped before it could list the folder
    const shown = await this.buildApi((l) => (built = JSON.stringify(l)));
    if (!shown.status.ok && this.heard === heard && !this.stopping) await this.quiet(SAVE_STEPS_MS);
    if (this.stopping) return this.release();
    if (!shown.status.ok) {
      // A build that failed while the watchers heard more, or soon after, saw a save half written:
      // it is passed over, and the build they asked for, which the requests go on waiting for, says
      // whether the data is broken. So is one whose folder changed since it listed it, though the
      // watchers heard nothing (see `recheck` below): it asks for that build itself. Builds failing
      // for longer than FAILING_MS are shown, and the requests answered from the last good build.
      this.failingSince ??= performance.now();
      const passOver = performance.now() - this.failingSince < FAILING_MS;
      if (passOver && this.heard !== heard) return;
      if (passOver && built !== '' && listing(this.dataDir) !== built) return void this.builds.run();
      const api = shown.status.served ? 'the API keeps the last good build' : 'the API has no build yet';
      console.error(`${time()} the build failed; ${api}\n${shown.status.text}`);
    }
    // Each run of builds passed over has its own FAILING_MS: a fix saved in steps after a long while
    // broken is passed over too, until its last step.
    this.failingSince = undefined;
    this.shown = { status: shown.status, tree: shown.tree ?? this.shown.tree };
    this.release();
    this.vite?.ws.send({ type: 'custom', event: BUILD_EVENT, data: this.shown.status });
    // The watchers can miss a save: one written through a hard link from outside the data folder,
    // or lost when the kernel's queue of events overflows. The folder, listed again once this
    // build's answer is out, shows one made before then, and the build runs again; one made later
    // waits for the next save heard. A folder that could not be listed is not listed again: the
    // data folder's parent hears it come back.
    if (built !== '')
      this.recheck = setTimeout(() => {
        if (!this.stopping && listing(this.dataDir) !== built) void this.builds.run();
      }, RECHECK_MS);
  }

  /**
   * Fills the second tree once the first good build is shown, while the loop is idle, so that the
   * first save costs what it changes, as every later one does, rather than linking every file of
   * the tree (trees.ts, `Tree.fill`). A save heard meanwhile stops it and is built at once, the
   * build finishing the tree. Each build after it writes the tree the live one was built beside,
   * and leaves it so (but one that fails while publishing: the next goes through every file); a
   * fill stopped is tried again after the next good build.
   */
  private async fill(): Promise<void> {
    try {
      const tree = await openTree(this.outDir);
      this.filled = await tree.fill(() => this.stopping || this.builds.pending());
    } catch (err) {
      // The builds fill the tree as they go: the loop works as it did, only the first save is slower.
      this.filled = true;
      console.error(`${time()} could not fill the second tree (${(err as Error).message}); the first save builds it`);
    }
  }

  /** Waits up to `ms`, or until the watchers hear something (or the loop stops). */
  private quiet(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  /** Holds the API's requests from now until `release` (held already, it changes nothing). */
  private hold(): void {
    if (this.pending) return;
    let resolve!: () => void;
    const pending = (this.pending = new Promise<void>((r) => (resolve = r)));
    this.release = () => {
      if (this.pending === pending) this.pending = undefined;
      resolve();
    };
  }

  /**
   * One build of the API: the status the page shows and, when it succeeded, the tree it made (the
   * output link's target, read before the next build can move it). A failed build leaves the last
   * good one in place; `rebuild` says why it failed, if its status is shown.
   */
  private async buildApi(onListed: (listing: Listing) => void): Promise<{ status: BuildStatus; tree?: string }> {
    const { dataDir, outDir } = this;
    const version = this.shown.status.version + 1;
    const served = this.shown.status.served;
    const started = performance.now();
    const onProgress = () => {
      if (this.stopping) throw new Stopped('the dev server is stopping');
    };
    try {
      const result = await build({ dataDir, outDir, baseUrl: this.url, onProgress, onListed, editorSchemas: editorSchemasFor(dataDir) });
      const records = Object.values(result.records).reduce((a, b) => a + b, 0);
      const status = { ok: true, version, served: version, ms: performance.now() - started, records, text: '', problems: [] };
      console.log(`${time()} built ${records} records in ${Math.round(status.ms)} ms`);
      return { status, tree: fs.realpathSync(outDir) };
    } catch (err) {
      const problems = err instanceof BuildFailed ? err.problems : [];
      const text = failureText(err);
      const status = { ok: false, version, served, ms: performance.now() - started, records: 0, text, problems };
      return { status };
    }
  }

  /** The API's answer from the tree shown now: the local server's own rules (CORS, JSON 404, rewrites). */
  private serveApi(req: http.IncomingMessage, res: http.ServerResponse): void {
    const tree = this.shown.tree;
    if (!tree) return sendJson(res, 404, NOT_FOUND_BODY); // no good build yet
    let api = this.apis.get(tree);
    if (!api) this.apis.set(tree, (api = requestHandler(tree)));
    api(req, res);
  }

  /**
   * Answers the status path at once and the API's requests once no build is running (and the first
   * is shown); every other request is vite's.
   */
  private plugin(): Plugin {
    return {
      name: 'creature-api',
      // The page shows the world's title and description, as a build writes them into it.
      transformIndexHtml: (html) => fillWorld(html, worldText(this.dataDir)),
      configureServer: (server) => {
        server.middlewares.use((req, res, next) => {
          const pathname = (req.url ?? '/').split('?')[0]!;
          if (EDITOR_PATHS.test(new URL(req.url ?? '/', 'http://localhost').pathname)) return sendJson(res, 404, NOT_FOUND_BODY);
          if (pathname === STATUS_PATH) return sendJson(res, 200, this.shown.status);
          if (!API_PATHS.test(pathname)) return next();
          if (this.pending) void this.pending.then(() => this.serveApi(req, res));
          else this.serveApi(req, res);
        });
      },
    };
  }
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
 * Calls `changed` when an entry of the data folder, of a kind's folder in it or of a record's own
 * folder (its images and sounds) changes, as the kernel reports it to one `fs.watch` per folder:
 * nothing is listed or stated to find out, whatever the folders hold. The watched folders follow
 * what is there, by inode: a folder added is watched once its parent reports it, one removed or
 * replaced is let go (the data folder's own parent is watched for the data folder alone). Hidden
 * entries are passed over, as the build passes them over. A change no watcher reports (one written
 * through a hard link from outside) is found by the listing that follows a build (`rebuild`).
 */
export function watchFolders(dataDir: string, changed: () => void): { close: () => void } {
  const watched = new Map<string, { watcher: fs.FSWatcher; ino: number }>();
  const parent = path.dirname(dataDir);
  const watch = (dir: string, ino: number) => {
    try {
      const watcher = fs.watch(dir, (_event, name) => {
        // A name may be missing on some systems: then the change may be anything.
        if (name && (dir === parent ? name !== path.basename(dataDir) : name.startsWith('.'))) return;
        // In the data folder or its parent, folders may have come or gone; in a kind's folder, the
        // record's own folder named.
        if (dir === parent || dir === dataDir) follow();
        else if (name && path.dirname(dir) === dataDir) followRecord(path.join(dir, name));
        changed();
      });
      watcher.on('error', () => {
        // Gone, most often: its parent's event says so too, and a folder there again is watched anew.
        watcher.close();
        watched.delete(dir);
      });
      watched.set(dir, { watcher, ino });
    } catch (err) {
      // Gone already, or a link to nothing: the build reports what it is. Anything else (the
      // system's limit of watchers reached) leaves saves there unheard, which the user is told.
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        console.error(`cannot watch ${dir} (${code ?? err}): saves there are not built until another is`);
    }
  };
  const follow = () => {
    let now: Map<string, number>;
    try {
      now = foldersOf(dataDir);
    } catch {
      return; // changing as it is listed: the event that follows lists it again
    }
    for (const [dir, { watcher, ino }] of watched)
      if (dir !== parent && now.get(dir) !== ino) {
        watcher.close();
        watched.delete(dir);
      }
    for (const [dir, ino] of now) if (!watched.has(dir)) watch(dir, ino);
  };
  // A record's own folder, come or gone: that entry alone is looked at, not the whole kind.
  const followRecord = (dir: string) => {
    const ino = folderIno(dir);
    const was = watched.get(dir);
    if (was && was.ino !== ino) {
      was.watcher.close();
      watched.delete(dir);
    }
    if (ino !== undefined && !watched.has(dir)) watch(dir, ino);
  };
  watch(parent, 0);
  follow();
  return { close: () => watched.forEach(({ watcher }) => watcher.close()) };
}

/**
 * The data folder, each folder in it (a kind's) and each folder in those (a record's own, its
 * images and sounds), but hidden ones, by their inodes; none when it is gone.
 */
function foldersOf(dataDir: string): Map<string, number> {
  const folders = new Map<string, number>();
  const top = fs.statSync(dataDir, { throwIfNoEntry: false });
  if (!top?.isDirectory()) return folders;
  folders.set(dataDir, top.ino);
  for (const kind of subfolders(dataDir)) {
    folders.set(kind.dir, kind.ino);
    for (const record of subfolders(kind.dir)) folders.set(record.dir, record.ino);
  }
  return folders;
}

/** The folders in `dir`, but hidden ones, with their inodes; none when it cannot be listed. */
function subfolders(dir: string): Array<{ dir: string; ino: number }> {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return []; // gone meanwhile, or not a folder after all: the build reports what it is
  }
  const found: Array<{ dir: string; ino: number }> = [];
  for (const entry of entries) {
    // Only folders and links are looked at: a kind's folder may hold thousands of files.
    if (entry.name.startsWith('.') || !(entry.isDirectory() || entry.isSymbolicLink())) continue;
    const ino = folderIno(path.join(dir, entry.name));
    if (ino !== undefined) found.push({ dir: path.join(dir, entry.name), ino });
  }
  return found;
}

/** The inode of the folder at `dir`, or undefined when it is not one (or not there). */
function folderIno(dir: string): number | undefined {
  try {
    const stats = fs.statSync(dir, { throwIfNoEntry: false });
    return stats?.isDirectory() ? stats.ino : undefined;
  } catch {
    return undefined; // a link in a loop, or into a folder not readable: not a folder to watch (the build reports it)
  }
}

/** The problems in the data, a usage error's or a refused write's message, or the stack of anything unexpected. */
function failureText(err: unknown): string {
  if (err instanceof BuildFailed) return formatProblems(err.problems);
  if (exitCodeOf(err) !== undefined || err instanceof Stopped) return (err as Error).message;
  return `internal error: ${(err as Error | undefined)?.stack ?? err}`;
}

/**
 * Runs `task` now, or once more after the run in flight, however many calls came meanwhile;
 * `pending` says whether such a call is waiting.
 */
function coalesced(task: () => Promise<void>): {
  run: () => Promise<void>;
  running: () => Promise<void> | undefined;
  pending: () => boolean;
} {
  let running: Promise<void> | undefined;
  let again = false;
  const run = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await task();
        } while (again);
      } finally {
        running = undefined;
      }
    })();
    return running;
  };
  return { run, running: () => running, pending: () => again };
}

/**
 * Listens on `port` (without one, the first free default port) at `host`, and gives the url a
 * browser on this machine opens; a port in use, one not allowed or an address this machine does not
 * have is a usage error naming it.
 */
async function listenOn(server: http.Server, port: number | undefined, host: string): Promise<string> {
  const ports = port === undefined ? DEFAULT_PORTS : [port];
  for (const [i, candidate] of ports.entries()) {
    try {
      return await listen(server, candidate, host);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' && i < ports.length - 1) continue;
      throw listenError(code, candidate, host, port === undefined ? ports : undefined);
    }
  }
  throw new Error('unreachable');
}

function listenError(code: string | undefined, port: number, host: string, tried: number[] | undefined): UsageError {
  if (code === 'EADDRINUSE')
    return new UsageError(
      tried
        ? `ports ${tried[0]}–${tried.at(-1)} are in use on ${host}; pick a free one with --port`
        : `port ${port} is in use on ${host}; pick another with --port (0 picks a free one)`,
    );
  if (code === 'EACCES')
    return new UsageError(`port ${port} is not allowed on ${host} (below 1024 needs privileges); pick another with --port`);
  return new UsageError(
    `--host ${escaped(host)}: cannot listen there (${code ?? 'unknown error'}); give an address of this machine, e.g. localhost or 0.0.0.0`,
  );
}

function time(): string {
  return new Date().toTimeString().slice(0, 8);
}

const HELP = `Usage: npm run dev -- [options]

Serves the explorer and the API built from the data, rebuilding the API when a file changes.

Options:
  --data DIR    source records (default: data/)
  --port N      port (default 5173, or the next free one; 0 picks any free one)
  --host H      address to listen on (default localhost)
  -h, --help    show this help

Exit codes: 2 wrong usage (a missing data folder, a port in use) or internal error; 130/143
stopped by Ctrl-C/SIGTERM, the temp build removed.`;

/** The options as the loop takes them, or a usage error. */
function devOptions(args: { data?: string; port?: string; host?: string }): DevOptions {
  const port = args.port === undefined ? undefined : portNumber(args.port);
  if (args.port !== undefined && port === undefined) throw new UsageError(`--port must be a port number, got ${shown(args.port)}`);
  if (args.host !== undefined && args.host.trim() === '') throw new UsageError('--host must be an address, got ""');
  // A mistyped folder is wrong usage, as in `npm run build`: there would never be a good build to serve.
  const dataDir = path.resolve(args.data ?? defaultDataDir);
  if (!fs.statSync(dataDir, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`the data folder ${dataDir} does not exist (or is not a folder)`);
  return { dataDir, port, host: args.host };
}

export async function main(argv: string[]): Promise<number> {
  const args = commandOptions(argv, { data: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' } }, HELP);
  if (typeof args === 'number') return args;
  let options;
  try {
    options = devOptions(args);
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
  const loop = new DevLoop(options);
  // Whatever ends the process, the temp build goes with it; Ctrl-C, SIGTERM and a closed terminal
  // first stop the build in flight, so that nothing writes there while it is removed.
  process.once('exit', loop.removeTemp);
  onStop(async () => {
    // Removing a built tree is bound by the disk (seconds on a slow one): say why the wait.
    console.log('stopping: removing the temp build…');
    await loop.close();
  });
  loop.onServerError = (err) => {
    console.error(`the server failed: ${err.message}`);
    void loop.close().then(() => process.exit(2));
  };
  try {
    await loop.start();
  } catch (err) {
    if (stopping()) return await untilStopped();
    await loop.close();
    console.error(err instanceof UsageError ? err.message : `internal error: ${(err as Error).stack ?? err}`);
    return 2;
  }
  if (!stopping()) {
    const shown = path.relative(process.cwd(), options.dataDir!);
    console.log(
      `explorer at ${loop.url}/  ·  API at ${loop.url}/api/v2/  ·  watching ${shown && !shown.startsWith('..') ? shown : options.dataDir}/ (Ctrl-C to stop)`,
    );
  }
  return 0; // the server keeps the process running until a signal stops it
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = await main(process.argv.slice(2));

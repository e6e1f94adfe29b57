// `npm start`: listen, build the shipped world for the address it listens on, then serve it. The
// port is taken first, so that a port in use is said at once and PORT=0 links to the port it got.
import { createHash } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { build } from '../pipeline/build.ts';
import { exitCodeOf, summary } from './build.ts';
import { baseUrlFromEnv, defaults, portFromEnv, shown, UsageError } from '../config.ts';
import { defaultOutDir, editorSchemasDir, projectRoot, serverOutputsDir } from '../paths.ts';
import { BuildFailed, formatProblems } from '../report/problems.ts';
import { listen, requestHandler } from '../site/serve.ts';
import { commandOptions, onStop } from './common.ts';

/** The README's exit code of wrong usage. */
const USAGE = 2;

function exit(message: string, code: number): never {
  console.error(message);
  process.exit(code);
}

/** A setting read from the environment; a bad one is wrong usage, said in one line. */
function setting<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof UsageError) exit(err.message, USAGE);
    throw err;
  }
}

/** Why the server cannot listen on `host`:`port`, in one line naming the setting, or undefined for an error that is no usage error. */
function listenProblem(err: NodeJS.ErrnoException, host: string, port: number): string | undefined {
  switch (err.code) {
    case 'EADDRINUSE':
      return `PORT ${port} is in use on ${host}: stop what listens there or set another PORT`;
    case 'EACCES':
      return `PORT ${port} needs privileges to listen on: set a PORT above 1023`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAFNOSUPPORT':
    case 'EINVAL':
      return `HOST ${shown(host)} cannot be listened on: it names no address of this machine (${err.code}); set HOST to one, e.g. 127.0.0.1, ::1 or 0.0.0.0`;
    default:
      return undefined;
  }
}

/**
 * The folder a server builds into: `dist/` for the default address, else one of its own per
 * address (named readably, with a hash, as two addresses may read alike).
 */
function outDirFor(baseUrl: string): string {
  if (baseUrl === defaults.baseUrl) return defaultOutDir;
  const { host, pathname } = new URL(baseUrl);
  const readable = `${host}${pathname}`
    .replace(/[^A-Za-z0-9.]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
  return path.join(serverOutputsDir, `${readable}-${createHash('sha256').update(baseUrl).digest('hex').slice(0, 8)}`);
}

/** Builds the shipped world for `baseUrl` into `outDir`, printing its summary; a failed build ends the process. */
async function buildFor(baseUrl: string, outDir: string): Promise<void> {
  try {
    console.log(summary(await build({ editorSchemas: editorSchemasDir, baseUrl, outDir }), false, path.relative(projectRoot, outDir)));
  } catch (err) {
    const code = exitCodeOf(err);
    if (code === undefined) throw err;
    exit(err instanceof BuildFailed ? formatProblems(err.problems) : (err as Error).message, code);
  }
}

const HELP = `Usage: npm start [-- --help]

Builds the shipped world (data/) for the address it listens on, then serves it.

Options:
  -h, --help  show this help

Environment:
  PORT       the port to listen on (default 3000; 0 picks a free one)
  HOST       the address to listen on (default 127.0.0.1)
  BASE_URL   the address every url starts with (default http://localhost:$PORT); another than
             the default builds into .dist-serve/<address>/ rather than dist/

Exit codes: 2 wrong usage (a bad PORT, HOST or BASE_URL, a port in use), or the build's own
(npm run build -- --help); 130/143 stopped by Ctrl-C/SIGTERM.`;

export async function main(argv: string[]): Promise<number | undefined> {
  const args = commandOptions(argv, {}, HELP);
  if (typeof args === 'number') return args;
  onStop(); // the build, if one is running, is left as a killed one is: the next finds its tree as it was
  const port = setting(() => portFromEnv());
  const host = process.env.HOST || '127.0.0.1';
  const givenBase = process.env.BASE_URL ? setting(() => baseUrlFromEnv()) : undefined;

  // Requests that come while the first build runs wait for it.
  let answer: http.RequestListener | undefined;
  let ready!: () => void;
  const built = new Promise<void>((resolve) => (ready = resolve));
  const server = http.createServer((req, res) => void built.then(() => answer!(req, res)));
  const url = await listen(server, port, host).catch((err: NodeJS.ErrnoException) => {
    const problem = listenProblem(err, host, port);
    if (problem === undefined) throw err;
    return exit(problem, USAGE);
  });

  const baseUrl = givenBase ?? `http://localhost:${new URL(url).port}`;
  const outDir = outDirFor(baseUrl);
  await buildFor(baseUrl, outDir);
  answer = requestHandler(outDir);
  ready();
  const shown = url.replace('//127.0.0.1:', '//localhost:');
  console.log(`serving ${path.relative(projectRoot, outDir)}/ at ${shown}/api/v2/ (Ctrl-C to stop)`);
  return undefined; // the server keeps the process running until a signal stops it
}

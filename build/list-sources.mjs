// Lists the source files: `<kind>/<file>` for each, with its size and modification time, in the
// order of their paths (`type-x/…` before `type/…`); their names come first (`listNames`), so that
// a build can start reading some before each is looked at. Plain JavaScript, so that it can run on
// a thread of its own at once (`listSourcesOnThread`): a rebuild looks at every source, and meanwhile
// the build's own thread reads what the last build left. The sources parsed late are read on a
// thread of their own too, which parses the ordinary YAML records among them and sends each back
// as it goes (`readAheadOnThread`).
import fs from 'node:fs';
import path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { ANCHOR, hashText, loadYaml, MAX_DEPTH, withoutMark } from './fast-yaml.mjs';

export const SOURCE_EXTENSIONS = ['yaml', 'yml', 'json'];
const SOURCE_NAME = new RegExp(`^[^.].*\\.(${SOURCE_EXTENSIONS.join('|')})$`);

/**
 * The names of the source files (`<kind>/<file>`, in path order), and `others`: the entries that
 * are not read although an author may have meant them to be. In a kind's folder, anything but a
 * source file's name; in the data folder itself, a source file. Hidden entries (`.…`) are passed
 * over. One folder read per kind, and no file looked at.
 */
export function listNames(dataDir) {
  const names = [];
  const others = [];
  // The caller makes sure the data folder is there.
  const kinds = fs.readdirSync(dataDir, { withFileTypes: true });
  // No kind's name holds a '/', so ordering by `kind/` and then by file name orders by path.
  kinds.sort((a, b) => (`${a.name}/` < `${b.name}/` ? -1 : 1));
  for (const kind of kinds) {
    if (kind.name.startsWith('.')) continue;
    if (!(kind.isDirectory() || kind.isSymbolicLink())) {
      if (SOURCE_NAME.test(kind.name)) others.push(kind.name);
      continue;
    }
    let files;
    try {
      files = fs.readdirSync(path.join(dataDir, kind.name)).sort();
    } catch {
      continue; // a link to something that is not a folder
    }
    for (const name of files) {
      if (SOURCE_NAME.test(name)) names.push(`${kind.name}/${name}`);
      else if (!name.startsWith('.')) others.push(`${kind.name}/${name}`);
    }
  }
  return { names, others };
}

/**
 * Listed and looked at synchronously: several times faster than a glob. The names (`listNames`) are
 * given to `onNames` before each is looked at; one that is not a file is among `others`.
 */
export function listSources(dataDir, onNames) {
  const { names, others } = listNames(dataDir);
  onNames?.(names);
  const sources = [];
  // Joined by hand: path.join costs a sixth of the time of the stat itself.
  const root = path.join(dataDir, '/');
  for (const name of names) {
    const stats = fs.statSync(root + name, { throwIfNoEntry: false });
    if (stats?.isFile()) sources.push({ path: name, size: stats.size, mtimeMs: stats.mtimeMs });
    else if (stats) others.push(name);
  }
  return { sources, others };
}

/** This module on a thread of its own, given `data`: the one message the thread sends back. */
function onThread(data, what) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: data, execArgv: [] });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the ${what} thread stopped (exit code ${code})`)));
  });
}

/** `listSources` on a thread of its own; sent back as strings and two arrays, which cost little to pass. */
export async function listSourcesOnThread(dataDir) {
  const { paths, size, mtime, others } = await onThread({ listSources: dataDir }, 'listing');
  const sources = paths === '' ? [] : paths.split('\0').map((p, i) => ({ path: p, size: size[i], mtimeMs: mtime[i] }));
  return { sources, others };
}

/**
 * Files (absolute paths) read on a thread of its own, in order, and each ordinary YAML record parsed
 * there too: for each file its hash and either the record as JSON (`json`) or its text, for the
 * build to parse itself (a document with anchors, one js-yaml refuses, a .json file); nothing for
 * a file that cannot be read, or is over `maxBytes`. The results come in batches on `port`, as
 * `[index, result][]`. The build tells the thread how far it has got itself (`reached[0]`, the
 * index of the next file it needs): the thread passes over the files before that.
 */
export function readAheadOnThread(files, port, reached, maxBytes) {
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { readAhead: files, port, reached, maxBytes },
    transferList: [port],
    execArgv: [],
  });
  worker.unref(); // what it has not sent when the build ends is not needed
  // A thread that fails sends no more: the build reads the rest itself.
  worker.on('error', () => {});
  return worker;
}

/**
 * A value JSON carries as it is (no number JSON cannot write: NaN, ±Infinity, -0), nested no deeper
 * than the build takes (MAX_DEPTH): one walk for both.
 */
function plain(value, at = 1) {
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (value === null || typeof value !== 'object') return true;
  if (at > MAX_DEPTH) return false;
  for (const key in value) if (!plain(value[key], at + 1)) return false;
  return true;
}

function readOne(file, maxBytes) {
  let text;
  try {
    // Listed by name alone (`listNames`): a file too large to take is left for the build to report.
    if (fs.statSync(file).size > maxBytes) return undefined;
    text = withoutMark(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  const hash = hashText(text);
  if (!/\.ya?ml$/.test(file) || text.trim() === '' || ANCHOR.test(text)) return { hash, text };
  try {
    // A document nested too deep is left to the build too: what it says of one depends on how far
    // its own thread's stack lets js-yaml go, and this thread's is larger.
    const value = loadYaml(text);
    if (plain(value)) return { hash, json: JSON.stringify(value) };
  } catch {} // the build parses it again, and says what is wrong
  return { hash, text };
}

if (!isMainThread && workerData?.readAhead !== undefined) {
  const { readAhead: files, port, reached, maxBytes } = workerData;
  let batch = [];
  let bytes = 0;
  for (let i = 0; i < files.length; i++) {
    if (i < Atomics.load(reached, 0)) continue;
    const result = readOne(files[i], maxBytes);
    batch.push([i, result]);
    bytes += result?.json?.length ?? result?.text?.length ?? 0;
    // Small batches, so that the build finds each record soon after it is read.
    if (batch.length === 16 || bytes > 256 * 1024) {
      port.postMessage(batch);
      batch = [];
      bytes = 0;
    }
  }
  port.postMessage(batch);
  port.close();
}

if (!isMainThread && workerData?.listSources !== undefined) {
  const { sources, others } = listSources(workerData.listSources);
  const size = new Float64Array(sources.length);
  const mtime = new Float64Array(sources.length);
  sources.forEach((f, i) => {
    size[i] = f.size;
    mtime[i] = f.mtimeMs;
  });
  const paths = sources.map((f) => f.path).join('\0');
  parentPort.postMessage({ paths, size, mtime, others }, [size.buffer, mtime.buffer]);
}

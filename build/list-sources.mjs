// Lists the source files: `<kind>/<file>` for each, with its size and modification time, in the
// order of their paths (`type-x/…` before `type/…`); their names come first (`listNames`), so that
// a build can start reading some before each is looked at. Plain JavaScript, so that it can run on
// a thread of its own at once (`listSourcesOnThread`): a rebuild looks at every source, and meanwhile
// the build's own thread reads what the last build left, then looks at the rest beside the thread.
import fs from 'node:fs';
import path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

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

/** What looking at a name found (`what`, in `looks`). */
const MISSING = 0;
const FILE = 1;
const OTHER = 2;

/** What is found of each name, by its place: in shared memory, when two threads look. */
function looks(count, share = (bytes) => new ArrayBuffer(bytes)) {
  return { size: new Float64Array(share(8 * count)), mtime: new Float64Array(share(8 * count)), what: new Uint8Array(share(count)) };
}

/** Looks at the names from `from` to `to` (not included). */
function look(root, names, from, to, found) {
  for (let i = from; i < to; i++) {
    const stats = fs.statSync(root + names[i], { throwIfNoEntry: false });
    found.what[i] = !stats ? MISSING : stats.isFile() ? FILE : OTHER;
    if (stats) {
      found.size[i] = stats.size;
      found.mtime[i] = stats.mtimeMs;
    }
  }
}

/** The sources, from the names and what looking at each found; a name that is not a file joins `others`. */
function gather(names, others, found) {
  const sources = [];
  for (let i = 0; i < names.length; i++) {
    if (found.what[i] === FILE) sources.push({ path: names[i], size: found.size[i], mtimeMs: found.mtime[i] });
    else if (found.what[i] === OTHER) others.push(names[i]);
  }
  return { sources, others };
}

// Joined by hand: path.join costs a sixth of the time of the stat itself.
const rootOf = (dataDir) => path.join(dataDir, '/');

/**
 * Listed and looked at synchronously: several times faster than a glob. The names (`listNames`) are
 * given to `onNames` before each is looked at; one that is not a file is among `others`.
 */
export function listSources(dataDir, onNames) {
  const { names, others } = listNames(dataDir);
  onNames?.(names);
  const found = looks(names.length);
  look(rootOf(dataDir), names, 0, names.length, found);
  return gather(names, others, found);
}

/** Names are looked at in runs of this many, each taken by whichever thread comes for it first. */
const RUN = 256;

/** Takes runs of names to look at (`next[0]`, shared, is the first not taken) until none is left. */
function lookShared(root, names, next, found) {
  for (;;) {
    const from = Atomics.add(next, 0, RUN);
    if (from >= names.length) return;
    look(root, names, from, Math.min(from + RUN, names.length), found);
  }
}

/**
 * `listSources` with a thread of its own: the thread lists the names and starts looking at the
 * files at once, while this one does other work; `done()` then has this thread look at the files
 * not yet looked at too, beside the thread, and gives the listing once every one is.
 */
export function listSourcesOnThread(dataDir) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { listSources: dataDir }, execArgv: [] });
  // The thread's two messages: the names, with where what is found goes; then that its last run is done.
  const told = [];
  const replies = [0, 1].map(() => new Promise((resolve, reject) => told.push({ resolve, reject })));
  let got = 0;
  worker.on('message', (message) => told[got++]?.resolve(message));
  const fail = (err) => {
    for (const reply of told.slice(got)) reply.reject(err);
  };
  worker.once('error', fail);
  worker.once('exit', (code) => fail(new Error(`the listing thread stopped (exit code ${code})`)));
  for (const reply of replies) reply.catch(() => {}); // each is awaited by done()
  return {
    async done() {
      // The arrays come in shared memory: what either thread finds, the other sees.
      const { names: joined, others, next, found } = await replies[0];
      const names = joined === '' ? [] : joined.split('\0');
      lookShared(rootOf(dataDir), names, next, found);
      await replies[1];
      return gather(names, others, found);
    },
  };
}

if (!isMainThread && workerData?.listSources !== undefined) {
  const dataDir = workerData.listSources;
  const { names, others } = listNames(dataDir);
  const next = new Int32Array(new SharedArrayBuffer(4));
  const found = looks(names.length, (bytes) => new SharedArrayBuffer(bytes));
  parentPort.postMessage({ names: names.join('\0'), others, next, found });
  lookShared(rootOf(dataDir), names, next, found);
  parentPort.postMessage('done');
}

// Lists the source files: `<kind>/<file>` for each, with its size and modification time, in the
// order of their paths (`type-x/…` before `type/…`). Plain JavaScript, so that it can run on a
// thread of its own at once (`listSourcesOnThread`): a rebuild looks at every source, and meanwhile
// the build's own thread reads what the last build left.
import fs from 'node:fs';
import path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

export const SOURCE_EXTENSIONS = ['yaml', 'yml', 'json'];
const SOURCE_NAME = new RegExp(`^[^.].*\\.(${SOURCE_EXTENSIONS.join('|')})$`);

/** Listed and looked at synchronously: several times faster than a glob. */
export function listSources(dataDir) {
  const found = [];
  let kinds;
  try {
    kinds = fs.readdirSync(dataDir, { withFileTypes: true });
  } catch {
    return found; // no data folder: no records
  }
  // No kind's name holds a '/', so ordering by `kind/` and then by file name orders by path.
  kinds.sort((a, b) => (`${a.name}/` < `${b.name}/` ? -1 : 1));
  for (const kind of kinds) {
    if (kind.name.startsWith('.') || !(kind.isDirectory() || kind.isSymbolicLink())) continue;
    const dir = path.join(dataDir, kind.name, '/');
    let names;
    try {
      names = fs.readdirSync(dir).sort();
    } catch {
      continue; // a link to something that is not a folder
    }
    for (const name of names) {
      if (!SOURCE_NAME.test(name)) continue;
      // Joined by hand: path.join costs a sixth of the time of the stat itself.
      const stats = fs.statSync(dir + name, { throwIfNoEntry: false });
      if (stats?.isFile()) found.push({ path: `${kind.name}/${name}`, size: stats.size, mtimeMs: stats.mtimeMs });
    }
  }
  return found;
}

/** `listSources` on a thread of its own; sent back as one string and two arrays, which cost little to pass. */
export function listSourcesOnThread(dataDir) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { listSources: dataDir }, execArgv: [] });
    worker.once('message', ({ paths, size, mtime }) => {
      resolve(paths === '' ? [] : paths.split('\0').map((p, i) => ({ path: p, size: size[i], mtimeMs: mtime[i] })));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the listing thread stopped (exit code ${code})`)));
  });
}

if (!isMainThread && workerData?.listSources !== undefined) {
  const found = listSources(workerData.listSources);
  const size = new Float64Array(found.length);
  const mtime = new Float64Array(found.length);
  found.forEach((f, i) => {
    size[i] = f.size;
    mtime[i] = f.mtimeMs;
  });
  const paths = found.map((f) => f.path).join('\0');
  parentPort.postMessage({ paths, size, mtime }, [size.buffer, mtime.buffer]);
}

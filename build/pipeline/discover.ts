// Stage 1, discover: the source files of the data folder, `<kind>/<name>.yaml` (or .yml, .json),
// each with its size and modification time, in the order of their paths. Entries an author may have
// meant as records but that are not read become problems here.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../config.ts';
import { relativeTo } from '../paths.ts';
import { fileStart, type Problem, type Problems } from '../report/problems.ts';
import type { SourceFile, SourceStamp } from '../store.ts';

export const SOURCE_EXTENSIONS = ['yaml', 'yml', 'json'];
const SOURCE_NAME = new RegExp(`^[^.].*\\.(${SOURCE_EXTENSIONS.join('|')})$`);

/** Past this a file is refused rather than parsed: no record needs it. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

export const stampOf = (file: SourceFile): SourceStamp => [file.size, file.mtimeMs, file.hash ?? ''];

/** A source file as listed: `<kind>/<file>`, with its size and modification time. */
interface Listed {
  path: string;
  size: number;
  mtimeMs: number;
}

const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** An entry of the data folder that is not read whatever its name, and why. */
interface Refused {
  name: string;
  why: string;
}

/**
 * The files directly in the data folder, and the entries of each kind's folder (`<kind>/<name>`),
 * hidden ones passed over, folders among them marked by a trailing '/'. Entries that are neither
 * files nor folders, and links that lead out of the data folder, go to `refused`: a pull request
 * must not make the build publish a file of the machine it runs on. Read with readdir rather than a
 * glob library: on a rebuild with nothing changed, loading and running one was a seventh of what
 * the build did beyond node's start (docs/PERFORMANCE.md).
 */
function listNames(dataDir: string, refused: Refused[]): string[] {
  const names: string[] = [];
  const within = insideOf(dataDir);
  for (const kind of fs.readdirSync(dataDir, { withFileTypes: true })) {
    if (kind.name.startsWith('.')) continue;
    const what = entryType(dataDir, kind, within);
    if (typeof what === 'object') refused.push({ name: kind.name, why: what.why });
    else if (what === 'file') names.push(kind.name);
    else {
      for (const entry of fs.readdirSync(path.join(dataDir, kind.name), { withFileTypes: true })) {
        if (entry.name.startsWith('.')) continue;
        const name = `${kind.name}/${entry.name}`;
        const type = entryType(path.join(dataDir, kind.name), entry, within);
        if (typeof type === 'object') refused.push({ name, why: type.why });
        else names.push(type === 'folder' ? `${name}/` : name);
      }
    }
  }
  return names;
}

/** Whether a real path lies inside the data folder (whose own path may pass through links). */
function insideOf(dataDir: string): (real: string) => boolean {
  let root: string | undefined;
  return (real) => {
    root ??= path.join(fs.realpathSync(dataDir), '/');
    return real.startsWith(root);
  };
}

/** A file or a folder (a link to one inside the data folder counts as what it leads to), or why it is not read. */
function entryType(dir: string, entry: fs.Dirent, within: (real: string) => boolean): 'file' | 'folder' | { why: string } {
  if (!entry.isSymbolicLink()) return typeOf(entry);
  const abs = path.join(dir, entry.name);
  let real: string;
  try {
    real = fs.realpathSync(abs);
  } catch {
    return { why: `is a link to ${linkTarget(abs)}, which does not exist` };
  }
  if (!within(real)) return { why: `is a link to ${real}, outside the data folder: only what is inside it is read` };
  return typeOf(fs.statSync(real));
}

const linkTarget = (abs: string) => {
  try {
    return fs.readlinkSync(abs);
  } catch {
    return 'nothing';
  }
};

function typeOf(entry: fs.Dirent | fs.Stats): 'file' | 'folder' | { why: string } {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'folder';
  const what = entry.isFIFO()
    ? 'a FIFO (a named pipe)'
    : entry.isSocket()
      ? 'a socket'
      : entry.isCharacterDevice()
        ? 'a character device'
        : entry.isBlockDevice()
          ? 'a block device'
          : 'neither a file nor a folder';
  return { why: `is ${what}, not a file: only regular files are read` };
}

/**
 * The source files (`sources`, in path order: `type-x/…` before `type/…`, as the characters
 * compare) and `others`: entries that are not read although an author may have meant them to be.
 * In a kind's folder, anything but a source file; in the data folder itself, a source file. Only
 * source files are looked at.
 */
export function listSources(dataDir: string): { sources: Listed[]; others: string[]; refused: Refused[] } {
  const refused: Refused[] = [];
  const names = listNames(dataDir, refused).sort(byPath);
  const sources: Listed[] = [];
  const others: string[] = [];
  for (const name of names) {
    const slash = name.indexOf('/');
    const isDir = name.endsWith('/');
    const isSource = !isDir && SOURCE_NAME.test(name.slice(slash + 1));
    if (slash < 0) {
      if (isSource) others.push(name);
      continue;
    }
    if (!isSource) {
      others.push(isDir ? name.slice(0, -1) : name);
      continue;
    }
    const stats = fs.statSync(path.join(dataDir, name), { throwIfNoEntry: false });
    // A file removed since it was listed is not there at all.
    if (stats?.isFile()) sources.push({ path: name, size: stats.size, mtimeMs: stats.mtimeMs });
    else if (stats) others.push(name);
  }
  return { sources, others, refused };
}

/**
 * Every source file of the data folder. A file whose size and modification time match `known` (the
 * stamps the live tree was built from) takes its remembered hash; others are hashed when read.
 */
export function discover(dataDir: string, problems: Problems, known: ReadonlyMap<string, SourceStamp> = new Map()): SourceFile[] {
  // A mistyped folder is not an empty world: building it would replace every record with none.
  if (!fs.statSync(dataDir, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`the data folder ${dataDir} does not exist (or is not a folder)`);
  const prefix = relativeTo(path.dirname(dataDir), dataDir);
  const root = path.join(dataDir, '/');
  const { sources, others, refused } = listSources(dataDir);
  for (const name of others) problems.add(notRead(name, prefix));
  for (const { name, why } of refused) {
    const rel = prefix ? `${prefix}/${name}` : name;
    problems.add({
      ...fileStart(rel),
      message: `the entry ${why}`,
      hint: 'a record is a regular file inside the data folder; copy it in, or remove the entry',
    });
  }
  if (sources.length === 0 && others.length === 0 && refused.length === 0) {
    problems.add({
      ...fileStart(prefix || '.'),
      message: 'the data folder holds no records',
      hint: `each record is a file of its own: ${prefix || '.'}/<kind>/<name>.yaml`,
    });
  }
  return sources.map(({ path: name, size, mtimeMs }) => {
    const slash = name.indexOf('/');
    const file: SourceFile = {
      rel: prefix ? `${prefix}/${name}` : name,
      abs: root + name,
      kind: name.slice(0, slash),
      stem: name.slice(slash + 1, name.lastIndexOf('.')),
      size,
      mtimeMs,
    };
    const stamp = known.get(file.rel);
    if (size > MAX_FILE_BYTES) refuse(file, problems);
    else if (stamp && stamp[0] === size && stamp[1] === mtimeMs) file.hash = stamp[2];
    return file;
  });
}

function refuse(file: SourceFile, problems: Problems): void {
  file.refused = `the file is ${file.size} bytes, over the limit of ${MAX_FILE_BYTES}`;
  problems.add({ ...fileStart(file.rel), message: file.refused, hint: 'a record is a few kilobytes; split what this file holds' });
}

/** A problem for an entry of the data folder that is not read, though it may have been meant to be. */
function notRead(name: string, prefix: string): Problem {
  const start = fileStart(prefix ? `${prefix}/${name}` : name);
  const slash = name.indexOf('/');
  if (slash < 0) {
    const hint = `move it into its kind's folder, e.g. ${prefix ? `${prefix}/` : ''}type/${name}`;
    return { ...start, message: "the file is not read: a record's file goes in the folder of its kind", hint };
  }
  const base = name.slice(slash + 1);
  const stem = base.includes('.') ? base.slice(0, base.indexOf('.')) : base;
  const extensions = SOURCE_EXTENSIONS.map((e) => `.${e}`).join(', ');
  return {
    ...start,
    message: `"${base}" is not read: a kind's folder holds only record files ending in ${extensions}`,
    hint: `if it is a record, name it ${stem}.yaml; if not, move it out of the data folder`,
  };
}

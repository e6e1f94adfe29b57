// Stage 1, discover: the source files of the data folder, `<kind>/<name>.yaml` (or .yml, .json),
// each with its size and modification time, in the order of their paths. Entries an author may have
// meant as records but that are not read become problems here.
import fs from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { UsageError } from '../config.ts';
import { MAX_FILE_BYTES } from '../guard.mjs';
import { relativeTo } from '../paths.ts';
import { fileStart, type Problem, type Problems } from '../report/problems.ts';
import type { FileList } from '../incremental/manifest.ts';
import type { MediaFile, SourceFile } from '../store.ts';
import { WORLD_FILE } from './world.ts';

const SOURCE_EXTENSIONS = ['yaml', 'yml', 'json'];
const SOURCE_NAME = new RegExp(`^[^.].*\\.(${SOURCE_EXTENSIONS.join('|')})$`);

export { MAX_FILE_BYTES };

const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** What an entry is: a file or a folder (a link to one inside the data folder counts as what it leads to), or why it is not read. */
type EntryType = 'file' | 'folder' | { why: string };

/** What listSources gives. */
export interface Listing {
  /** Source files as listed: `<kind>/<file>`, with their size and modification time. */
  sources: Array<{ path: string; size: number; mtimeMs: number }>;
  others: string[];
  /** Entries of the data folder that are not read whatever their name, and why. */
  refused: Array<{ name: string; why: string }>;
  /** The folders among `others`: a record's own folder of images and sounds when a record file has its name (`<kind>/<name>`). */
  folders: string[];
}

/**
 * The entries of `dir` that `patterns` match, hidden ones passed over (and names starting with a line
 * break, which picomatch's `*` does not match). Links are listed as links and not walked through:
 * whether one is followed is the project's rule (entryType), not the walker's. Dirents only, not
 * `stats: true`: that lstats every entry, costs more, and drops a whole folder when one entry in it
 * is removed during the walk. Sources get their `stat` in kindEntry.
 */
const globbed = (dir: string, patterns: string[]) =>
  fg.sync(patterns, { cwd: dir, onlyFiles: false, followSymbolicLinks: false, objectMode: true, unique: false });

/** Whether a real path lies inside the data folder (whose own path may pass through links). */
function insideOf(dataDir: string): (real: string) => boolean {
  let root: string | undefined;
  return (real) => {
    root ??= path.join(fs.realpathSync(dataDir), '/');
    return real.startsWith(root);
  };
}

function entryType(abs: string, dirent: fg.Entry['dirent'], within: (real: string) => boolean): EntryType {
  if (!dirent.isSymbolicLink()) return typeOf(dirent);
  let real: string | undefined;
  let stats: fs.Stats | undefined;
  try {
    real = fs.realpathSync(abs);
    // Undefined for what is gone since, or was never a path (a process's pipe, under /proc).
    stats = fs.statSync(real, { throwIfNoEntry: false });
  } catch {}
  if (!real || !stats) return { why: `is a link to ${linkTarget(abs)}, which does not exist` };
  if (!within(real)) return { why: `is a link to ${real}, outside the data folder: only what is inside it is read` };
  return typeOf(stats);
}

const linkTarget = (abs: string) => {
  try {
    return fs.readlinkSync(abs);
  } catch {
    return 'nothing';
  }
};

const NOT_FILES = [
  ['isFIFO', 'a FIFO (a named pipe)'],
  ['isSocket', 'a socket'],
  ['isCharacterDevice', 'a character device'],
  ['isBlockDevice', 'a block device'],
] as const;

function typeOf(entry: fg.Entry['dirent'] | fs.Stats): EntryType {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'folder';
  const what = NOT_FILES.find(([is]) => entry[is]())?.[1] ?? 'neither a file nor a folder';
  return { why: `is ${what}, not a file: only regular files are read` };
}

/**
 * The source files (`sources`, in path order: `type-x/…` before `type/…`, as the characters
 * compare) and `others`: entries that are not read although an author may have meant them to be.
 * In a kind's folder, anything but a source file; in the data folder itself, a source file but the
 * world's settings file, which world.ts reads (and refuses, if need be) on its own. Entries
 * that are neither files nor folders, and links that lead out of the data folder, are `refused`: a
 * pull request must not make the build publish a file of the machine it runs on.
 */
export function listSources(dataDir: string): Listing {
  const listing: Listing = { sources: [], others: [], refused: [], folders: [] };
  const within = insideOf(dataDir);
  const take = (dir: string, patterns: string[], prefix: string) => {
    const base = path.join(dir, '/'); // joined to each entry by hand: path.join cost 80 ms of a no-op at scale 10
    for (const { path: rel, dirent } of globbed(dir, patterns)) {
      const name = prefix + rel;
      if (name === WORLD_FILE) continue;
      const abs = base + rel;
      const what = entryType(abs, dirent, within);
      if (typeof what === 'object') listing.refused.push({ name, why: what.why });
      else if (name.includes('/')) kindEntry(listing, name, abs, what);
      else if (what === 'file' && SOURCE_NAME.test(name)) listing.others.push(name);
      // A kind's folder reached through a link, which the walk did not enter.
      else if (what === 'folder' && dirent.isSymbolicLink()) take(abs, ['*'], `${name}/`);
    }
  };
  take(dataDir, ['*', '*/*'], '');
  listing.sources.sort((a, b) => byPath(a.path, b.path));
  listing.others.sort(byPath);
  listing.refused.sort((a, b) => byPath(a.name, b.name));
  return listing;
}

/** An entry of a kind's folder: a source file, with its size and time, or one of the others. Only source files are looked at. */
function kindEntry({ sources, others, folders }: Listing, name: string, abs: string, what: 'file' | 'folder'): void {
  if (what === 'folder') folders.push(name);
  if (what === 'folder' || !SOURCE_NAME.test(path.basename(name))) return void others.push(name);
  const stats = fs.statSync(abs, { throwIfNoEntry: false });
  // A file removed since it was listed is not there at all.
  if (stats?.isFile()) sources.push({ path: name, size: stats.size, mtimeMs: stats.mtimeMs });
  else if (stats) others.push(name);
}

/**
 * Every source file of the data folder. A file whose size and modification time match its line of
 * `known` (the sources the live tree was built from) takes its remembered hash, and the line
 * (`stampLine`); others are hashed when read. `listed` is told what the folder held.
 */
export function discover(dataDir: string, problems: Problems, known?: FileList, listed?: (listing: Listing) => void): SourceFile[] {
  // A mistyped folder is not an empty world: building it would replace every record with none.
  if (!fs.statSync(dataDir, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`the data folder ${dataDir} does not exist (or is not a folder)`);
  const prefix = relativeTo(path.dirname(dataDir), dataDir);
  const root = path.join(dataDir, '/');
  const listing = listSources(dataDir);
  listed?.(listing);
  const { sources, refused } = listing;
  const media = mediaFolders(dataDir, listing);
  const others = listing.others.filter((name) => !media.has(name));
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
    const own = media.get(name.slice(0, name.lastIndexOf('.')));
    if (own) file.media = own;
    if (size > MAX_FILE_BYTES) refuse(file, problems);
    // A record with a folder of its own is read every time: its hash is its folder's too.
    else if (known && !own) stamped(file, known);
    return file;
  });
}

/**
 * The folders of records' own images and sounds: a folder in a kind's folder named as a record
 * file there is (`creature/emberpup/` beside `creature/emberpup.yaml`), each with its entries
 * (hidden ones passed over), by name. Whether each is a file fit to publish is media.ts's to say.
 */
function mediaFolders(dataDir: string, { sources, folders }: Listing): Map<string, MediaFile[]> {
  const out = new Map<string, MediaFile[]>();
  if (folders.length === 0) return out; // most worlds: a dev loop's every save lists them
  const stems = new Set(sources.map((s) => s.path.slice(0, s.path.lastIndexOf('.'))));
  for (const name of folders) {
    if (!stems.has(name)) continue;
    const abs = path.join(dataDir, name);
    let entries: string[] = [];
    try {
      entries = fs.readdirSync(abs).filter((entry) => !entry.startsWith('.'));
    } catch {} // gone since it was listed: an empty folder
    out.set(
      name,
      entries.sort(byPath).map((entry) => ({ name: entry, abs: path.join(abs, entry), root: dataDir })),
    );
  }
  return out;
}

/** The remembered hash of a file whose size and time are as the live tree's sources give them. */
function stamped(file: SourceFile, known: FileList): void {
  const line = known.indexOf(file.rel);
  const hash = line < 0 ? undefined : known.stamped(line, file.size, file.mtimeMs);
  if (hash === undefined) return;
  file.hash = hash;
  file.stampLine = line;
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
    const world = name.startsWith('world.') ? `if it holds the world's settings, name it ${WORLD_FILE}; if a record, ` : '';
    const hint = `${world}move it into its kind's folder, e.g. ${prefix ? `${prefix}/` : ''}type/${name}`;
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

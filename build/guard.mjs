// The one guard every path from data or from a setting passes before anything is read or written:
// a record's name that becomes a file name, a folder a person types (`--from`, `--out`, `--base`,
// `--data`), a folder a setting names (`CRS_CACHE_DIR`). A refusal is a `UsageError`: one line,
// exit code 2, before anything is touched.
//
// Written as JavaScript because the launcher, which runs before any TypeScript is compiled, checks
// the cache's folder with it.
import fs from 'node:fs';
import path from 'node:path';

/**
 * A mistake in how a command was called, or a path it will not touch: told in one line, exit code 2.
 * Named, so that the launcher knows one thrown by the bundle's own copy of this module.
 */
export class UsageError extends Error {
  name = 'UsageError';

  /**
   * A line break or another control character in the message (a path or value as typed) is written
   * as its escape, so that the message stays the one line the README promises.
   * @param {string} message
   */
  constructor(message) {
    super(message.replace(/\p{Cc}/gu, (char) => JSON.stringify(char).slice(1, -1)));
  }
}

/**
 * A record's name: a lowercase slug, not only digits. The build refuses any other, so a name that
 * passes is a file name that stays in its folder (no `/`, `..`, leading dot, NUL or empty name).
 */
export const SLUG = '^(?![0-9]+$)[a-z0-9]+(?:--?[a-z0-9]+)*$';
const slug = new RegExp(SLUG);

/**
 * Whether `name` may name a record, and so a file.
 * @param {unknown} name
 * @returns {name is string}
 */
export const isSlug = (name) => typeof name === 'string' && name.length <= 200 && slug.test(name);

/**
 * Whether `rel`, a path the build reads back from a file of its own (a tree's manifest, a cache
 * entry's list), stays strictly inside the folder it is joined to: `/` between names, none of them
 * empty, `.` or `..`, and no NUL or backslash. Such a file can be edited by hand; a path that fails
 * is never joined to a folder, so that `../../x` removes or links nothing outside it.
 * @param {string} rel
 */
export const isInner = (rel) => rel.split('/').every((part) => part !== '' && part !== '.' && part !== '..' && !/[\0\\]/.test(part));

/** Past this a source file is refused rather than read: no record needs it. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

/**
 * Whether `child` is `parent` or inside it (both absolute, links resolved by the caller).
 * @param {string} child
 * @param {string} parent
 */
export function within(child, parent) {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * A path with its links resolved as far as it exists, the rest appended: a link to the data folder
 * is the data folder, and a path not made yet is compared by where it would be made.
 * @param {string} p
 * @returns {string}
 */
export function realish(p) {
  const abs = path.resolve(p);
  const rest = [];
  for (let dir = abs; ; dir = path.dirname(dir)) {
    try {
      return path.join(fs.realpathSync(dir), ...rest.reverse());
    } catch {
      if (dir === path.dirname(dir)) return abs;
      rest.push(path.basename(dir));
    }
  }
}

/**
 * Why `file` (`rel` inside `root`) may not be read, or undefined when it may: it must be a regular
 * file, reached without leaving `root` (a link inside `root` to a file inside it is fine), of at
 * most `max` bytes. Nothing is opened: a FIFO is never waited on.
 * @param {string} root
 * @param {string} file
 * @param {number} [max]
 * @returns {string | undefined}
 */
export function unreadable(root, file, max = MAX_FILE_BYTES) {
  let real;
  try {
    real = fs.realpathSync(file);
  } catch {
    return fs.lstatSync(file, { throwIfNoEntry: false }) ? `is a link to ${linkTarget(file)}, which does not exist` : 'does not exist';
  }
  if (!within(real, fs.realpathSync(root))) return `leads to ${real}, outside ${root}: only what is inside it is read`;
  const stats = fs.statSync(real, { throwIfNoEntry: false });
  if (!stats) return 'does not exist';
  if (!stats.isFile()) return `is ${kindOf(stats)}, not a regular file`;
  if (stats.size > max) return `is ${stats.size} bytes, over the limit of ${max}`;
  return undefined;
}

/**
 * The bytes of a file `unreadable` lets through, read from one descriptor that is checked again
 * once open, so a file swapped or grown since is never read past the limit; or the reason it is
 * refused. A file that passes costs two path lookups, an open and an fstat: a build reads every
 * source, schema and module of its own through here (docs/PERFORMANCE.md, "Reading through the guard").
 * Only a file refused is looked at again, by `unreadable`, to say why.
 * @param {string} root
 * @param {string} file
 * @param {number} [max]
 * @returns {{ bytes: Buffer } | { why: string }}
 */
export function readInside(root, file, max = MAX_FILE_BYTES) {
  let fd;
  try {
    const real = fs.realpathSync.native(file);
    if (!within(real, fs.realpathSync.native(root))) return { why: unreadable(root, file, max) ?? `is outside ${root}` };
    // O_NONBLOCK: a FIFO is never waited on; O_NOFOLLOW: a link put in the file's place since is not followed.
    fd = fs.openSync(real, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (err) {
    return { why: unreadable(root, file, max) ?? cannotRead(err) };
  }
  try {
    const stats = fs.fstatSync(fd);
    if (!stats.isFile()) return { why: `is ${kindOf(stats)}, not a regular file` };
    if (stats.size > max) return { why: `is ${stats.size} bytes, over the limit of ${max}` };
    const bytes = Buffer.allocUnsafe(stats.size + 1);
    let length = 0;
    for (let n; length < bytes.length && (n = fs.readSync(fd, bytes, length, bytes.length - length, null)) > 0;) length += n;
    if (length > max) return { why: `grew past the limit of ${max} bytes while it was read` };
    return { bytes: bytes.subarray(0, length) };
  } catch (err) {
    return { why: cannotRead(err) };
  } finally {
    fs.closeSync(fd);
  }
}

/** @param {unknown} err */
const cannotRead = (err) => `could not be read (${/** @type {NodeJS.ErrnoException} */ (err).code ?? /** @type {Error} */ (err).message})`;

/**
 * Refuses a folder a command reads from, given as `setting` (`--from`, `--data`, `--base`): it must
 * exist and be a folder.
 * @param {string} setting
 * @param {string} dir
 * @returns {string} the folder, absolute
 */
export function folderToRead(setting, dir) {
  const abs = path.resolve(dir);
  const stats = fs.statSync(abs, { throwIfNoEntry: false });
  if (!stats) throw new UsageError(`${setting} ${dir}: no such folder`);
  if (!stats.isDirectory()) throw new UsageError(`${setting} ${dir}: is ${kindOf(stats)}, not a folder`);
  return abs;
}

/**
 * The file a plain output (`--plain`) carries, so that the next build knows the folder for its own
 * (output/guard.ts). A linked output needs none: it is a link to one of the build's trees.
 */
export const PLAIN_MARK = '.crs-build';

/**
 * The output a build made that the real path `real` is or lies inside, if any: a folder of a
 * build's trees (`.<output>-builds`, holding `a` or `b` and a manifest or the lock: output/slots.ts), or a plain output (marked
 * with `PLAIN_MARK`). The next build replaces what is there whole, so nothing else may be written in it.
 * @param {string} real a path with its links resolved (`realish`)
 * @returns {string | undefined}
 */
export function madeByBuild(real) {
  for (let dir = real; ; dir = path.dirname(dir)) {
    const trees =
      /^\..+-builds$/.test(path.basename(dir)) &&
      ['a', 'b'].some((slot) => fs.existsSync(path.join(dir, slot))) &&
      ['a.manifest', 'b.manifest', 'lock'].some((name) => fs.existsSync(path.join(dir, name)));
    if (trees || fs.existsSync(path.join(dir, PLAIN_MARK))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * Refuses a folder a command will write into, given as `setting`, when it is, holds or lies inside
 * one of the folders that are not its own (`keep`: the data folder, the project, a `--from`), when
 * it lies in an output a build made, or when it cannot be made (a file on the way, a path under
 * /proc). Returns it absolute.
 * @param {string} setting
 * @param {string} dir
 * @param {Record<string, string>} keep what each folder is called, by its path
 * @returns {string}
 */
export function folderToWrite(setting, dir, keep) {
  const abs = path.resolve(dir);
  const real = realish(abs);
  for (const [what, other] of Object.entries(keep)) {
    const theirs = realish(other);
    if (real === theirs) throw new UsageError(`${setting} ${dir}: is ${what}; choose another folder`);
    if (within(theirs, real)) throw new UsageError(`${setting} ${dir}: holds ${what}; choose another folder`);
    if (within(real, theirs)) throw new UsageError(`${setting} ${dir}: is inside ${what}; choose another folder`);
  }
  const output = madeByBuild(real);
  if (output)
    throw new UsageError(`${setting} ${dir}: is inside ${output}, a build's output, which the next build replaces; choose another folder`);
  // The nearest part that exists must be a folder that is not a kernel's (/proc, /sys, /dev: files
  // there are not files, and a write can loop or fail midway). /dev/shm is the one folder under
  // /dev made to hold files: a file system in memory, as /tmp is on many systems.
  let existing = abs;
  while (!fs.existsSync(existing)) existing = path.dirname(existing);
  const stats = fs.statSync(existing);
  if (existing !== abs && !stats.isDirectory())
    throw new UsageError(`${setting} ${dir}: ${existing} is a file, so nothing can be made under it`);
  const kernel = /^\/(proc|sys|dev(?!\/shm(?:\/|$)))(?:\/|$)/.exec(realish(existing));
  if (kernel) throw new UsageError(`${setting} ${dir}: is under /${kernel[1]}, which holds no real files`);
  return abs;
}

/**
 * Makes `dir` a folder marked as `mark`'s owner's, or finds it so: a folder that does not exist or
 * is empty is made and marked; one that holds the mark, with its text (another tool may use the
 * same name), is taken; anything else is refused (one line naming `setting` and what the folder
 * holds), so that nothing the owner did not make is written over or pruned.
 * @param {string} setting what names the folder, for the message (`CRS_CACHE_DIR`)
 * @param {string} dir
 * @param {string} mark the marker file's name
 * @param {string} text the marker file's text
 */
export function ownFolder(setting, dir, mark, text) {
  const stats = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (stats && !stats.isDirectory())
    throw new UsageError(`${setting} ${dir}: is ${stats.isSymbolicLink() ? 'a link' : kindOf(stats)}, not a folder`);
  const names = stats ? fs.readdirSync(dir) : [];
  if (names.includes(mark)) {
    const read = readInside(dir, path.join(dir, mark), text.length);
    if ('bytes' in read && read.bytes.toString() === text) return;
  }
  if (names.length > 0) {
    const shown = names.sort().slice(0, 3).join(', ') + (names.length > 3 ? ', …' : '');
    throw new UsageError(`${setting} ${dir}: holds ${shown}, which the build did not make; name a new or empty folder`);
  }
  fs.mkdirSync(dir, { recursive: true });
  try {
    fs.writeFileSync(path.join(dir, mark), text, { flag: 'wx' });
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') throw err; // marked meanwhile by another process
  }
}

/** @param {fs.Stats} stats */
function kindOf(stats) {
  if (stats.isFile()) return 'a file';
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO (a named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'neither a file nor a folder';
}

/** @param {string} file */
function linkTarget(file) {
  try {
    return fs.readlinkSync(file);
  } catch {
    return 'nothing';
  }
}

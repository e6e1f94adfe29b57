// The one cache the build keeps between runs: entries named by a key (a hash of everything they are
// made from) in areas of their own, each entry a folder of files. Every cache of the build is one
// area: the launcher's bundle, the validators' code, the Cloudflare worker, the explorer page and
// the checked records.
//
// Written as JavaScript because the launcher, which runs before any TypeScript is compiled, uses it.
//
// - An entry appears whole or not at all: it is made in a temp folder renamed into place.
// - An entry is checked before it is used: it holds a list of its files with a hash of each, written
//   as it was made, and a file whose bytes differ from their hash (a disk that lies, a restored
//   folder someone edited) makes the entry a miss, made again. Code is checked before it is run.
// - The root is a folder marked as the cache's own: a folder that holds anything else is refused in
//   one line (the guard's `ownFolder`), and only entries the cache wrote are ever pruned or replaced.
// - Each area keeps a bounded number of entries; the least recently used go first (an entry's
//   folder time is set each time it is found).
// - A cache that cannot be read or written costs time, never a build: every failure is a miss.
// - The root is `node_modules/.cache/creature-reference-service/`. `CRS_CACHE_DIR` names another
//   for the checked records alone (CI restores it between runs; docs/ARCHITECTURE.md): what is run
//   or published as it is stays in the project's own root (`codeCacheRoot`).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { folderToWrite, isInner, ownFolder, readInside, realish, UsageError, within } from './guard.mjs';

/**
 * The file that marks the root as the cache's own: a cache directory tag, which backup tools know
 * to skip (https://bford.info/cachedir/). Its text is compared too, so a tag of another tool's
 * cache does not pass; a root marked with another text is refused, so the text never changes.
 */
export const MARK = 'CACHEDIR.TAG';
const MARK_TEXT =
  'Signature: 8a477f597d28d172789f06886806bc55\n' +
  "# The build cache of creature-reference-service: everything here is the build's own, made again when missing.\n" +
  '# For information about cache directory tags, see https://bford.info/cachedir/\n';

/** Roots claimed by this thread, with the folders each was compared with: claimed once. */
const claimed = new Set();

/**
 * The cache's root folder for a project's records, claimed as the cache's own the first time:
 * `CRS_CACHE_DIR` if set, else the project's own (`codeCacheRoot`). Refused (a `UsageError`) when it
 * is, holds or lies inside a folder in `keep` (the data and output folders; by default the
 * project's), when it is or holds the project, or when it holds what the cache did not make. A root
 * that cannot be made or marked is given all the same: every use of it is a miss.
 * @param {string} projectRoot
 * @param {Record<string, string>} [keep] other folders the cache must stay out of, by what they are called
 * @returns {string}
 */
export function cacheRoot(projectRoot, keep = {}) {
  // Set to nothing, as a CI's unset variable often is, it names no folder: the default is used.
  const chosen = process.env.CRS_CACHE_DIR || undefined;
  return claim(projectRoot, chosen ? path.resolve(chosen) : ownRoot(projectRoot), chosen, keep);
}

/**
 * The root of what the cache keeps that is run or published as it is: the launcher's bundle, the
 * validators' code, the explorer page and the worker. Always the project's own folder beside its
 * packages, whatever `CRS_CACHE_DIR` names: an entry's hashes sit in the folder they vouch for, so
 * code can be trusted no further than that folder, and a folder restored from elsewhere (CI's
 * `CRS_CACHE_DIR`) holds only checked records, which the build checks again before it takes one.
 * @param {string} projectRoot
 * @returns {string}
 */
export function codeCacheRoot(projectRoot) {
  return claim(projectRoot, ownRoot(projectRoot), undefined, {});
}

/** @param {string} projectRoot */
const ownRoot = (projectRoot) => path.join(projectRoot, 'node_modules', '.cache', 'creature-reference-service');

/**
 * @param {string} projectRoot
 * @param {string} root
 * @param {string | undefined} chosen the setting's value, when a setting named the root
 * @param {Record<string, string>} keep
 * @returns {string}
 */
function claim(projectRoot, root, chosen, keep) {
  const folders = { ...projectFolders(projectRoot), ...keep };
  const key = JSON.stringify([root, folders]);
  if (claimed.has(key)) return root;
  const setting = chosen ? 'CRS_CACHE_DIR' : "the build's cache";
  const named = chosen ?? root;
  const [real, project] = [realish(root), realish(projectRoot)];
  if (within(project, real))
    throw new UsageError(`${setting} ${named}: ${real === project ? 'is' : 'holds'} the project; choose another folder`);
  folderToWrite(setting, named, folders);
  try {
    own(setting, named, !chosen);
  } catch (err) {
    if (chosen && err instanceof UsageError) throw err; // the default root refused again was refilled meanwhile: a miss
  }
  claimed.add(key);
  return root;
}

/** The folders of a project the cache stays out of, whoever names it: its data and its output. */
const projectFolders = (projectRoot) => ({
  [`the data folder ${path.join(projectRoot, 'data')}`]: path.join(projectRoot, 'data'),
  [`the output folder ${path.join(projectRoot, 'dist')}`]: path.join(projectRoot, 'dist'),
});

/**
 * Marks the root as the cache's, or finds it so. The default root is the build's by its name
 * alone: one an older build left unmarked holds entries no check can trust and no pruning would
 * remove, so it is cleared rather than refused (moved aside in one rename, so that a build starting
 * at the same time finds it whole or not at all).
 * @param {string} setting
 * @param {string} root
 * @param {boolean} byDefault
 */
function own(setting, root, byDefault) {
  try {
    ownFolder(setting, root, MARK, MARK_TEXT);
  } catch (err) {
    if (!byDefault || !(err instanceof UsageError)) throw err;
    const aside = `${root}.${process.pid}-${threadId}.old`;
    try {
      fs.renameSync(root, aside);
    } catch {} // moved aside meanwhile by another build
    fs.rmSync(aside, { recursive: true, force: true });
    ownFolder(setting, root, MARK, MARK_TEXT);
  }
}

/** Names an entry may have: a key is a hash, in hex or base64url. */
const KEY = /^[A-Za-z0-9_-]{8,64}$/;
/** The names the cache gives its temp folders: a key, the process and thread, a count; `.old` for one moved aside. */
const TEMP = /^[A-Za-z0-9_-]{8,64}\.\d+-\d+-\d+\.tmp(?:\.old)?$/;
/** Each entry's list of its files, with the hash of each (and the target of each link), by path. */
const MANIFEST = '.entry.json';

/** Entries an area keeps by default: switching branches back and forth stays cheap. */
export const KEPT = 4;

let made = 0;

export class Cache {
  /**
   * @param {string} dir the area's folder
   * @param {number} [keep] entries kept in the area
   */
  constructor(dir, keep = KEPT) {
    this.dir = dir;
    this.keep = keep;
  }

  /**
   * The folder of an entry, if there is one and every file in it is as it was made (nothing added,
   * nothing missing, every hash the same); marked as used.
   * @param {string} key
   * @returns {string | undefined}
   */
  find(key) {
    const dir = this.#entry(key);
    if (!intact(dir)) return undefined;
    touch(dir);
    return dir;
  }

  /**
   * An entry's file, if the entry lists it and its bytes have the hash it was made with: the bytes
   * checked are the ones given, so nothing changed after the check is used.
   * @param {string} key
   * @param {string} name a path inside the entry, `/` between folders
   * @returns {Buffer | undefined}
   */
  read(key, name) {
    const dir = this.#entry(key);
    const bytes = checkedFile(dir, name);
    if (bytes) touch(dir);
    return bytes;
  }

  /**
   * Makes an entry: `fill` writes its files into an empty folder, which is then listed with the
   * hash of each file and becomes the entry by one rename. `fill` may give the hashes of the files
   * it wrote, by path, so that they are not read again. An entry of the same key made meanwhile by
   * another process holds the same bytes and is kept, unless `replace` is set (an entry whose key
   * names what it is for, not what it holds) or it fails its check. Returns the entry's folder, or
   * undefined if it could not be kept; what `fill` throws is thrown.
   * @param {string} key
   * @param {(dir: string) => Map<string, string> | void} fill
   * @param {boolean} [replace]
   * @param {boolean} [prune] whether to prune the area now; a caller making many entries at once prunes once, after them
   * @returns {string | undefined}
   */
  make(key, fill, replace = false, prune = true) {
    const dir = this.#entry(key);
    // Named for this process and thread: each thread of a build has a `made` count of its own.
    const temp = `${dir}.${process.pid}-${threadId}-${made++}.tmp`;
    try {
      fs.rmSync(temp, { recursive: true, force: true }); // left by a killed process of the same number
      fs.mkdirSync(temp, { recursive: true });
    } catch {
      return undefined;
    }
    let hashes;
    try {
      hashes = fill(temp);
    } catch (err) {
      fs.rmSync(temp, { recursive: true, force: true });
      throw err;
    }
    try {
      fs.writeFileSync(path.join(temp, MANIFEST), JSON.stringify(listing(temp, hashes ?? new Map())));
      this.#place(temp, dir, replace);
      if (prune) this.prune();
      return dir;
    } catch {
      fs.rmSync(temp, { recursive: true, force: true });
      return undefined;
    }
  }

  /**
   * Makes an entry of the files given, by name (`make`); a file that cannot be written is a miss. A
   * file's content is its bytes, or its text in pieces, written one after another (a text too long
   * for one string). Each file is hashed as it is written.
   * @param {string} key
   * @param {Iterable<[string, string | Uint8Array | Iterable<string>]>} files
   * @param {boolean} [replace]
   * @param {boolean} [prune] as for `make`
   * @returns {string | undefined}
   */
  write(key, files, replace = false, prune = true) {
    this.#entry(key); // a key that is not a hash is the caller's mistake, and thrown; only writing is a miss
    try {
      return this.make(
        key,
        (dir) => {
          const hashes = new Map();
          for (const [name, content] of files) {
            const file = path.join(dir, name);
            const hash = createHash('sha256');
            fs.mkdirSync(path.dirname(file), { recursive: true });
            if (typeof content === 'string' || content instanceof Uint8Array) {
              fs.writeFileSync(file, content);
              hash.update(content);
            } else writePieces(file, content, hash);
            hashes.set(name, hash.digest('hex'));
          }
          return hashes;
        },
        replace,
        prune,
      );
    } catch {
      return undefined;
    }
  }

  /** @param {string} key */
  #entry(key) {
    if (!KEY.test(key)) throw new Error(`not a cache key: ${key}`);
    return path.join(this.dir, key);
  }

  /**
   * Renames the complete folder into place. A folder cannot be renamed over another that holds
   * files: an entry being replaced is moved aside first, and a reader between the two renames
   * finds no entry, which is a miss. A folder in the entry's place that the cache did not make
   * (it has no list of files) is left as it is, and the entry is not kept.
   * @param {string} temp
   * @param {string} dir
   * @param {boolean} replace
   */
  #place(temp, dir, replace) {
    try {
      fs.renameSync(temp, dir);
      return;
    } catch (err) {
      const code = /** @type {NodeJS.ErrnoException} */ (err).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
    }
    if (!replace && intact(dir)) {
      fs.rmSync(temp, { recursive: true, force: true });
      return;
    }
    if (!isEntry(dir)) throw new Error(`${dir} is not an entry of the cache`);
    const old = `${temp}.old`;
    fs.renameSync(dir, old);
    fs.renameSync(temp, dir);
    fs.rmSync(old, { recursive: true, force: true });
  }

  /**
   * Removes the least recently used entries beyond `keep`, and temp folders left by killed
   * processes: only folders the cache made (an entry holds its list of files, a temp folder has a
   * name of the cache's), never one whose name merely looks like a key. It looks at every entry of
   * the area: once for each `make`, or once after many.
   */
  prune() {
    try {
      this.#prune();
    } catch {} // an area that cannot be listed or pruned is left as it is: at worst it holds more
  }

  #prune() {
    const entries = [];
    for (const name of fs.readdirSync(this.dir)) {
      const full = path.join(this.dir, name);
      const stats = fs.lstatSync(full, { throwIfNoEntry: false });
      if (!stats?.isDirectory()) continue;
      if (KEY.test(name) && isEntry(full)) entries.push({ full, at: stats.mtimeMs });
      else if (TEMP.test(name) && Date.now() - stats.mtimeMs > STALE_TEMP_MS) fs.rmSync(full, { recursive: true, force: true });
    }
    entries.sort((a, b) => b.at - a.at);
    for (const old of entries.slice(this.keep)) fs.rmSync(old.full, { recursive: true, force: true });
  }
}

/**
 * The largest file an entry may hold: a kind's checked records can pass the size limit of a source
 * file by far, and are bounded by what one buffer can hold.
 */
const MAX_ENTRY_FILE = 2 ** 31 - 1;

/** @param {Uint8Array} bytes */
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** @param {string} dir */
function touch(dir) {
  try {
    const now = new Date();
    fs.utimesSync(dir, now, now);
  } catch {} // a time that cannot be set makes the entry older, not unusable
}

/**
 * @typedef {{ files: Record<string, string>, links: Record<string, string> }} Manifest
 */

/**
 * The bytes of an entry's file, if its list names it and they have the hash it gives.
 * @param {string} dir
 * @param {string} name
 * @returns {Buffer | undefined}
 */
function checkedFile(dir, name) {
  try {
    const hash = manifestOf(dir)?.files[name];
    if (typeof hash !== 'string' || !isInner(name)) return undefined;
    const read = readInside(dir, path.join(dir, name), MAX_ENTRY_FILE);
    return 'bytes' in read && sha256(read.bytes) === hash ? read.bytes : undefined;
  } catch {
    return undefined; // the entry went away while it was read
  }
}

/**
 * An entry's list of files, or undefined if it has none that can be read.
 * @param {string} dir
 * @returns {Manifest | undefined}
 */
function manifestOf(dir) {
  const read = readInside(dir, path.join(dir, MANIFEST));
  if (!('bytes' in read)) return undefined;
  try {
    const manifest = JSON.parse(read.bytes.toString());
    const isMap = (/** @type {unknown} */ v) => v !== null && typeof v === 'object' && !Array.isArray(v);
    return isMap(manifest?.files) && isMap(manifest?.links) ? manifest : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a folder is an entry the cache made: it holds the list of its files. @param {string} dir */
const isEntry = (dir) => fs.lstatSync(path.join(dir, MANIFEST), { throwIfNoEntry: false })?.isFile() === true;

/**
 * What a folder holds, by path (`/` between folders): its files' hashes (given in `hashes`, or read
 * now) and its links' targets. Anything else in it cannot be checked later, and is refused.
 * @param {string} dir
 * @param {Map<string, string>} hashes
 * @returns {Manifest}
 */
function listing(dir, hashes) {
  /** @type {Manifest} */
  const manifest = { files: {}, links: {} };
  for (const [name, dirent] of walk(dir)) {
    if (dirent.isFile()) manifest.files[name] = hashes.get(name) ?? sha256(fs.readFileSync(path.join(dir, name)));
    else if (dirent.isSymbolicLink()) manifest.links[name] = fs.readlinkSync(path.join(dir, name));
    else throw new Error(`${name} in a cache entry is neither a file nor a link`);
  }
  return manifest;
}

/**
 * Whether an entry holds what its list says and nothing else: every file with its hash, every link
 * with its target.
 * @param {string} dir
 */
function intact(dir) {
  try {
    const manifest = manifestOf(dir);
    if (!manifest) return false;
    let seen = 0;
    for (const [name, dirent] of walk(dir)) {
      seen++;
      const file = path.join(dir, name);
      if (dirent.isSymbolicLink()) {
        if (manifest.links[name] !== fs.readlinkSync(file)) return false;
      } else {
        const read = dirent.isFile() ? readInside(dir, file, MAX_ENTRY_FILE) : { why: 'not a file' };
        if (!('bytes' in read) || manifest.files[name] !== sha256(read.bytes)) return false;
      }
    }
    return seen === Object.keys(manifest.files).length + Object.keys(manifest.links).length;
  } catch {
    return false;
  }
}

/**
 * The files and links under a folder, by path, its own list left out; folders are gone into, links
 * never followed.
 * @param {string} dir
 * @param {string} [under]
 * @returns {Generator<[string, fs.Dirent]>}
 */
function* walk(dir, under = '') {
  for (const dirent of fs.readdirSync(path.join(dir, under), { withFileTypes: true })) {
    const name = under ? `${under}/${dirent.name}` : dirent.name;
    if (name === MANIFEST) continue;
    if (dirent.isDirectory()) yield* walk(dir, name);
    else yield [name, dirent];
  }
}

/**
 * A text in pieces is written about this many characters at a time: not joined whole (a text can be
 * longer than a string can be, and its copies were a scale-10 build's peak of memory), nor a write
 * per piece (a manifest has a piece per line).
 */
export const WRITE_CHARS = 2 ** 20;

/**
 * Writes `pieces` to a new file, one after another: texts joined a batch at a time, bytes as they are.
 * @param {string} file
 * @param {Iterable<string | Buffer>} pieces
 * @param {import('node:crypto').Hash} [hash] given each byte written, in order
 */
export function writePieces(file, pieces, hash) {
  const fd = fs.openSync(file, 'wx');
  /** @param {Buffer} bytes */
  const write = (bytes) => {
    hash?.update(bytes);
    for (let at = 0; at < bytes.length;) at += fs.writeSync(fd, bytes, at); // a write may write a part
  };
  try {
    /** @type {string[]} */
    let batch = [];
    let length = 0;
    const flush = () => {
      if (batch.length) write(Buffer.from(batch.join('')));
      batch = [];
      length = 0;
    };
    for (const piece of pieces) {
      if (typeof piece !== 'string') {
        flush();
        write(piece);
        continue;
      }
      batch.push(piece);
      length += piece.length;
      if (length >= WRITE_CHARS) flush();
    }
    flush();
  } finally {
    fs.closeSync(fd);
  }
}

/** A temp folder this old belongs to a process that was killed while making it. */
const STALE_TEMP_MS = 60 * 60 * 1000;

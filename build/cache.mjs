// The one cache the build keeps between runs: entries named by a key (a hash of everything they are
// made from, so an entry never needs checking against its sources) in areas of their own, each
// entry a folder of files. Every cache of the build is one area: the launcher's bundle, the
// validators' code, the Cloudflare worker, the explorer page and the checked records.
//
// Written as JavaScript because the launcher, which runs before any TypeScript is compiled, uses it.
//
// - An entry appears whole or not at all: it is made in a temp folder renamed into place.
// - Each area keeps a bounded number of entries; the least recently used go first (an entry's
//   folder time is set each time it is found).
// - A cache that cannot be read or written costs time, never a build: every failure is a miss.
// - The root is `node_modules/.cache/creature-reference-service/` unless `CRS_CACHE_DIR` names
//   another folder (CI restores it between runs; docs/ARCHITECTURE.md).
import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';

/**
 * The cache's root folder for a project.
 * @param {string} projectRoot
 * @returns {string}
 */
export function cacheRoot(projectRoot) {
  const chosen = process.env.CRS_CACHE_DIR;
  return chosen ? path.resolve(chosen) : path.join(projectRoot, 'node_modules', '.cache', 'creature-reference-service');
}

/** Names an entry may have: a key is a hash, in hex or base64url. */
const KEY = /^[A-Za-z0-9_-]{8,64}$/;

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
   * The folder of an entry, if there is one; marked as used.
   * @param {string} key
   * @returns {string | undefined}
   */
  find(key) {
    const dir = this.#entry(key);
    try {
      const now = new Date();
      fs.utimesSync(dir, now, now);
      return dir;
    } catch {
      return undefined;
    }
  }

  /**
   * An entry's file, if the entry holds it.
   * @param {string} key
   * @param {string} name
   * @returns {Buffer | undefined}
   */
  read(key, name) {
    const dir = this.find(key);
    if (!dir) return undefined;
    try {
      return fs.readFileSync(path.join(dir, name));
    } catch {
      return undefined;
    }
  }

  /**
   * Makes an entry: `fill` writes its files into an empty folder, which then becomes the entry by one
   * rename. An entry of the same key made meanwhile by another process holds the same bytes and is
   * kept, unless `replace` is set (an entry whose key names what it is for, not what it holds).
   * Returns the entry's folder, or undefined if it could not be kept; what `fill` throws is thrown.
   * @param {string} key
   * @param {(dir: string) => void} fill
   * @param {boolean} [replace]
   * @returns {string | undefined}
   */
  make(key, fill, replace = false) {
    const dir = this.#entry(key);
    // Named for this process and thread: each thread of a build has a `made` count of its own.
    const temp = `${dir}.${process.pid}-${threadId}-${made++}.tmp`;
    try {
      fs.rmSync(temp, { recursive: true, force: true }); // left by a killed process of the same number
      fs.mkdirSync(temp, { recursive: true });
    } catch {
      return undefined;
    }
    try {
      fill(temp);
    } catch (err) {
      fs.rmSync(temp, { recursive: true, force: true });
      throw err;
    }
    try {
      this.#place(temp, dir, replace);
      this.#prune();
      return dir;
    } catch {
      fs.rmSync(temp, { recursive: true, force: true });
      return undefined;
    }
  }

  /**
   * Makes an entry of the files given, by name (`make`); a file that cannot be written is a miss. A
   * file's content is its bytes, or its text in pieces, written one after another (a text too long
   * for one string).
   * @param {string} key
   * @param {Iterable<[string, string | Uint8Array | Iterable<string>]>} files
   * @param {boolean} [replace]
   * @returns {string | undefined}
   */
  write(key, files, replace = false) {
    this.#entry(key); // a key that is not a hash is the caller's mistake, and thrown; only writing is a miss
    try {
      return this.make(
        key,
        (dir) => {
          for (const [name, content] of files) {
            const file = path.join(dir, name);
            fs.mkdirSync(path.dirname(file), { recursive: true });
            if (typeof content === 'string' || content instanceof Uint8Array) fs.writeFileSync(file, content);
            else writePieces(file, content);
          }
        },
        replace,
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
   * finds no entry, which is a miss.
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
    if (!replace) {
      fs.rmSync(temp, { recursive: true, force: true });
      return;
    }
    const old = `${temp}.old`;
    fs.renameSync(dir, old);
    fs.renameSync(temp, dir);
    fs.rmSync(old, { recursive: true, force: true });
  }

  /** Removes the least recently used entries beyond `keep`, and temp folders left by killed processes. */
  #prune() {
    const entries = [];
    for (const name of fs.readdirSync(this.dir)) {
      const full = path.join(this.dir, name);
      const at = fs.statSync(full, { throwIfNoEntry: false })?.mtimeMs;
      if (at === undefined) continue;
      if (KEY.test(name)) entries.push({ full, at });
      else if (name.endsWith('.tmp') && Date.now() - at > STALE_TEMP_MS) fs.rmSync(full, { recursive: true, force: true });
    }
    entries.sort((a, b) => b.at - a.at);
    for (const old of entries.slice(this.keep)) fs.rmSync(old.full, { recursive: true, force: true });
  }
}

/**
 * A text in pieces is written about this many characters at a time: not joined whole (a text can be
 * longer than a string can be, and its copies were a scale-10 build's peak of memory), nor a write
 * per piece (a manifest has a piece per line).
 */
export const WRITE_CHARS = 2 ** 20;

/**
 * Writes `pieces` to a new file, one after another, joined a batch at a time.
 * @param {string} file
 * @param {Iterable<string>} pieces
 */
export function writePieces(file, pieces) {
  const fd = fs.openSync(file, 'wx');
  /** @param {string[]} batch */
  const write = (batch) => {
    const bytes = Buffer.from(batch.join(''));
    for (let at = 0; at < bytes.length;) at += fs.writeSync(fd, bytes, at); // a write may write a part
  };
  try {
    let batch = [];
    let length = 0;
    for (const piece of pieces) {
      batch.push(piece);
      length += piece.length;
      if (length < WRITE_CHARS) continue;
      write(batch);
      batch = [];
      length = 0;
    }
    write(batch);
  } finally {
    fs.closeSync(fd);
  }
}

/** A temp folder this old belongs to a process that was killed while making it. */
const STALE_TEMP_MS = 60 * 60 * 1000;

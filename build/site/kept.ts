// The bundles the build places beside the records (the explorer page, the Cloudflare worker), each
// kept in an area of the cache under a hash of what it is made from, so that a build starts its
// bundler only when that changed. Sources and entries are read synchronously: a few small files,
// between the build's stages, where the promise API's round trips cost more than the reads.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Cache } from '../cache.mjs';
import { cacheArea, projectRoot, relativeTo } from '../paths.ts';

/** A hash of what a bundle is made from: its bundler's version, and each source's path and bytes. */
export function bundleKey(bundler: string, sources: string[]): string {
  const { version } = JSON.parse(fs.readFileSync(path.join(projectRoot, 'node_modules', bundler, 'package.json'), 'utf8'));
  const hash = createHash('sha256').update(`${bundler} ${version}\0`);
  for (const file of sources)
    hash
      .update(`${relativeTo(projectRoot, file)}\0`)
      .update(fs.readFileSync(file))
      .update('\0');
  return hash.digest('hex').slice(0, 16);
}

/** An entry lists its files here, so that one missing a file is a miss. */
const LIST = 'files.json';

/**
 * The bundle's files by path: the entry `key` of the cache's `area`, each file checked against the
 * hash it was kept with, or made now by `make` and kept.
 */
export async function keptBundle(
  area: 'explorer' | 'host-code',
  key: string,
  make: () => Promise<Map<string, Buffer>>,
): Promise<Map<string, Buffer>> {
  const cache = new Cache(cacheArea(area));
  const found = foundBundle(cache, key);
  if (found) return found;
  const files = await make();
  const kept: Array<[string, Buffer | string]> = [...files].map(([name, body]) => [`files/${name}`, body]);
  cache.write(key, [...kept, [LIST, JSON.stringify([...files.keys()])]], true); // replacing a damaged one
  return files;
}

/** The files of the entry, if it lists them by paths that stay in the output and each is as it was kept. */
function foundBundle(cache: Cache, key: string): Map<string, Buffer> | undefined {
  let names: unknown;
  try {
    names = JSON.parse(cache.read(key, LIST)?.toString() ?? 'null');
  } catch {
    return undefined;
  }
  if (!Array.isArray(names) || !names.every((name) => typeof name === 'string' && OUTPUT_PATH.test(name))) return undefined;
  const files = new Map<string, Buffer>();
  for (const name of names as string[]) {
    const body = cache.read(key, `files/${name}`);
    if (!body) return undefined;
    files.set(name, body);
  }
  return files;
}

/** A bundle's file: a path of plain names under the output's root, none of them hidden. */
const OUTPUT_PATH = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(?:\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

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

/** The bundle's files by path: the entry `key` of the cache's `area`, or made now by `make` and kept. */
export async function keptBundle(area: string, key: string, make: () => Promise<Map<string, Buffer>>): Promise<Map<string, Buffer>> {
  const cache = new Cache(cacheArea(area));
  const dir = cache.find(key);
  try {
    if (dir) {
      const names = JSON.parse(fs.readFileSync(path.join(dir, LIST), 'utf8')) as string[];
      return new Map(names.map((name) => [name, fs.readFileSync(path.join(dir, 'files', name))]));
    }
  } catch {} // damaged: made again
  const files = await make();
  const kept: Array<[string, Buffer | string]> = [...files].map(([name, body]) => [`files/${name}`, body]);
  cache.write(key, [...kept, [LIST, JSON.stringify([...files.keys()])]], true); // replacing a damaged one
  return files;
}

export interface Listed {
  /** `<kind>/<file>` */
  path: string;
  size: number;
  mtimeMs: number;
}
export const SOURCE_EXTENSIONS: string[];
/** The source files, and the entries an author may have meant as sources that are not read. */
export interface Listing {
  sources: Listed[];
  /** `<kind>/<name>` in a kind's folder, or `<name>` in the data folder itself. */
  others: string[];
}
/** The source files' names, `<kind>/<file>` in path order, and the other entries; no file looked at. */
export function listNames(dataDir: string): { names: string[]; others: string[] };
/** The source files and the other entries; `onNames` is given the names before any file is looked at. */
export function listSources(dataDir: string, onNames?: (names: string[]) => void): Listing;
export function listSourcesOnThread(dataDir: string): Promise<Listing>;
/** A file read ahead: its hash, and the record as JSON or, for the build to parse, the text. */
export type ReadAhead = { hash: string; json: string; text?: undefined } | { hash: string; text: string; json?: undefined };
/**
 * Files read, and ordinary YAML records parsed, on a thread of its own; the results come in batches
 * on `port`, as `[index, result][]` (no result for a file that cannot be read, or is over
 * `maxBytes`). The thread passes over the files before `reached[0]`.
 */
export function readAheadOnThread(
  files: string[],
  port: import('node:worker_threads').MessagePort,
  reached: Int32Array,
  maxBytes: number,
): import('node:worker_threads').Worker;

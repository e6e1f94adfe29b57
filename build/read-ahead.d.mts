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

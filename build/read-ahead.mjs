// Reads the files of the late kinds (order.ts) ahead, on a thread of its own, which parses the
// ordinary YAML records among them too and sends each back as it goes (`readAheadOnThread`). Plain
// JavaScript, so that it can run on a thread at once.
import fs from 'node:fs';
import { isMainThread, Worker, workerData } from 'node:worker_threads';
import { hashText, hasAnchor, loadYaml, MAX_DEPTH, readText } from './fast-yaml.mjs';

/**
 * Files (absolute paths) read on a thread of its own, in order, and each ordinary YAML record parsed
 * there too: for each file its hash and either the record as JSON (`json`) or its text, for the
 * build to parse itself (a document with anchors, one js-yaml refuses, a .json file); nothing for
 * a file that cannot be read, or is over `maxBytes`. The results come in batches on `port`, as
 * `[index, result][]`. The build tells the thread how far it has got itself (`reached[0]`, the
 * index of the next file it needs): the thread passes over the files before that.
 */
export function readAheadOnThread(files, port, reached, maxBytes) {
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { readAhead: files, port, reached, maxBytes },
    transferList: [port],
    execArgv: [],
  });
  worker.unref(); // what it has not sent when the build ends is not needed
  // A thread that fails sends no more: the build reads the rest itself.
  worker.on('error', () => {});
  return worker;
}

/**
 * A value JSON carries as it is (no number JSON cannot write: NaN, ±Infinity, -0), nested no deeper
 * than the build takes (MAX_DEPTH): one walk for both.
 */
function plain(value, at = 1) {
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (value === null || typeof value !== 'object') return true;
  if (at > MAX_DEPTH) return false;
  for (const key in value) if (!plain(value[key], at + 1)) return false;
  return true;
}

function readOne(file, maxBytes) {
  let text;
  try {
    // Listed by name alone (`listNames`): a file too large to take is left for the build to report.
    if (fs.statSync(file).size > maxBytes) return undefined;
    text = readText(file);
  } catch {
    return undefined;
  }
  const hash = hashText(text);
  if (!/\.ya?ml$/.test(file) || text.trim() === '' || hasAnchor(text)) return { hash, text };
  try {
    // A document nested too deep is left to the build too: what it says of one depends on how far
    // its own thread's stack lets js-yaml go, and this thread's is larger.
    const value = loadYaml(text);
    if (plain(value)) return { hash, json: JSON.stringify(value) };
  } catch {} // the build parses it again, and says what is wrong
  return { hash, text };
}

if (!isMainThread && workerData?.readAhead !== undefined) {
  const { readAhead: files, port, reached, maxBytes } = workerData;
  let batch = [];
  let bytes = 0;
  for (let i = 0; i < files.length; i++) {
    if (i < Atomics.load(reached, 0)) continue;
    const result = readOne(files[i], maxBytes);
    batch.push([i, result]);
    bytes += result?.json?.length ?? result?.text?.length ?? 0;
    // Small batches, so that the build finds each record soon after it is read.
    if (batch.length === 16 || bytes > 256 * 1024) {
      port.postMessage(batch);
      batch = [];
      bytes = 0;
    }
  }
  port.postMessage(batch);
  port.close();
}

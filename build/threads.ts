// Where the build starts its threads: a checking pool for large worlds (pipeline/check-pool.ts) and
// the writer (output/writer.ts). Each thread runs thread-entry, which gives it its role. Run
// compiled (launch.mjs bundles the build), a thread loads the compiled entry beside the build's
// code; run from its TypeScript sources (tests), it loads the entry of the bundle of those sources
// (thread.mjs).
import { Worker, type Transferable } from 'node:worker_threads';

export type Role = 'check' | 'write';

const fromSources = import.meta.url.endsWith('.ts');

export function startThread(role: Role, data: Record<string, unknown> = {}, transferList: Transferable[] = []): Worker {
  const options = { workerData: { ...data, role }, transferList, execArgv: [] };
  return new Worker(new URL(fromSources ? './thread.mjs' : './thread-entry.js', import.meta.url), options);
}

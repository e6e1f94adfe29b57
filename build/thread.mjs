// A worker thread's entry: the build runs from its TypeScript sources, so a worker loads its module
// through tsx, as the main thread does.
import { workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

await tsImport(workerData.module, import.meta.url);

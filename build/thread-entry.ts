// Every worker thread starts here (threads.ts) and takes up the role it was given.
import { workerData } from 'node:worker_threads';

const role = (workerData as { role?: string } | undefined)?.role;
if (role === 'check') (await import('./pipeline/check-thread.ts')).serve();
else if (role === 'write') (await import('./output/write-thread.ts')).serve();

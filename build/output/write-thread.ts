// The writer's thread (writer.ts): places what it is sent, in order of arrival, one call at a time.
// On a thread of its own synchronous calls cost the build nothing, and one at a time contends the
// file system's locks less than many at once.
// Messages: `{ dirs }` folders to make; `{ ops }` files to place, answered with `{ failed }` once
// placed (on the port it is given, `answers`); `{ undo }` removes the folders this thread made and those listed, then answers.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { makeDir, placeBatch, removeDirs, type Op } from './place.ts';

export type ToWriter = { dirs: string[] } | { ops: Op[] } | { undo: string[] };
export type FromWriter = { failed: Array<[string, string]> };

export function serve(): void {
  const port = parentPort!;
  const made = new Set<string>();
  const created: string[] = [];
  const ensure = (dir: string) => {
    if (made.has(dir)) return;
    makeDir(dir, created);
    made.add(dir);
  };
  const answers = (workerData as { answers: MessagePort }).answers;
  const answer = (m: FromWriter) => answers.postMessage(m);
  port.on('message', (m: ToWriter) => {
    if ('undo' in m) {
      removeDirs([...created, ...m.undo]);
      answer({ failed: [] });
    } else if ('dirs' in m) {
      for (const dir of m.dirs) {
        try {
          ensure(dir);
        } catch {} // a file that needs the folder reports the failure
      }
    } else answer({ failed: placeBatch(m.ops, created, ensure) });
  });
}

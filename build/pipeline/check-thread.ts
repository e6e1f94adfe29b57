// A checking thread (check-pool.ts): answers each chunk of files with what `checkFile` found in each,
// taking from the build's cache the records it holds as checked before (checked.ts).
import { parentPort } from 'node:worker_threads';
import { park } from './facts.ts';
import { Problems } from '../report/problems.ts';
import { projectSchemas } from '../schemas/schemas.ts';
import { compileValidators } from '../schemas/validators.ts';
import type { Chunk, Found } from './check-pool.ts';
import { CheckedRecords } from './checked.ts';
import type { SourceFile } from '../store.ts';
import { checkFile } from './validate.ts';

export function serve(): void {
  const port = parentPort!;
  const validators = compileValidators(projectSchemas());
  let cache: CheckedRecords | undefined;
  port.on('message', ({ indexes, files, cache: at }: Chunk) => {
    cache ??= at && CheckedRecords.reader(at);
    // Files come in their order, kind by kind: the lines of a kind this thread has passed are let go.
    cache?.keepOnly(new Set(files.map((f) => f.kind)));
    const results = files.map((sent): Found => {
      const file: SourceFile = { ...sent };
      const problems = new Problems();
      const taken = cache?.taken ?? 0;
      const checked = checkFile(file, validators, problems, cache);
      const entry = checked && 'entry' in checked ? checked.entry : undefined;
      if (entry?.valid) park(entry);
      // The build's thread gives the record its file, and parses its facts from their JSON.
      if (entry) Object.assign(entry, { file: undefined, data: entry.valid ? undefined : entry.data });
      const cached = cache && cache.taken > taken ? cache.foundSize(file.kind) : undefined;
      return { hash: file.hash, problems: problems.list, checked, cached };
    });
    port.postMessage({ indexes, results });
  });
}

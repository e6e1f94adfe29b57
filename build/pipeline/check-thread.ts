// A checking thread (check-pool.ts): answers each chunk of files with what `checkFile` found in each.
import { parentPort } from 'node:worker_threads';
import { park } from './facts.ts';
import { Problems } from '../report/problems.ts';
import { projectSchemas } from '../schemas/schemas.ts';
import { compileValidators } from '../schemas/validators.ts';
import type { Found, Sent } from './check-pool.ts';
import type { SourceFile } from '../store.ts';
import { checkFile } from './validate.ts';

export function serve(): void {
  const port = parentPort!;
  const validators = compileValidators(projectSchemas());
  port.on('message', ({ indexes, files }: { indexes: number[]; files: Sent[] }) => {
    const results = files.map((sent): Found => {
      const file: SourceFile = { ...sent };
      const problems = new Problems();
      const checked = checkFile(file, validators, problems);
      const entry = checked && 'entry' in checked ? checked.entry : undefined;
      if (entry?.valid) park(entry);
      // The build's thread gives the record its file, and parses its facts from their JSON.
      if (entry) Object.assign(entry, { file: undefined, data: entry.valid ? undefined : entry.data });
      return { hash: file.hash, problems: problems.list, checked };
    });
    port.postMessage({ indexes, results });
  });
}

// A checking thread (check-pool.ts): answers each chunk of files with what `checkFile` found in each.
import { parentPort } from 'node:worker_threads';
import { park } from './facts.ts';
import { Problems } from '../report/problems.ts';
import { loadSchemas } from '../schemas/schemas.ts';
import { compileValidators } from '../schemas/validators.ts';
import type { Found, Sent } from './check-pool.ts';
import type { SourceFile } from '../store.ts';
import { checkFile } from './validate.ts';

export function serve(): void {
  const port = parentPort!;
  const validators = compileValidators(loadSchemas());
  port.on('message', ({ indexes, files }: { indexes: number[]; files: Sent[] }) => {
    const results = files.map((sent): Found => {
      const file: SourceFile = { ...sent };
      const problems = new Problems();
      const checked = checkFile(file, validators, problems);
      const result: Found = { hash: file.hash, problems: problems.list };
      if (!checked) return result;
      if ('broken' in checked) return { ...result, broken: checked.broken };
      const { entry } = checked;
      if (!entry.valid) return { ...result, id: entry.id, name: entry.name, valid: false, data: JSON.stringify(entry.data) };
      park(entry);
      return { ...result, id: entry.id, name: entry.name, valid: true, source: entry.source, facts: entry.facts };
    });
    port.postMessage({ indexes, results });
  });
}

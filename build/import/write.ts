// Stage 5, write: one YAML file per record at `<out>/<kind>/<name>.yaml`. The files are made into a
// folder beside `out` and put in place by one rename, so a failed import leaves no half-written
// folder, and a folder that holds anything is never written into.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ImportRefused, type Poke } from './kinds.ts';

const jsyaml = createRequire(import.meta.url)('js-yaml') as typeof import('js-yaml');

export interface SourceFile {
  rel: string;
  text: string;
}

/** Refuses an output folder that exists and is not empty, or a report file that exists. */
export function checkOut(out: string, report: string): void {
  if (fs.existsSync(out) && (!fs.statSync(out).isDirectory() || fs.readdirSync(out).length > 0)) {
    throw new ImportRefused(`--out ${out} exists and is not empty: the import writes only a new or empty folder`);
  }
  if (fs.existsSync(report)) throw new ImportRefused(`${report} exists: the import does not overwrite its report`);
}

/**
 * The files of the records, by kind and name. YAML as the build reads it (js-yaml's core schema), so
 * a string that looks like another type is quoted; the same records give the same bytes.
 */
export function toFiles(records: Map<string, Poke[]>): SourceFile[] {
  const files: SourceFile[] = [];
  for (const kind of [...records.keys()].sort()) {
    const taken = new Set<string>();
    for (const record of records.get(kind)!) {
      const name = String(record.name);
      if (taken.has(name))
        throw new ImportRefused(`two ${kind} records are named ${name}: the source format names a file after its record`);
      taken.add(name);
      const text = jsyaml.dump(record, { schema: jsyaml.CORE_SCHEMA, lineWidth: -1, noRefs: true });
      files.push({ rel: path.join(kind, `${name}.yaml`), text });
    }
  }
  return files;
}

/** Writes the files into a new folder beside `out`, then renames it to `out`. */
export function writeFolder(out: string, files: SourceFile[], onFile?: () => void): void {
  const temp = `${out}.importing-${process.pid}`;
  fs.rmSync(temp, { recursive: true, force: true });
  try {
    const dirs = new Set(files.map((f) => path.dirname(f.rel)));
    for (const dir of dirs) fs.mkdirSync(path.join(temp, dir), { recursive: true });
    for (const file of files) {
      fs.writeFileSync(path.join(temp, file.rel), file.text);
      onFile?.();
    }
    if (fs.existsSync(out)) fs.rmdirSync(out); // empty, as checkOut found it
    fs.renameSync(temp, out);
  } catch (err) {
    fs.rmSync(temp, { recursive: true, force: true });
    throw err;
  }
}

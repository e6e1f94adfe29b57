// Stage 4, admit: each mapped record held to what the build takes of a source file, before anything
// is written. Its name becomes its file's name, so it must be a slug the build accepts, and unique
// in its kind; its file must be under the build's size limit; its record must pass its kind's
// source schema, with the build's own validators. A record that fails is refused with why; the
// records are then mapped again without it (import.ts), so that no other record names it.
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { isSlug, MAX_FILE_BYTES } from '../guard.mjs';
import { show } from '../report/hints.ts';
import type { Poke } from './kinds.ts';

const jsyaml = createRequire(import.meta.url)('js-yaml') as typeof import('js-yaml');

/** A file to write: its path inside `--out`, `<kind>/<name>.yaml`, and its text. */
export interface SourceFile {
  rel: string;
  text: string;
}

export interface Admitted {
  files: SourceFile[];
  /** The records refused, by id, with why. */
  refused: Array<{ id: number; why: string }>;
}

/** The files of a kind's mapped records that the build would take, and why each other one is refused. */
export function admit(kind: string, records: Poke[], check: ValidateFunction): Admitted {
  const out: Admitted = { files: [], refused: [] };
  const taken = new Set<string>();
  for (const record of records) {
    const file = fileOf(kind, record, check, taken);
    if ('why' in file) out.refused.push({ id: record.id, why: file.why });
    else {
      taken.add(record.name);
      out.files.push(file);
    }
  }
  return out;
}

function fileOf(kind: string, record: Poke, check: ValidateFunction, taken: Set<string>): SourceFile | { why: string } {
  const { name } = record;
  if (!isSlug(name)) return { why: nameRefused(name) };
  if (taken.has(name)) return { why: `its name "${name}" is taken by another ${kind}: a name names its file, so it is unique in its kind` };
  // YAML by js-yaml's core schema, as the build reads it: a string that looks like another type is
  // quoted; the same record gives the same bytes.
  const text = jsyaml.dump(record, { schema: jsyaml.CORE_SCHEMA, lineWidth: -1, noRefs: true });
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_FILE_BYTES) return { why: `its file would be ${bytes} bytes, over the build's limit of ${MAX_FILE_BYTES}` };
  // The validators fill in defaults: they are given a copy.
  if (!check(structuredClone(record))) return { why: `the build would refuse it: ${schemaError(check)}` };
  return { rel: `${kind}/${name}.yaml`, text };
}

/** Why a record of this name is refused. */
export const nameRefused = (name: unknown) =>
  `its name ${show(name)} is no name the build takes: a lowercase slug, not only digits, names its file`;

/** The validator's first complaint, where it stands in the record as written. */
function schemaError(check: ValidateFunction): string {
  const error = check.errors?.[0];
  if (!error) return 'it does not pass its schema';
  const where = error.instancePath || 'the record';
  if (error.keyword === 'required') {
    // Most often a reference the record must hold, to a record that was not imported.
    const field = (error.params as { missingProperty: string }).missingProperty;
    return `${where} has no "${field}", which the specification requires (a reference to a record not imported is left out)`;
  }
  return `${where} ${error.message}${error.keyword === 'type' ? `, not ${show(error.data)}` : ''}`;
}

// The importer: a PokeAPI static API (`<kind>/<id>/index.json`) into a data folder of this project's
// source format. Each stage takes a value and gives one; this function calls them in order.
import { loadSchemas } from '../schemas/schemas.ts';
import { checkAgreements, type Disagreement } from './agree.ts';
import type { Poke } from './kinds.ts';
import { Losses, type Loss } from './losses.ts';
import { mapRecord } from './map.ts';
import { prepareWorld } from './prepare.ts';
import { readSource, type Progress } from './read.ts';
import { checkOut, toFiles, writeFolder } from './write.ts';

export interface ImportOptions {
  from: string;
  out: string;
  /** Where the report goes: checked before anything is read, written by the command. */
  report: string;
  progress?: Progress;
}

export interface ImportResult {
  /** Records written, by our kind. */
  records: Record<string, number>;
  /** Records of kinds this API does not publish, by PokeAPI's kind name. */
  skipped: Record<string, number>;
  losses: Loss[];
  disagreements: Disagreement[];
  files: number;
  ms: number;
}

export function importWorld({ from, out, report, progress }: ImportOptions): ImportResult {
  const started = performance.now();
  checkOut(out, report);
  const schemas = loadSchemas();
  const { world, skipped } = readSource(from, new Set(schemas.kinds.keys()), progress);
  const disagreements = checkAgreements(world);
  const losses = new Losses();
  const prepared = prepareWorld(world, losses);
  const records = new Map<string, Poke[]>();
  for (const [kind, byId] of prepared) {
    const info = schemas.kinds.get(kind)!;
    records.set(
      kind,
      [...byId.values()].sort((a, b) => a.id - b.id).map((record) => mapRecord(kind, record, info, prepared, losses)),
    );
  }
  const files = toFiles(records);
  progress?.start('write', files.length);
  writeFolder(out, files, progress?.tick);
  return {
    records: Object.fromEntries([...records].sort(([a], [b]) => (a < b ? -1 : 1)).map(([kind, list]) => [kind, list.length])),
    skipped,
    losses: losses.list(),
    disagreements,
    files: files.length,
    ms: performance.now() - started,
  };
}

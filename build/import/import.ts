// The importer: a PokeAPI static API (`<kind>/<id>/index.json`) into a data folder of this project's
// source format. Each stage takes a value and gives one; this function calls them in order. What a
// stage refuses is left out and reported, and the rest is imported: a record refused once it is
// mapped is taken out and the records mapped again, so that none names it.
import { projectSchemas, type SchemaSet } from '../schemas/schemas.ts';
import { compileValidators, type ValidatorSet } from '../schemas/validators.ts';
import { isSlug } from '../guard.mjs';
import { jsonText } from '../report/problems.ts';
import { admit, nameRefused, type SourceFile } from './admit.ts';
import { checkAgreements, type Disagreement } from './agree.ts';
import { pause, type Poke, type Refusal, type World } from './kinds.ts';
import { CATEGORIES, Losses, type Loss } from './losses.ts';
import { mapRecord } from './map.ts';
import { prepareWorld } from './prepare.ts';
import { readSource, type Progress } from './read.ts';
import { writeFolder } from './write.ts';

export interface ImportOptions {
  from: string;
  out: string;
  /** The report's file, beside `out`: checked before anything is read (write.ts, checkOut). */
  report: string;
  progress?: Progress;
}

export interface ImportResult {
  /** Records written, by our kind. */
  records: Record<string, number>;
  /** Records of kinds this API does not publish, by PokeAPI's kind name. */
  skipped: Record<string, number>;
  /** What was not imported, and why: every file or record not taken, by its path in `--from`. */
  refused: Refusal[];
  losses: Loss[];
  disagreements: Disagreement[];
  files: number;
  ms: number;
}

export async function importWorld({ from, out, report, progress }: ImportOptions): Promise<ImportResult> {
  const started = performance.now();
  const schemas = projectSchemas();
  const validators = compileValidators(schemas).source;
  const source = await readSource(from, schemas, progress);
  const refused = [...source.refused];
  let world = source.world;
  let made = convert(world, schemas, validators);
  while (made.refused.length > 0) {
    await pause();
    refused.push(...made.refused.map(({ kind, id, why }) => ({ file: source.files.get(kind)!.get(id)!, why })));
    world = without(world, made.refused);
    made = convert(world, schemas, validators);
  }
  await pause();
  const disagreements = checkAgreements(world);
  const result: ImportResult = {
    records: made.records,
    skipped: source.skipped,
    refused: refused.sort((a, b) => a.file.localeCompare(b.file, 'en', { numeric: true })),
    losses: made.losses,
    disagreements,
    files: made.files.length,
    ms: 0,
  };
  progress?.start('write', made.files.length);
  await writeFolder(out, made.files, { report: { file: report, text: reportText(result, from, out) }, onFile: progress?.tick });
  return { ...result, ms: performance.now() - started };
}

interface Converted {
  files: SourceFile[];
  records: Record<string, number>;
  losses: Loss[];
  refused: Array<{ kind: string; id: number; why: string }>;
}

/**
 * Stages 2 to 4: the records read, prepared, mapped and admitted, by kind in name order and by id.
 * A record whose name cannot name a file is refused before any is mapped: a reference to it is
 * written as its name, and would carry the name into the records that make it.
 */
function convert(world: World, schemas: SchemaSet, validators: ValidatorSet): Converted {
  const losses = new Losses();
  const prepared = prepareWorld(world, losses);
  const out: Converted = { files: [], records: {}, losses: [], refused: unnamed(prepared) };
  if (out.refused.length > 0) return out;
  for (const kind of [...prepared.keys()].sort()) {
    const info = schemas.kinds.get(kind)!;
    const mapped = [...prepared.get(kind)!.values()].sort(byId).map((record) => mapRecord(kind, record, info, prepared, losses));
    const admitted = admit(kind, mapped, validators.get(kind)!);
    out.files.push(...admitted.files);
    out.refused.push(...admitted.refused.map((r) => ({ kind, ...r })));
    if (admitted.files.length) out.records[kind] = admitted.files.length;
  }
  out.losses = losses.list();
  return out;
}

const byId = (a: Poke, b: Poke) => a.id - b.id;

/** The records whose name is not one the build takes: it names the record's file. */
function unnamed(world: World): Converted['refused'] {
  return [...world].flatMap(([kind, records]) =>
    [...records.values()]
      .filter((record) => !isSlug(record.name))
      .map((record) => ({ kind, id: record.id, why: nameRefused(record.name) })),
  );
}

/** The world without the records refused. */
function without(world: World, refused: Array<{ kind: string; id: number }>): World {
  const out: World = new Map([...world].map(([kind, records]) => [kind, new Map(records)]));
  for (const { kind, id } of refused) out.get(kind)!.delete(id);
  return new Map([...out].filter(([, records]) => records.size > 0));
}

/** The report file: the summary's figures with every record each refusal, loss and disagreement touched. */
function reportText(result: ImportResult, from: string, out: string): string {
  const { records, skipped, refused, losses, disagreements, files } = result;
  const categories = Object.fromEntries(Object.entries(CATEGORIES).filter(([c]) => losses.some((l) => l.category === c)));
  // DEL, C1 and the bidirectional marks of a source's text written as escapes: the report is read in terminals too.
  return `${jsonText({ from, out, records, files, skipped, refused, categories, losses, disagreements })}\n`;
}

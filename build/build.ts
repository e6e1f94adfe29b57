// The pipeline: load → validate → resolve → derive → emit. Each stage is one module; this one
// calls them in order, with one context per build.
import { baseUrlFromEnv, checkBaseUrl } from './config.ts';
import { derive } from './derive.ts';
import { render, write } from './emit.ts';
import { loadFiles } from './load.ts';
import { defaultDataDir, defaultOutDir } from './paths.ts';
import { BuildFailed, Problems } from './problems.ts';
import { resolve } from './resolve.ts';
import { loadSchemas, type SchemaSet } from './schemas.ts';
import { compileValidators, validate, type Validators } from './validate.ts';

export interface BuildOptions {
  dataDir?: string;
  outDir?: string;
  baseUrl?: string;
  /** Check the data and write nothing. */
  check?: boolean;
  /** Indent the published JSON. */
  pretty?: boolean;
}

export interface BuildResult {
  records: Record<string, number>;
  files: number;
  bytes: number;
  ms: number;
}

let compiled: { schemas: SchemaSet; validators: Validators } | undefined;
/** The schemas are read and compiled once per process. */
export function schemaSet() {
  if (!compiled) {
    const schemas = loadSchemas();
    compiled = { schemas, validators: compileValidators(schemas) };
  }
  return compiled;
}

export async function build(options: BuildOptions = {}): Promise<BuildResult> {
  const started = performance.now();
  const dataDir = options.dataDir ?? defaultDataDir;
  const outDir = options.outDir ?? defaultOutDir;
  const baseUrl = options.baseUrl ? checkBaseUrl(options.baseUrl) : baseUrlFromEnv();
  const { schemas, validators } = schemaSet();
  const problems = new Problems();

  const files = await loadFiles(dataDir, problems);
  const store = validate(files, schemas, validators, baseUrl, problems);
  resolve(store, schemas, problems);
  derive(store, problems);
  const output = problems.count === 0 ? render(store, schemas, validators, problems, options.pretty) : new Map();
  if (problems.count > 0) throw new BuildFailed(problems.list);

  const records = Object.fromEntries(store.kinds().map((k) => [k, store.valid(k).length]));
  if (options.check) return { records, files: 0, bytes: 0, ms: performance.now() - started };
  const written = await write(outDir, output);
  return { records, ...written, ms: performance.now() - started };
}

// Stage 5: shape every record into its published bytes, check it against its response schema,
// and write the whole tree beside the output folder, swapping it in only when it is complete.
import fs from 'node:fs/promises';
import path from 'node:path';
import { mapLimit } from './load.ts';
import { apiPaths } from './paths.ts';
import type { Problems } from './problems.ts';
import type { SchemaSet } from './schemas.ts';
import { formSprites, renderFormSprite, renderTypeIcon, typeIcons } from './sprites.ts';
import type { Store } from './store.ts';
import type { Validators } from './validate.ts';
import { at } from './validate.ts';

export const NOT_FOUND_BODY = { detail: 'Not found.' };

/** Object keys sorted at every depth, so the same record always serialises to the same bytes. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
  return out;
}

export function serialise(value: unknown, pretty = false): string {
  return JSON.stringify(sortKeys(value), null, pretty ? 2 : undefined) + (pretty ? '\n' : '');
}

/** Every file of the output, by its path relative to the output folder. */
export function render(store: Store, schemas: SchemaSet, validators: Validators, problems: Problems, pretty = false): Map<string, string> {
  const files = new Map<string, string>();
  const index: Record<string, string> = {};
  for (const [kind, info] of schemas.kinds) {
    const check = validators.response.get(kind)!;
    const entries = store.valid(kind);
    for (const entry of entries) {
      if (!check(entry.data)) {
        for (const err of check.errors ?? []) {
          const pointer = err.instancePath;
          problems.add({ ...at(entry.file, pointer), kind, record: entry.name, pointer, message: `the published record would break its schema: ${err.message}` });
        }
        continue;
      }
      const body = serialise(entry.data, pretty);
      files.set(apiPaths.record(kind, entry.id), body);
      if (info.byName) files.set(apiPaths.record(kind, entry.name), body);
    }
    const list = { count: entries.length, next: null, previous: null, results: entries.map((e) => store.ref(e)) };
    files.set(apiPaths.list(kind), serialise(list, pretty));
    index[kind] = store.urls.list(kind);
  }
  files.set(apiPaths.index, serialise(index, pretty));
  files.set(apiPaths.notFound, serialise(NOT_FOUND_BODY, pretty));

  for (const type of store.valid('type')) {
    for (const icon of typeIcons(store, type)) files.set(icon.path, renderTypeIcon(type, icon.versionGroup));
  }
  for (const form of store.valid('creature-form')) {
    const typeNames = (form.data.types ?? [])
      .slice()
      .sort((a: { slot: number }, b: { slot: number }) => a.slot - b.slot)
      .map((t: { type: { name: string } }) => t.type.name);
    for (const sprite of formSprites(store, form)) {
      if (sprite.path) files.set(sprite.path, renderFormSprite(form, typeNames, sprite.variant));
    }
  }
  return files;
}

/** Folders the build keeps beside the output folder: the tree being written and the one replaced. */
export function sideFolders(outDir: string) {
  const parent = path.dirname(outDir);
  const base = path.basename(outDir);
  return { next: path.join(parent, `.${base}-next`), old: path.join(parent, `.${base}-old`) };
}

/** Puts back the last good output if a build stopped between its two renames. */
export async function recover(outDir: string): Promise<void> {
  const { old } = sideFolders(outDir);
  if (!(await exists(outDir)) && (await exists(old))) await fs.rename(old, outDir);
}

export async function write(outDir: string, files: Map<string, string>): Promise<{ files: number; bytes: number }> {
  await recover(outDir);
  const { next, old } = sideFolders(outDir);
  await fs.rm(next, { recursive: true, force: true });
  const dirs = new Set<string>();
  for (const rel of files.keys()) dirs.add(path.posix.dirname(rel));
  await fs.mkdir(next, { recursive: true });
  await mapLimit([...dirs].sort(), 16, (dir) => fs.mkdir(path.join(next, dir), { recursive: true }).then(() => {}));
  let bytes = 0;
  await mapLimit([...files.keys()], 64, async (rel) => {
    const body = files.get(rel)!;
    bytes += Buffer.byteLength(body);
    await fs.writeFile(path.join(next, rel), body);
  });
  await fs.rm(old, { recursive: true, force: true });
  if (await exists(outDir)) await fs.rename(outDir, old);
  await fs.rename(next, outDir);
  await fs.rm(old, { recursive: true, force: true });
  return { files: files.size, bytes };
}

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(
    () => true,
    () => false,
  );
}


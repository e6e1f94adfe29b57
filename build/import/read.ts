// Stage 1, read: PokeAPI's static layout, `<kind>/<id>/index.json`, into records by our kind and id.
// Only the kinds this project publishes are parsed; the others are counted, by PokeAPI's name.
import fs from 'node:fs';
import path from 'node:path';
import { ImportRefused, ourName, type Poke, type World } from './kinds.ts';

export interface Source {
  world: World;
  /** Records of kinds this project does not publish, by PokeAPI's kind name. */
  skipped: Record<string, number>;
}

/** The record folders of a kind folder: those named by an id. */
const idFolders = (dir: string): string[] =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && /^\d+$/.test(e.name))
    .map((e) => e.name)
    .sort((a, b) => Number(a) - Number(b));

/** Where a stage is: told its total once, then each step done. */
export interface Progress {
  start(stage: string, total: number): void;
  tick(): void;
}

export function readSource(from: string, published: ReadonlySet<string>, progress?: Progress): Source {
  if (!fs.existsSync(from) || !fs.statSync(from).isDirectory()) throw new ImportRefused(`--from ${from}: no such folder`);
  const world: World = new Map();
  const skipped: Record<string, number> = {};
  const kinds = fs
    .readdirSync(from, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const wanted: Array<[string, string, string[]]> = [];
  for (const pokeKind of kinds) {
    const ids = idFolders(path.join(from, pokeKind));
    if (ids.length === 0) continue;
    if (published.has(ourName(pokeKind))) wanted.push([pokeKind, ourName(pokeKind), ids]);
    else skipped[pokeKind] = ids.length;
  }
  const total = wanted.reduce((n, [, , ids]) => n + ids.length, 0);
  progress?.start('read', total);
  for (const [pokeKind, kind, ids] of wanted) {
    const records = new Map<number, Poke>();
    for (const id of ids) {
      records.set(Number(id), readRecord(path.join(from, pokeKind, id, 'index.json'), Number(id)));
      progress?.tick();
    }
    world.set(kind, records);
  }
  if (world.size === 0) throw new ImportRefused(`--from ${from}: no PokeAPI records of a kind this API publishes (<kind>/<id>/index.json)`);
  return { world, skipped };
}

function readRecord(file: string, id: number): Poke {
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ImportRefused(`${file}: ${(err as Error).message}`);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new ImportRefused(`${file}: not a record (a JSON object)`);
  if ((data as Poke).id !== id) throw new ImportRefused(`${file}: its id is ${(data as Poke).id}, its folder says ${id}`);
  return data as Poke;
}

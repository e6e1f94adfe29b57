// Seeded random mutations of valid records. Whatever the mutation, the build either reports
// problems (BuildFailed) or publishes records that all conform to their schemas, and it writes
// nothing outside its output. FUZZ_RUNS and FUZZ_SEED make a longer or different run on demand.
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse as parseYaml, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { build } from '../build/pipeline/build.ts';
import { BuildFailed } from '../build/report/problems.ts';
import { loadSchemas, stripAnnotations } from '../build/schemas/schemas.ts';
import { BASE, fixtureWorld, listFiles } from './helpers.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)]!;
  return { next, int, pick };
}

const JUNK: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  2 ** 31,
  -(2 ** 31) - 1,
  1e308,
  '',
  ' ',
  'fire',
  'Fire',
  '12',
  '../x',
  'a/b',
  'a\\b',
  '%2e',
  'x\u0000y',
  'ｆｉｒｅ',
  'fіre',
  'a'.repeat(201),
  [],
  [[]],
  {},
  { name: 'x' },
  ['fire'],
  { __proto__: null },
];
const KEYS = ['__proto__', 'constructor', 'prototype', 'nmae', 'id', 'name', 'url', 'damage_relations', 'x-ref', ''];
const CHARS = [':', '-', '[', ']', '{', '}', '&', '*', '!', '|', '>', "'", '"', '\t', '\n', '#', '%', '@', '`', '\u0000', '\uFEFF', '\r'];

/** Every (container, key) place inside a value. */
function places(value: unknown, out: Array<[any, string | number]> = []): Array<[any, string | number]> {
  if (value && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      const k = Array.isArray(value) ? Number(key) : key;
      out.push([value, k]);
      places((value as any)[k], out);
    }
  }
  return out;
}

/** One mutation of a record's text: structural (through the parsed value) or raw. */
function mutate(text: string, r: ReturnType<typeof random>, names: string[]): string {
  const kind = r.int(8);
  if (kind <= 4) {
    let value: any;
    try {
      value = JSON.parse(JSON.stringify(parseYaml(text)));
    } catch {
      return text + '\n:';
    }
    const spots = places(value);
    if (spots.length === 0) return text;
    const [holder, key] = r.pick(spots);
    if (kind === 0) {
      if (Array.isArray(holder)) holder.splice(key as number, 1);
      else delete holder[key];
    } else if (kind === 1) holder[key] = structuredClone(r.pick(JUNK));
    else if (kind === 2)
      Object.defineProperty(holder, r.pick(KEYS), { value: r.pick(JUNK), enumerable: true, configurable: true, writable: true });
    else if (kind === 3) holder[key] = r.pick(names);
    else holder[key] = typeof holder[key] === 'number' ? holder[key] + r.pick([-1, 1, 1000, -1000]) : r.int(100);
    return r.next() < 0.5 ? stringify(value) : JSON.stringify(value);
  }
  const at = r.int(text.length + 1);
  if (kind === 5) return text.slice(0, at);
  if (kind === 6) return text.slice(0, at) + r.pick(CHARS).repeat(1 + r.int(3)) + text.slice(at);
  const lines = text.split('\n');
  const i = r.int(lines.length);
  const j = r.int(lines.length);
  [lines[i], lines[j]] = [lines[j]!, lines[i]!];
  return lines.join('\n');
}

describe('fuzz', () => {
  it(`${RUNS} mutated worlds (seed ${SEED}): no crash, nothing invalid published, nothing written outside`, async () => {
    const w = await fixtureWorld();
    const files = (await listFiles(w.data)).filter((f) => /\.ya?ml$/.test(f));
    const names = files.map((f) => path.basename(f, path.extname(f)));
    const schemas = loadSchemas();
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    for (const doc of schemas.documents.values()) ajv.addSchema(stripAnnotations(doc));
    const rootBefore = fs.readdirSync(w.root).sort();
    const r = random(SEED);
    let failed = 0;
    let published = 0;
    for (let i = 0; i < RUNS; i++) {
      const rel = r.pick(files);
      const file = path.join(w.data, rel);
      const original = fs.readFileSync(file, 'utf8');
      const mutated = mutate(original, r, names);
      // Sometimes the mutation arrives as JSON beside the YAML; usually it replaces the file.
      const asJson = mutated.startsWith('{') && r.next() < 0.3;
      const target = asJson ? file.replace(/\.ya?ml$/, '.json') : file;
      fs.writeFileSync(target, mutated);
      try {
        // Most runs check only; every 25th, and every one that passes the check, is published.
        const check = await build({ dataDir: w.data, outDir: w.out, baseUrl: BASE, check: true }).then(
          () => true,
          (err) => {
            if (err instanceof BuildFailed) return false;
            throw new Error(`run ${i} (${rel}) crashed: ${(err as Error).stack}\n--- mutated text ---\n${mutated}`);
          },
        );
        if (!check) failed++;
        if (check || i % 25 === 0) {
          const ok = await build({ dataDir: w.data, outDir: w.out, baseUrl: BASE }).then(
            () => true,
            (err) => {
              if (err instanceof BuildFailed) return false;
              throw new Error(`run ${i} (${rel}) crashed while writing: ${(err as Error).stack}`);
            },
          );
          expect(ok, `run ${i}: check and build disagree`).toBe(check);
          if (ok) {
            published++;
            for (const out of await listFiles(w.out)) {
              const m = /^api\/v2\/([a-z-]+)\/[^/]+\/index\.json$/.exec(out);
              if (!m) continue;
              const validate = ajv.getSchema(`${m[1]}.json`)!;
              const record = JSON.parse(fs.readFileSync(path.join(w.out, out), 'utf8'));
              expect(
                validate(record),
                `run ${i} (${rel}) published an invalid ${out}: ${JSON.stringify(validate.errors)}\n${mutated}`,
              ).toBe(true);
            }
          }
        }
      } finally {
        if (asJson) fs.rmSync(target, { force: true });
        fs.writeFileSync(file, original);
      }
    }
    console.info(
      `fuzz: ${RUNS} runs, seed ${SEED}: ${failed} reported problems, ${RUNS - failed} passed the check, ${published} published and verified`,
    );
    expect(failed).toBeGreaterThan(RUNS / 4);
    expect(published).toBeGreaterThan(10);
    // Nothing appeared beside the data but the output and the trees it links to.
    const added = fs
      .readdirSync(w.root)
      .filter((f) => !rootBefore.includes(f))
      .sort();
    expect(added).toEqual(['.dist-builds', 'dist']);
  }, 600_000);
});

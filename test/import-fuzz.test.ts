// Seeded random damage to PokeAPI records (wrong types, nulls, deep nesting, odd names, keys of
// JavaScript's machinery, broken JSON), imported by the real command. Whatever the damage, the
// import ends without a stack trace, writes nothing outside --out but its report, writes every
// record it read or lists it as refused, with why, and writes only what the build takes.
// IMPORT_FUZZ_RUNS and IMPORT_FUZZ_SEED make a longer or different run on demand.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { isSlug } from '../build/guard.mjs';
import { ourName } from '../build/import/kinds.ts';
import { projectSchemas } from '../build/schemas/schemas.ts';
import { command, expectNoTrace, outsideOut, pokeWorld, readReport, said, tree, FIXTURE } from './import-run.ts';

const RUNS = Number(process.env.IMPORT_FUZZ_RUNS ?? 8);
const SEED = Number(process.env.IMPORT_FUZZ_SEED ?? 20261128);
/** Records damaged in each run: enough that refusals meet (a record naming one refused), few enough that most are imported. */
const DAMAGED_PER_RUN = 6;

const jsyaml = createRequire(import.meta.url)('js-yaml') as typeof import('js-yaml');

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
type Random = ReturnType<typeof random>;

const JUNK: unknown[] = [null, true, 0, -1, 1.5, 2 ** 31, 1e308, '', 'x', '12', [], [null], [[]], {}, { name: 'x' }, { url: 7 }];
const NAMES = [
  '../../x',
  '..',
  '',
  '.hidden',
  'a/b',
  'a\\b',
  'x\u0000y',
  'FIRE!',
  'Fire',
  '12',
  'a'.repeat(201),
  'ｆｉｒｅ',
  'a--',
  'constructor',
  '__proto__',
  7,
  null,
];
const MACHINERY = ['__proto__', 'constructor', 'prototype'];
/** Nesting depths: about the build's limit, and far past it. */
const DEPTHS = [31, 33, 1000, 200_000];
/** Stands for a deeply nested value in a record until its text is made (JSON.stringify would recurse). */
const DEEP = '\u0001deep\u0001';

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

/** One damage to a record's text, named for the failure message. */
function damage(text: string, r: Random, names: string[]): [string, string] {
  const record = JSON.parse(text);
  const all = places(record);
  const [holder, key] = all.length ? r.pick(all) : [record, 'name'];
  const objects = [record, ...all.map(([h, k]) => h[k]).filter((v) => v && typeof v === 'object' && !Array.isArray(v))];
  switch (r.int(9)) {
    case 0:
      holder[key] = structuredClone(r.pick(JUNK));
      return [`${String(key)} = junk`, JSON.stringify(record)];
    case 1:
      record.name = r.pick([...NAMES, r.pick(names)]);
      return [`name = ${JSON.stringify(record.name)}`, JSON.stringify(record)];
    case 2: {
      const depth = r.pick(DEPTHS);
      holder[key] = DEEP;
      return [
        `${String(key)} nested ${depth} deep`,
        JSON.stringify(record).replace(JSON.stringify(DEEP), `${'['.repeat(depth)}${']'.repeat(depth)}`),
      ];
    }
    case 3: {
      const machinery = r.pick(MACHINERY);
      // Made an own key, as JSON.parse makes it, so that JSON.stringify writes it.
      Object.defineProperty(r.pick(objects), machinery, { value: { polluted: 'yes' }, enumerable: true });
      return [`key ${machinery}`, JSON.stringify(record)];
    }
    case 4:
      if (Array.isArray(holder)) holder.splice(Number(key), 1);
      else delete holder[key];
      return [`${String(key)} removed`, JSON.stringify(record)];
    case 5:
      holder[key] = r.next() < 0.5 ? [holder[key]] : { value: holder[key] };
      return [`${String(key)} wrapped`, JSON.stringify(record)];
    case 6:
      record.id = r.pick([record.id + 1, -1, 0, String(record.id), null, 1.5]);
      return [`id = ${JSON.stringify(record.id)}`, JSON.stringify(record)];
    case 7:
      return ['cut short', text.slice(0, r.int(text.length))];
    default:
      return ['not a record', r.pick(['[]', 'null', '"x"', '1', '', '\uFEFF{}'])];
  }
}

/** Every record folder of a published kind in `from`, as `<our kind>/<id>`, with its file. */
function recordsIn(from: string): Map<string, string> {
  const kinds = projectSchemas().kinds;
  const out = new Map<string, string>();
  for (const pokeKind of fs.readdirSync(from)) {
    if (!kinds.has(ourName(pokeKind))) continue;
    for (const id of fs.readdirSync(path.join(from, pokeKind))) out.set(`${ourName(pokeKind)}/${id}`, `${pokeKind}/${id}/index.json`);
  }
  return out;
}

/** Each file the import wrote, as `<kind>/<id>`, having checked that its path is `<kind>/<slug>.yaml`. */
function writtenRecords(out: string): string[] {
  if (!fs.existsSync(out)) return [];
  return [...tree(out)]
    .filter(([, what]) => what !== 'folder')
    .map(([rel]) => {
      const [kind, file, ...rest] = rel.split('/');
      expect(rest, rel).toEqual([]);
      expect(file!.endsWith('.yaml') && isSlug(file!.slice(0, -'.yaml'.length)), rel).toBe(true);
      const record = jsyaml.load(fs.readFileSync(path.join(out, rel), 'utf8')) as { id: number };
      return `${kind}/${record.id}`;
    });
}

describe('import fuzzing', () => {
  it(
    `imports ${RUNS} damaged PokeAPI worlds: no stack trace, nothing outside --out, every record written or refused with why`,
    async () => {
      const r = random(SEED);
      const fixtureRecords = [...recordsIn(FIXTURE).values()];
      const names = fixtureRecords.map((file) => JSON.parse(fs.readFileSync(path.join(FIXTURE, file), 'utf8')).name).filter(Boolean);
      for (let run = 0; run < RUNS; run++) {
        const { dir, from, out } = await pokeWorld('crs-import-fuzz-');
        const done: string[] = [];
        const chosen = new Set<string>();
        while (chosen.size < DAMAGED_PER_RUN) chosen.add(r.pick(fixtureRecords));
        for (const record of chosen) {
          const file = path.join(from, record);
          const [what, text] = damage(fs.readFileSync(file, 'utf8'), r, names);
          fs.writeFileSync(file, text);
          done.push(`${path.relative(from, file)}: ${what}`);
        }
        const label = `run ${run} (seed ${SEED}):\n  ${done.join('\n  ')}`;
        const before = outsideOut(dir, out);

        const ran = await command('import', ['--from', from, '--out', out]);
        expectNoTrace(ran);
        expect([0, 1], `${label}\n${ran.stderr}`).toContain(ran.code);
        expect(outsideOut(dir, out), label).toEqual(before);

        // Every record read is written, or refused with why; none both.
        const report = readReport(out);
        const refused = new Map<string, string>(report.refused.map((x: { file: string; why: string }) => [x.file, x.why]));
        for (const why of refused.values()) expect(why, label).toMatch(/\w/);
        const written = writtenRecords(out);
        expect(new Set(written).size, label).toBe(written.length);
        const expected = recordsIn(from);
        const missing = [...expected].filter(([record, file]) => !written.includes(record) && !refused.has(file));
        expect(missing, label).toEqual([]);
        const both = [...expected].filter(([record, file]) => written.includes(record) && refused.has(file));
        expect(both, label).toEqual([]);
        expect(ran.code, label).toBe(refused.size > 0 ? 1 : 0);
        expect(said(ran.stderr), label).toHaveLength(refused.size > 0 ? 1 : 0);

        // What was written, the build takes.
        if (written.length > 0) {
          const built = await command('build', ['--data', out, '--check']);
          expect(built.stderr + built.stdout, label).toMatch(/no problems/);
        }
      }
    },
    Math.max(120_000, RUNS * 15_000),
  );
});

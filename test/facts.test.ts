// Each derivation names the fields it reads, and a rebuild trusts that: records that did not change
// take part through those fields alone (build/facts.ts). Here every derivation is run with nothing
// but its declared fields of every record, and must give what it gives with the full records.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { schemaSet } from '../build/pipeline/build.ts';
import { derivations } from '../build/pipeline/derive.ts';
import { serialise } from '../build/pipeline/serialise.ts';
import { factsKept, reuse } from '../build/pipeline/facts.ts';
import { formatMemory, parseMemory } from '../build/incremental/memory.ts';
import { discover } from '../build/pipeline/discover.ts';
import { defaultDataDir } from '../build/paths.ts';
import { Problems } from '../build/report/problems.ts';
import { resolve } from '../build/pipeline/resolve.ts';
import { Store, type Data, type Entry } from '../build/store.ts';
import { validate } from '../build/pipeline/check-pool.ts';
import { readUnhashed } from '../build/pipeline/parse.ts';
import { readLive } from '../build/output/slots.ts';
import { BASE, buildWorld, fixturesDir, fixtureWorld, tempDir } from './helpers.ts';

/**
 * The records of a world as their schemas leave them: checked and defaulted, not yet resolved, and
 * set aside with their facts alone (facts.ts), or, with `whole`, whole again.
 */
async function checked(dataDir: string, whole = false): Promise<Store> {
  const { schemas, validators } = schemaSet();
  const problems = new Problems();
  const files = discover(dataDir, problems);
  const store = await validate(files, schemas, () => validators, BASE, problems, false);
  expect(problems.list).toEqual([]);
  if (whole) for (const kind of store.kinds()) for (const entry of store.valid(kind)) entry.data = JSON.parse(entry.source!);
  return store;
}

/** A copy of `store`, resolved, whose records hold only the fields `pick(kind)` names (all without `pick`). */
function projected(store: Store, pick?: (kind: string) => readonly string[]): Store {
  const out = new Store(store.baseUrl, store.kinds());
  for (const kind of store.kinds()) {
    for (const entry of store.valid(kind)) {
      const data: Data = {};
      for (const field of pick ? pick(kind) : Object.keys(entry.data))
        if (entry.data[field] !== undefined) data[field] = structuredClone(entry.data[field]);
      out.add({ ...entry, data });
    }
  }
  out.seal();
  resolve(out, schemaSet().schemas, new Problems());
  return out;
}

const worlds = [
  ['the shipped world', defaultDataDir],
  ['the starter fixture', path.join(fixturesDir, 'starter')],
] as const;

describe.each(worlds)('in %s, each derivation', (_, dataDir) => {
  it('gives the same with only the fields it declares as with whole records, and for the records picked alone', async () => {
    const source = await checked(dataDir, true);
    let compared = 0;
    for (const [key, derivation] of Object.entries(derivations)) {
      if (!derivation.run) continue;
      const [kind, field] = key.split('.') as [string, string];
      const facts = projected(source, (k) => derivation.reads[k] ?? []);
      const whole = projected(source);
      // A rebuild fills in only the records it read again (derive's `only`): here, every second one.
      const some = projected(source, (k) => derivation.reads[k] ?? []);
      const picked = (e: { id: number }) => e.id % 2 === 0;
      derivation.run({ store: facts, problems: new Problems(), filled: (k) => facts.valid(k) });
      derivation.run({ store: whole, problems: new Problems(), filled: (k) => whole.valid(k) });
      derivation.run({ store: some, problems: new Problems(), filled: (k) => some.valid(k).filter(picked) });
      for (const entry of whole.valid(kind)) {
        const want = serialise(entry.data[field] ?? null);
        expect(serialise(facts.get(kind, entry.id)!.data[field] ?? null), `${key} of ${entry.name}`).toBe(want);
        if (picked(entry)) expect(serialise(some.get(kind, entry.id)!.data[field] ?? null), `${key} of ${entry.name}, picked`).toBe(want);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(100);
  });
});

describe('what a build remembers', () => {
  it('reads back as written, and a damaged line reads as nothing remembered', async () => {
    const store = await checked(path.join(fixturesDir, 'starter'));
    const text = formatMemory(store).join('');
    const memory = parseMemory(text, 0)!;
    const records = store.kinds().flatMap((k) => store.valid(k));
    expect(memory.size).toBe(records.length);
    for (const e of records) expect(memory.get(e.file.rel)).toMatchObject({ hash: e.file.hash, id: e.id, derived: '', facts: e.facts });
    // A record whose file is unchanged, derived as before, has the line it had, taken from the text
    // it was read from; the others are written anew. The same text either way.
    for (const e of records.slice(0, -1)) {
      e.file.known = memory.get(e.file.rel);
      e.derived = '';
    }
    expect(formatMemory(store).join('')).toBe(text);
    const [line] = text.split('\n');
    records[0]!.file.known = { ...records[0]!.file.known!, text: '#'.repeat(text.length) };
    expect(formatMemory(store).join('')).toBe(text.replace(`${line}\n`, '#'.repeat(line!.length + 1)));
    // Read from where the manifest's `r` lines start.
    const after = parseMemory(`f\tx\th\n${text}`, 'f\tx\th\n'.length)!;
    expect([...after.keys()]).toEqual([...memory.keys()]);
    expect(parseMemory(text.slice(0, -1), 0)).toBeUndefined();
    expect(parseMemory(text.slice(0, text.indexOf('\n') + 20), 0)).toBeUndefined();
    expect(parseMemory(text.replace(/^(r\t[^\t\n]*\t[^\t\n]*)\t[^\n]*\n/, '$1\n'), 0)).toBeUndefined();
    expect(parseMemory(text.replace(/^r\t/, 'x\t'), 0)).toBeUndefined();
  });
});

describe('a rebuild', () => {
  it('knows when every record keeps the facts it had: then only the kinds read again are derived', async () => {
    const w = await fixtureWorld();
    await buildWorld({ dataDir: w.data, outDir: w.out });
    const live = (await readLive(w.out)).manifest!;
    const memory = live.memory()!;
    const { schemas, validators } = schemaSet();
    /** What a rebuild of the built data, changed by `change` in a copy, finds. */
    const keptAfter = async (change: (data: string) => void) => {
      const data = path.join(await tempDir(), 'data');
      fs.cpSync(w.data, data, { recursive: true });
      change(data);
      const problems = new Problems();
      const files = discover(data, problems, live.sources);
      readUnhashed(files);
      const read = reuse(files, memory, schemas, problems);
      const store = await validate(files, schemas, () => validators, BASE, problems, false);
      expect(problems.list).toEqual([]);
      return factsKept(store, files, memory, read);
    };
    const edit = (file: string, from: RegExp, to: string) => (data: string) => {
      const text = fs.readFileSync(path.join(data, file), 'utf8');
      expect(text).toMatch(from);
      fs.writeFileSync(path.join(data, file), text.replace(from, to));
    };
    expect(await keptAfter(() => {})).toBe(true);
    expect(await keptAfter((data) => fs.appendFileSync(path.join(data, 'type/fire.yaml'), '# hot\n'))).toBe(true);
    // A move's power: no derivation reads it.
    expect(await keptAfter(edit('move/quick-strike.yaml', /^power: 95$/m, 'power: 90'))).toBe(true);
    // Its type: the types' lists of moves are derived from it.
    expect(await keptAfter(edit('move/quick-strike.yaml', /^type: normal$/m, 'type: fire'))).toBe(false);
    expect(await keptAfter(edit('version/dawn.yaml', /^id: 1$/m, 'id: 7'))).toBe(false);
    const added = (data: string) => fs.writeFileSync(path.join(data, 'item/amber-charm.yaml'), 'id: 50\nname: amber-charm\n');
    expect(await keptAfter(added)).toBe(false);
    expect(await keptAfter((data) => fs.rmSync(path.join(data, 'characteristic/likes-to-run.yaml')))).toBe(false);
  });
});

describe('the store', () => {
  it('finds the record a NamedRef points at, whether the store made the ref or it was read back', () => {
    const store = new Store(BASE, ['type', 'stat']);
    const entry = (kind: string, id: number, name: string): Entry => ({
      kind,
      id,
      name,
      file: { rel: `${kind}/${name}.yaml`, abs: '', kind, stem: name, size: 0, mtimeMs: 0 },
      data: { id, name },
      valid: true,
    });
    const fire = entry('type', 10, 'fire');
    const speed = entry('stat', 6, 'speed');
    store.add(fire);
    store.add(speed);
    const ref = store.ref(fire);
    expect(store.ref(fire)).toBe(ref);
    expect(store.target(ref)).toBe(fire);
    // The same reference read back from JSON: found by its url.
    expect(store.target(JSON.parse(JSON.stringify(ref)))).toBe(fire);
    expect(store.target({ name: 'speed', url: `${BASE}/api/v2/stat/6/` })).toBe(speed);
    expect(store.target({ name: 'fire', url: `${BASE}/api/v2/type/11/` })).toBeUndefined();
    expect(store.target({ name: 'fire', url: 'https://elsewhere.example/api/v2/type/10/' })).toBeUndefined();
    expect(store.target(null)).toBeUndefined();
  });
});

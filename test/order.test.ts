// The order kinds are read and published in (order.ts): kinds that take nothing from other records
// but their ids and names are read late, as they are published, after every other kind's files.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { crossDerived, derivations } from '../build/pipeline/derive.ts';
import { readLive } from '../build/output/trees.ts';
import { publishOrder } from '../build/pipeline/order.ts';
import { kindsOf, loadSchemas } from '../build/schemas/schemas.ts';
import { buildProblems, buildWorld, fixturesDir, fixtureWorld, overlayBad } from './helpers.ts';

const schemas = loadSchemas();
const order = publishOrder(schemas);
/** The kind of a record's file or a kind's list. */
const kindOfPath = (rel: string) => /^api\/v2\/([^/]+)\/(?:(?:[^/]+\/)?index\.json|all\.ndjson)$/.exec(rel)?.[1];

describe('the order of kinds', () => {
  it('reads late the location areas, the bulk of a world, and publishes locations after them', () => {
    expect(order.late).toContain('location-area');
    expect(order.after).toContain('location');
    expect([...order.early, ...order.late, ...order.after].sort()).toEqual([...schemas.kinds.keys()].sort());
  });

  it('reads late only kinds that no record names and that have no field derived across records', () => {
    for (const kind of order.late) {
      expect(crossDerived(kind), kind).toEqual([]);
      for (const info of schemas.kinds.values()) {
        for (const site of info.refSites) {
          const targets = kindsOf(site);
          // Only a field the build derives entirely may point at a late kind.
          if (targets.includes(kind)) expect(info.derived, `${info.kind} ${site.path.join('.')}`).toContain(site.path[0]);
        }
      }
    }
    // Every kind with a field derived from a late (or after) kind's records comes after them.
    for (const [key, derivation] of Object.entries(derivations)) {
      const kind = key.slice(0, key.indexOf('.'));
      if (derivation.own) continue;
      const reads = Object.keys(derivation.reads);
      if (reads.some((k) => order.late.includes(k) || order.after.includes(k))) expect(order.after, key).toContain(kind);
    }
  });

  it("publishes the late kinds' records after every other kind's files, and the kinds derived from them last", async () => {
    const w = await fixtureWorld();
    await buildWorld({ dataDir: w.data, outDir: w.out });
    const files = [...(await readLive(w.out)).manifest!.files()!.keys()];
    const phase = (rel: string) => {
      const kind = kindOfPath(rel) ?? '';
      return order.late.includes(kind) ? 1 : order.after.includes(kind) ? 2 : 0;
    };
    const phases = files.map(phase);
    expect(phases).toEqual([...phases].sort());
    expect(files.filter((rel) => kindOfPath(rel) === 'location-area')).toHaveLength(3 + 2); // the areas, their list and their NDJSON file
  });

  it('reports the problems of late records with the others, in a first build and a rebuild', async () => {
    const w = await fixtureWorld();
    overlayBad(w, 'unknown-field'); // found while the sources are checked
    overlayBad(w, 'wrong-kind-reference'); // found when the record is read whole, to be published
    overlayBad(w, 'late-missing-reference'); // found while reading a late record
    const files = (problems: { file: string }[]) => [...new Set(problems.map((p) => p.file))].sort();
    const expected = ['data/gender/female.yaml', 'data/location-area/ember-peak-summit.yaml', 'data/version/dawn.yaml'];
    expect(files(await buildProblems({ dataDir: w.data, outDir: w.out }))).toEqual(expected);
    expect(fs.readdirSync(w.root)).toEqual(['data']);
    // And when the last good build is there to remember, with no problem but the late one.
    fs.rmSync(w.data, { recursive: true });
    fs.cpSync(path.join(fixturesDir, 'starter'), w.data, { recursive: true });
    await buildWorld({ dataDir: w.data, outDir: w.out });
    overlayBad(w, 'late-missing-reference');
    expect(files(await buildProblems({ dataDir: w.data, outDir: w.out }))).toEqual([expected[1]]);
  });
});

// The same input gives the same bytes, whatever the file system's listing order or the clock.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildWorld, fixtureWorld, snapshot } from './helpers.ts';

describe('determinism', () => {
  it('two builds of the same data give identical trees', async () => {
    const a = await fixtureWorld();
    const b = await fixtureWorld();
    // The second copy is written in reverse order and with other timestamps.
    fs.rmSync(b.data, { recursive: true });
    const files = fs.readdirSync(a.data, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    for (const e of files.reverse()) {
      const rel = path.relative(a.data, path.join(e.parentPath, e.name));
      fs.mkdirSync(path.dirname(path.join(b.data, rel)), { recursive: true });
      fs.copyFileSync(path.join(a.data, rel), path.join(b.data, rel));
    }
    await buildWorld({ dataDir: a.data, outDir: a.out });
    await buildWorld({ dataDir: b.data, outDir: b.out });
    const first = await snapshot(a.out);
    expect(first.size).toBeGreaterThan(200);
    // Every folder holds a file: none is made for a path the build does not publish.
    expect([...first.keys()].filter((rel) => rel.endsWith('/'))).toEqual([]);
    expect(await snapshot(b.out)).toEqual(first);
    await buildWorld({ dataDir: a.data, outDir: a.out });
    expect(await snapshot(a.out)).toEqual(first);
  });

  it('puts BASE_URL into every url', async () => {
    const w = await fixtureWorld();
    await buildWorld({ dataDir: w.data, outDir: w.out, baseUrl: 'https://creatures.example.org/' });
    const text = fs.readFileSync(path.join(w.out, 'api/v2/type/fire/index.json'), 'utf8');
    expect(text).toContain('"url":"https://creatures.example.org/api/v2/generation/1/"');
    expect(text).not.toContain('localhost');
  });
});

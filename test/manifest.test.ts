// A tree's manifest reads back as it was written, whatever its paths hold, and a damaged one reads
// as no manifest at all (its tree is then built again from nothing).
import { describe, expect, it } from 'vitest';
import { formatManifest, parseManifest } from '../build/manifest.ts';

const written = {
  key: 'k1',
  tool: 't1',
  records: { type: 2 },
  previous: 'k0',
  sources: [
    ['data/type/fire.yaml', [120, 1700000000123.456, 'h1']],
    ['data/type/odd\tname.yaml', [7, 1, 'h2']],
    ['"quoted".yaml', [0, 0, 'h3']],
  ] as Array<[string, [number, number, string]]>,
  diff: new Map([
    ['api/v2/type/1/index.json', '10.x'],
    ['gone\nline.json', ''],
  ]),
  files: new Map([
    ['api/v2/type/1/index.json', '12.a'],
    ['api/v2/type/fire/index.json', '12.a'],
    ['odd\tpath.svg', '3.b'],
  ]),
};

describe('manifests', () => {
  it('read back as written, paths with tabs, newlines and quotes included', () => {
    const m = parseManifest(formatManifest(written))!;
    expect(m).toMatchObject({ key: 'k1', tool: 't1', records: { type: 2 }, fileCount: 3, previous: 'k0' });
    expect([...m.sources]).toEqual(written.sources);
    expect(m.diff).toEqual(written.diff);
    expect([...m.files()!]).toEqual([...written.files]);
  });

  it('read as nothing when damaged', () => {
    const text = formatManifest(written);
    expect(parseManifest(text.replace('"format":"manifest 2"', '"format":"manifest 1"'))).toBeUndefined();
    expect(parseManifest(text.replace('\ns\t', '\nx\t'))).toBeUndefined();
    expect(parseManifest(text.replace(/\ns\t([^\n]*)\t[^\t\n]*\n/, '\ns\t$1\n'))).toBeUndefined();
    expect(parseManifest(text.split('\n')[0]!)).toBeUndefined();
    // The list of files is read when asked for, and a damaged one is no list.
    const cut = parseManifest(text.replace(/\nf\t[^\n]*\n$/, '\nf\n'))!;
    expect(cut.sources.size).toBe(3);
    expect(cut.files()).toBeUndefined();
  });
});

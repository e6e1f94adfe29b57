// `npm run diff`: what a data change does to the published API. Fixture worlds are built into temp
// folders, edited, built again and compared; the command runs as users run it, against a built
// folder (against a revision: diff-revision.test.ts, in the slow suite).
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { diffFolders, type ApiDiff, type KindDiff } from '../build/diff/compare.ts';
import { markdownReport } from '../build/diff/reports.ts';
import { projectRoot } from '../build/paths.ts';
import { BASE, buildWorld, fixtureWorld, tempDir } from './helpers.ts';
import { diffCommand, edit, renameSteel } from './diff-run.ts';

const removeShore = (data: string) => fs.rmSync(path.join(data, 'location-area/tide-cove-shore.yaml'));

/** The starter world, changed by `change`, built as a host publishes it; returns the data and the output. */
async function built(change: (data: string) => void = () => {}) {
  const w = await fixtureWorld();
  change(w.data);
  await buildWorld({ dataDir: w.data, outDir: w.out, plain: true });
  return w;
}

let base: string;
beforeAll(async () => {
  base = (await built()).out;
});

const kindOf = (diff: ApiDiff, kind: string) => diff.kinds.find((k) => k.kind === kind);

describe('comparing two built APIs', () => {
  it('finds nothing between two builds of the same records', async () => {
    const diff = diffFolders(base, (await built()).out);
    expect(diff).toEqual({ baseUrl: BASE, kinds: [], breaking: { urls: [], fields: [] } });
  });

  it('shows an edit as the changed field, before and after, and nothing breaking', async () => {
    const after = await built((data) => edit(path.join(data, 'type/fire.yaml'), /name: Feu/, 'name: Flamme'));
    const diff = diffFolders(base, after.out);
    expect(diff.kinds).toEqual([
      {
        kind: 'type',
        added: [],
        removed: [],
        renamed: [],
        changed: [{ id: 2, name: 'fire', changes: [{ pointer: '/names/1/name', before: 'Feu', after: 'Flamme' }], removedFields: [] }],
      },
    ]);
    expect(diff.breaking).toEqual({ urls: [], fields: [] });
  });

  it('shows an addition, which breaks nothing', async () => {
    const after = await built((data) =>
      fs.writeFileSync(
        path.join(data, 'type/dragon.yaml'),
        'id: 7\nname: dragon\ngeneration: generation-ii\nmove_damage_class: special\nnames:\n  - name: Dragon\n    language: en\n',
      ),
    );
    const diff = diffFolders(base, after.out);
    expect(kindOf(diff, 'type')?.added).toEqual([{ id: 7, name: 'dragon' }]);
    expect(diff.kinds.flatMap((k) => [...k.removed, ...k.renamed])).toEqual([]);
    expect(diff.breaking).toEqual({ urls: [], fields: [] });
  });

  it('shows a removal, its id url gone as breaking, and the records that listed it changed', async () => {
    const diff = diffFolders(base, (await built(removeShore)).out);
    expect(kindOf(diff, 'location-area')?.removed).toEqual([{ id: 3, name: 'tide-cove-shore' }]);
    // Location areas are reached by id only: one url goes.
    expect(diff.breaking.urls).toEqual([
      {
        path: '/api/v2/location-area/3/',
        url: `${BASE}/api/v2/location-area/3/`,
        kind: 'location-area',
        why: 'location-area tide-cove-shore (3) was removed',
      },
    ]);
    const tideCove = kindOf(diff, 'location')?.changed.find((r) => r.name === 'tide-cove');
    expect(tideCove?.changes).toEqual([
      { pointer: '/areas/0', before: { name: 'tide-cove-shore', url: `${BASE}/api/v2/location-area/3/` } },
    ]);
    expect(tideCove?.removedFields).toEqual([]); // an element of a list is not a field
    expect(diff.breaking.fields).toEqual([]);
  });

  it('shows a rename: same id, new name; the old name url breaks, the id url and sprites stay', async () => {
    const diff = diffFolders(base, (await built(renameSteel)).out);
    const type = kindOf(diff, 'type')!;
    expect(type.renamed).toEqual([{ id: 6, from: 'steel', to: 'metal' }]);
    expect(type.added).toEqual([]);
    expect(type.removed).toEqual([]);
    expect(diff.breaking.urls.map((u) => [u.path, u.why])).toEqual([['/api/v2/type/steel/', 'type 6 was renamed steel → metal']]);
    expect(type.changed.find((r) => r.id === 6)?.changes).toContainEqual({ pointer: '/name', before: 'steel', after: 'metal' });
    // Records that refer to it now name it otherwise.
    expect(kindOf(diff, 'move')?.changed).toEqual([
      { id: 6, name: 'iron-wall', changes: [{ pointer: '/type/name', before: 'steel', after: 'metal' }], removedFields: [] },
    ]);
  });

  it('shows a field removed from records as breaking, at its JSON pointer, wherever it was', async () => {
    // The base as an older build published it: fire had two more keys, one of them nested, and a
    // name that was an object of names, whose keys a string does not have.
    const older = path.join(await tempDir(), 'older');
    fs.cpSync(base, older, { recursive: true });
    const fire = path.join(older, 'api/v2/type/2/index.json');
    const record = JSON.parse(fs.readFileSync(fire, 'utf8'));
    record.legacy_index = { kanto: 4 };
    record.names[0].note = 'was here';
    record.name = { en: 'fire' };
    fs.writeFileSync(fire, JSON.stringify(record));
    // ...and the working tree also drops fire's French name: a list grows shorter, no field goes.
    const after = await built((data) => edit(path.join(data, 'type/fire.yaml'), / {2}- name: Feu\n {4}language: fr\n/, ''));
    const diff = diffFolders(older, after.out);
    // In the record's own order (the older build wrote its new key last).
    expect(diff.breaking.fields).toEqual([
      { kind: 'type', id: 2, name: 'fire', pointer: '/name/en' },
      { kind: 'type', id: 2, name: 'fire', pointer: '/names/0/note' },
      { kind: 'type', id: 2, name: 'fire', pointer: '/legacy_index' },
    ]);
    expect(diff.breaking.urls).toEqual([]);
    expect(kindOf(diff, 'type')?.changed[0]?.changes.map((c) => c.pointer)).toEqual([
      '/name',
      '/names/0/note',
      '/names/1',
      '/legacy_index',
    ]);
  });
});

describe('the Markdown report', () => {
  it('keeps a huge change readable: lists capped, details within a pull-request comment', () => {
    const changed = Array.from({ length: 400 }, (_, i) => ({
      id: i + 1,
      name: `record-${i + 1}`,
      changes: Array.from({ length: 5 }, (_, j) => ({ pointer: `/field_${j}`, before: 'x'.repeat(100), after: j })),
      removedFields: [],
    }));
    const kinds = Array.from({ length: 20 }, (_, i) => ({ kind: `kind-${i}`, added: [], removed: [], renamed: [], changed }));
    const urls = Array.from({ length: 300 }, (_, i) => ({
      path: `/api/v2/kind-0/${i}/`,
      url: `${BASE}/api/v2/kind-0/${i}/`,
      kind: 'kind-0',
      why: 'gone',
    }));
    const text = markdownReport({ baseUrl: BASE, kinds, breaking: { urls, fields: [] } }, { base: 'main' });
    expect(text.length).toBeLessThan(65_536);
    expect(text.indexOf('**Breaking: 300 urls no longer answer.**')).toBeLessThan(text.indexOf('| kind |'));
    expect(text).toContain('- … and 275 more');
    expect(text).toContain('- … and 375 more');
    expect(text).toContain('`/field_0` `"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…` → `0`; `/field_1`');
    expect(text).toContain('`/field_2` `"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…` → `2`; 2 more');
    expect(text).toMatch(/Details left out to keep this short: (kind-\d+, )*kind-19\./);
  });

  it('shows two long values from a little before where they differ', () => {
    const url = (id: number) => `${BASE}/api/v2/location-area/${id}/`;
    const changed = [
      { id: 8, name: 'volcano', changes: [{ pointer: '/areas/1/url', before: url(28), after: url(29) }], removedFields: [] },
    ];
    const kinds = [{ kind: 'location', added: [], removed: [], renamed: [], changed }];
    const text = markdownReport({ baseUrl: BASE, kinds, breaking: { urls: [], fields: [] } }, { base: 'main' });
    expect(text).toContain('- changed volcano (8): `/areas/1/url` `…ation-area/28/"` → `…ation-area/29/"`');
  });
});

/** The ```markdown block of a document, its indent taken off. */
function markdownBlock(file: string): string {
  const text = fs.readFileSync(path.join(projectRoot, file), 'utf8');
  const m = /^( *)```markdown\n([\s\S]*?)\n *```$/m.exec(text);
  expect(m, file).not.toBeNull();
  return m![2]!.replace(new RegExp(`^${m![1]}`, 'gm'), '');
}

describe('the documented example', () => {
  it("is the tool's output: docs/DIFF.md shows it whole, the README down to the table", async () => {
    const after = await built((data) => (removeShore(data), edit(path.join(data, 'type/fire.yaml'), /name: Feu/, 'name: Flamme')));
    const report = markdownReport(diffFolders(base, after.out), { base: 'main' });
    expect(markdownBlock('docs/DIFF.md')).toBe(report);
    expect(markdownBlock('README.md')).toBe(report.slice(0, report.indexOf('<details>')).trimEnd());
  });
});

describe('npm run diff against a built folder', () => {
  let breaking: string;
  let harmless: string;
  beforeAll(async () => {
    breaking = (await built((data) => (renameSteel(data), removeShore(data)))).data;
    harmless = (await built((data) => edit(path.join(data, 'type/fire.yaml'), /name: Feu/, 'name: Flamme'))).data;
  });

  it('reports as text, breaking changes first, and exits 0 without --fail-on-breaking', async () => {
    const { code, stdout } = await diffCommand(['--base', base, '--data', breaking]);
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[0]).toBe(`API changes against ${base}`);
    expect(lines.slice(2, 5)).toEqual([
      'BREAKING: 2 urls no longer answer',
      '  /api/v2/location-area/3/ no longer answers: location-area tide-cove-shore (3) was removed',
      '  /api/v2/type/steel/ no longer answers: type 6 was renamed steel → metal',
    ]);
    expect(stdout).toMatch(/^type +0 +0 +1 +5 +1$/m);
    expect(stdout).toContain('  renamed steel → metal (6)');
    expect(stdout).toContain('  changed iron-wall (6): /type/name "steel" → "metal"');
  });

  it('exits 1 with --fail-on-breaking when a change breaks, 0 when none does', async () => {
    expect((await diffCommand(['--base', base, '--data', breaking, '--fail-on-breaking'])).code).toBe(1);
    const harmlessRun = await diffCommand(['--base', base, '--data', harmless, '--fail-on-breaking']);
    expect(harmlessRun.code).toBe(0);
    expect(harmlessRun.stdout).toContain('nothing breaking');
    expect(harmlessRun.stdout).toContain('changed fire (2): /names/1/name "Feu" → "Flamme"');
  });

  it('reports as JSON, every change listed', async () => {
    const { code, stdout } = await diffCommand(['--base', base, '--data', breaking, '--report', 'json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.base).toBe(base);
    expect(report.breaking.count).toBe(2);
    expect(report.summary.find((s: { kind: string }) => s.kind === 'location-area')).toEqual({
      kind: 'location-area',
      added: 0,
      removed: 1,
      renamed: 0,
      changed: 0,
      breaking: 1,
    });
    expect(report.kinds).toEqual(diffFolders(base, (await built((data) => (renameSteel(data), removeShore(data)))).out).kinds);
  });

  it('reports as Markdown for a pull request: breaking first, a table per kind, details folded', async () => {
    const { code, stdout } = await diffCommand(['--base', base, '--data', breaking, '--report', 'markdown']);
    expect(code).toBe(0);
    const at = (s: string) => stdout.indexOf(s);
    expect(stdout.startsWith(`### API changes against \`${base}\``)).toBe(true);
    expect(at('**Breaking: 2 urls no longer answer.**')).toBeGreaterThan(0);
    expect(stdout).toContain('- `/api/v2/type/steel/` no longer answers: type 6 was renamed steel → metal');
    expect(at('| kind | added | removed | renamed | changed | breaking |')).toBeGreaterThan(at('**Breaking'));
    expect(stdout).toContain('| location-area | 0 | 1 | 0 | 0 | 1 |');
    expect(stdout).toContain('<details>\n<summary>type: 1 renamed, 5 changed</summary>');
    expect(stdout).toContain('- changed iron-wall (6): `/type/name` `"steel"` → `"metal"`');
  });

  it("shows an author's key or text as seen, never obeyed: no line of it starts a line of the report, no escape reaches the terminal", async () => {
    const hostile = (await fixtureWorld()).data;
    // A name takes any text. In YAML's double quotes, \e, \x9b and \u202e are those characters.
    edit(path.join(hostile, 'type/fire.yaml'), /name: Feu/, 'name: "F\\e]0;title\\a\\x9b2J\\u202eeu"');
    // A key comes from the folder compared against, which may be another's build or one edited by
    // hand: the records hold no key an author chooses freely (a sprite's is a slug).
    const against = path.join(await tempDir(), 'base');
    fs.cpSync(base, against, { recursive: true, verbatimSymlinks: true });
    const forms = JSON.parse(fs.readFileSync(path.join(against, 'api/v2/creature-form/index.json'), 'utf8'));
    const id = forms.results
      .find((r: { name: string }) => r.name === 'emberpup')
      .url.split('/')
      .at(-2);
    const form = path.join(against, 'api/v2/creature-form', id, 'index.json');
    const record = JSON.parse(fs.readFileSync(form, 'utf8'));
    record.sprites['k`\n::warning::forged\n![](https://x.example/p.png) @team'] = null;
    fs.writeFileSync(form, JSON.stringify(record));
    // Any control character but the line breaks the output is made of, or a bidirectional mark.
    const unshowable = /[^\P{Cc}\n]|[\u202a-\u202e\u2066-\u2069]/u;
    for (const report of ['text', 'markdown', 'json']) {
      const { code, stdout } = await diffCommand(['--base', against, '--data', hostile, '--report', report]);
      expect(code, report).toBe(0);
      expect(stdout, report).not.toMatch(unshowable);
      expect(
        stdout.split('\n').filter((line) => /^\s*(::|!\[)/.test(line)),
        report,
      ).toEqual([]);
      if (report === 'json') {
        const fields = JSON.parse(stdout).kinds.flatMap((k: KindDiff) => k.changed.flatMap((r) => r.changes.map((c) => c.pointer)));
        expect(fields).toContain('/sprites/k`\n::warning::forged\n![](https:~1~1x.example~1p.png) @team');
      }
    }
    const { stdout } = await diffCommand(['--base', against, '--data', hostile, '--report', 'markdown']);
    expect(stdout).toContain('`` /sprites/k`\\x0a::warning::forged\\x0a![](https:~1~1x.example~1p.png) @team ``');
    expect(stdout).toContain('`"F\\u001b]0;title\\u0007\\x9b2J\\u202eeu"`');
  });

  it('says plainly when nothing changed', async () => {
    const { code, stdout } = await diffCommand(['--base', base, '--data', (await fixtureWorld()).data, '--report', 'markdown']);
    expect(code).toBe(0);
    expect(stdout).toBe(`### API changes against \`${base}\`\n\nNo change to the published API.\n`);
  });

  it('exits 2, with a clear message, for a missing folder, a folder with no API, or a bad option', async () => {
    const missing = path.join(base, 'no-such-folder');
    const cases: [string[], RegExp][] = [
      [['--base', missing, '--data', harmless], /--base .*no-such-folder: no such folder, and no such revision in /],
      [['--base', path.join(base, 'api/v2/type')], /the folder holds no built API/],
      [['--base', base, '--data', path.join(base, 'no-data')], /no-data/],
      [['--base', base, '--report', 'html'], /--report must be text, json or markdown, got "html"/],
      [['--data', harmless], /--base is needed/],
    ];
    for (const [args, message] of cases) {
      const result = await diffCommand(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stdout, args.join(' ')).toBe('');
    }
  });
});

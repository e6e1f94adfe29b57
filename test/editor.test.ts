// Help in the editor: the committed source schemas are what `npm run types` makes today, a build keeps
// the names copy, and the real YAML language server, configured as the project's VS Code settings
// configure it, flags a misspelt field on its line and completes a reference to the names that exist.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editorSchemasFor, sourceSchemaFiles } from '../build/schemas/editor-schemas.ts';
import { loadSchemas } from '../build/schemas/schemas.ts';
import { defaultDataDir, editorSchemasDir, projectRoot, sourceSchemasDir } from '../build/paths.ts';
import { captureCompletion, editorSettings, editorWorkspace, readmePicture } from '../build/tools/editor-capture.ts';
import { startYamlServer, type YamlServer } from '../build/tools/yaml-server.ts';
import { buildProblems, buildWorld, fixturesDir, fixtureWorld, overlayBad, tempDir } from './helpers.ts';

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));
const stems = (dir: string) => fs.readdirSync(dir).map((f) => f.replace(/\.(yaml|yml|json)$/, ''));

/** Adds `generation-iii` (id 3) to a copy of the starter world, made from its `generation-ii`. */
function addGeneration(dataDir: string, id: number): void {
  const dir = path.join(dataDir, 'generation');
  const text = fs.readFileSync(path.join(dir, 'generation-ii.yaml'), 'utf8');
  fs.writeFileSync(
    path.join(dir, 'generation-iii.yaml'),
    text.replace(/^id: \d+/m, `id: ${id}`).replace(/generation-ii\b/g, 'generation-iii'),
  );
}

describe('committed source schemas', () => {
  it('are up to date with the schemas (run `npm run types` when this fails)', () => {
    const expected = sourceSchemaFiles(loadSchemas());
    expect(fs.readdirSync(sourceSchemasDir).sort()).toEqual([...expected.keys()].sort());
    for (const [name, text] of expected) expect(fs.readFileSync(path.join(sourceSchemasDir, name), 'utf8'), name).toBe(text);
  });

  it('say they are generated, and carry the descriptions', () => {
    const type = readJson(path.join(sourceSchemasDir, 'type.json'));
    expect(type.$comment).toMatch(/^Generated from schemas\/type\.json by `npm run types`.*Do not edit/);
    expect(type.description).toBe(readJson(path.join(projectRoot, 'schemas', 'type.json')).description);
    expect(type.properties.generation).toMatchObject({ 'x-ref': 'generation', description: expect.stringContaining('generation') });
  });

  it('are what VS Code is told to use for every kind, through the names copy', () => {
    const kinds = [...loadSchemas().kinds.keys()];
    const expected = Object.fromEntries(kinds.map((k) => [`.editor-schemas/${k}.json`, [`data/${k}/*.yaml`, `data/${k}/*.yml`]]));
    expect(editorSettings().schemas).toEqual(expected);
    expect(readJson(path.join(projectRoot, '.vscode', 'extensions.json')).recommendations).toContain('redhat.vscode-yaml');
    expect(fs.readFileSync(path.join(projectRoot, '.gitignore'), 'utf8')).toMatch(/^\/\.editor-schemas\/$/m);
    expect(editorSchemasFor(undefined)).toBe(editorSchemasDir);
    expect(editorSchemasFor(defaultDataDir + path.sep)).toBe(editorSchemasDir);
    expect(editorSchemasFor(path.join(fixturesDir, 'starter'))).toBeUndefined();
  });
});

describe('the names copy a build keeps', () => {
  it('lists the names of every kind, and a name added to the data once built', async () => {
    const world = await fixtureWorld();
    const editorSchemas = path.join(world.root, '.editor-schemas');
    await buildWorld({ dataDir: world.data, outDir: world.out, editorSchemas });
    const offered = (kind: string) => readJson(path.join(editorSchemas, 'names.json')).$defs[kind].enum;
    expect(offered('generation')).toEqual(stems(path.join(world.data, 'generation')));
    expect(offered('move')).toEqual(stems(path.join(world.data, 'move')));
    const kindFiles = [...sourceSchemaFiles(loadSchemas()).keys()];
    expect(
      fs
        .readdirSync(editorSchemas)
        .filter((f) => f.endsWith('.json'))
        .sort(),
    ).toEqual([...kindFiles, 'names.json'].sort());
    expect(readJson(path.join(editorSchemas, 'type.json')).properties.generation.anyOf[0]).toEqual({
      $ref: 'names.json#/$defs/generation',
    });

    addGeneration(world.data, 3);
    const times = () => kindFiles.map((name) => fs.statSync(path.join(editorSchemas, name)).mtimeMs);
    const before = times();
    await buildWorld({ dataDir: world.data, outDir: world.out, editorSchemas });
    expect(offered('generation')).toEqual(['generation-i', 'generation-ii', 'generation-iii']);
    // The kinds' schemas do not change with the names: only the list is written again.
    expect(times()).toEqual(before);
  });

  it('is left as it was by a failed build, and by a check', async () => {
    const world = await fixtureWorld();
    const editorSchemas = path.join(world.root, '.editor-schemas');
    await buildWorld({ dataDir: world.data, outDir: world.out, editorSchemas });
    const names = () => fs.readFileSync(path.join(editorSchemas, 'names.json'), 'utf8');
    const before = names();
    addGeneration(world.data, 3);
    await buildWorld({ dataDir: world.data, outDir: world.out, editorSchemas, check: true });
    expect(names()).toBe(before);
    overlayBad(world, 'unknown-field');
    expect(await buildProblems({ dataDir: world.data, outDir: world.out, editorSchemas })).not.toEqual([]);
    expect(names()).toBe(before);
  });

  it("is made again by a rebuild with nothing to do, when it is missing or another tree's build wrote it", async () => {
    const world = await fixtureWorld();
    const editorSchemas = path.join(world.root, '.editor-schemas');
    const generations = () => readJson(path.join(editorSchemas, 'names.json')).$defs.generation.enum;
    await buildWorld({ dataDir: world.data, outDir: world.out });
    expect(fs.existsSync(editorSchemas)).toBe(false);
    expect((await buildWorld({ dataDir: world.data, outDir: world.out, editorSchemas })).files).toBe(0);
    expect(generations()).toEqual(['generation-i', 'generation-ii']);
    // The dev loop builds into a folder of its own: a record added and removed there leaves the
    // copy with the name, until the next build of dist/, with nothing to do, makes it again.
    addGeneration(world.data, 3);
    await buildWorld({ dataDir: world.data, outDir: path.join(world.root, 'dev-dist'), editorSchemas });
    expect(generations()).toContain('generation-iii');
    fs.rmSync(path.join(world.data, 'generation', 'generation-iii.yaml'));
    expect((await buildWorld({ dataDir: world.data, outDir: world.out, editorSchemas })).files).toBe(0);
    expect(generations()).toEqual(['generation-i', 'generation-ii']);
    // Once the copy says this tree's build made (or checked) it, a rebuild with nothing to do writes nothing.
    const written = () => fs.readdirSync(editorSchemas).map((f) => fs.statSync(path.join(editorSchemas, f)).mtimeMs);
    const before = written();
    await buildWorld({ dataDir: world.data, outDir: world.out, editorSchemas });
    expect(written()).toEqual(before);
  });
});

describe('the YAML language server with the project settings', () => {
  let root: string;
  let server: YamlServer;
  const file = (rel: string) => path.join(root, 'data', rel);
  const read = (rel: string) => fs.readFileSync(file(rel), 'utf8');
  const lineOf = (text: string, start: string) => text.split('\n').findIndex((line) => line.startsWith(start));

  beforeAll(async () => {
    root = await editorWorkspace(path.join(fixturesDir, 'starter'), await tempDir('crs-editor-'));
    server = await startYamlServer(root, editorSettings());
  }, 60_000);
  afterAll(() => server?.stop());

  it('reports nothing on a valid record', async () => {
    expect(await server.open(file('type/fire.yaml'))).toEqual([]);
    expect(await server.open(file('creature-form/emberpup-blaze.yaml'))).toEqual([]);
  });

  it('describes a field on hover', async () => {
    await server.open(file('stat/speed.yaml'));
    const hover = await server.hover(file('stat/speed.yaml'), { line: lineOf(read('stat/speed.yaml'), 'id:'), character: 1 });
    const id = readJson(path.join(sourceSchemasDir, 'stat.json')).properties.id.description;
    expect(JSON.stringify(hover?.contents)).toContain(id);
  });

  it('flags a misspelt field on its line', async () => {
    const text = read('type/grass.yaml').replace(/^move_damage_class:/m, 'move_damage_clas:');
    const diagnostics = await server.open(file('type/grass.yaml'), text);
    const line = lineOf(text, 'move_damage_clas:');
    expect(diagnostics).toContainEqual(
      expect.objectContaining({
        message: expect.stringContaining('move_damage_clas'),
        range: expect.objectContaining({ start: { line, character: 0 } }),
      }),
    );
  });

  it('completes a reference to the names that exist, and flags one that does not', async () => {
    const text = read('type/water.yaml').replace(/^generation: .*$/m, 'generation: ');
    const line = lineOf(text, 'generation:');
    await server.open(file('type/water.yaml'), text);
    const labels = (await server.complete(file('type/water.yaml'), { line, character: 'generation: '.length })).map((i) => i.label);
    expect(labels).toEqual(stems(path.join(root, 'data', 'generation')));

    const wrong = read('type/normal.yaml').replace(/^generation: .*$/m, 'generation: generation-ix');
    const diagnostics = await server.open(file('type/normal.yaml'), wrong);
    expect(diagnostics).toEqual([
      expect.objectContaining({ range: expect.objectContaining({ start: { line: lineOf(wrong, 'generation:'), character: 12 } }) }),
    ]);
  });

  it('completes a reference whose kind another field names', async () => {
    const text = read('creature-form/ironshell.yaml');
    const at = text.indexOf('trigger_conditions:');
    const edited = `${text.slice(0, at)}trigger_conditions:\n  - trigger: move\n    name: \n`;
    const line = lineOf(edited, '    name:');
    await server.open(file('creature-form/ironshell.yaml'), edited);
    const labels = (await server.complete(file('creature-form/ironshell.yaml'), { line, character: '    name: '.length })).map(
      (i) => i.label,
    );
    expect(labels).toEqual(expect.arrayContaining(stems(path.join(root, 'data', 'move'))));
    expect(labels).not.toContain('emberite'); // an item
  });

  it('offers a name added to the data once a build rewrites the copy and the editor sees the file change', async () => {
    addGeneration(path.join(root, 'data'), 3);
    const editorSchemas = path.join(root, '.editor-schemas');
    await buildWorld({ dataDir: path.join(root, 'data'), outDir: path.join(root, 'dist'), editorSchemas });
    await server.changed([path.join(editorSchemas, 'names.json')]);
    const edited = read('type/steel.yaml').replace(/^generation: .*$/m, 'generation: ');
    await server.open(file('type/steel.yaml'), edited);
    const at = { line: lineOf(edited, 'generation:'), character: 'generation: '.length };
    const labels = (await server.complete(file('type/steel.yaml'), at)).map((i) => i.label);
    expect(labels).toContain('generation-iii');
  });

  it('follows a modeline to the committed schema, for editors without the settings', async () => {
    const modeline = '# yaml-language-server: $schema=../../schemas/source/stat.json\n';
    const text = modeline + read('stat/attack.yaml').replace(/^name:/m, 'nmae:');
    const diagnostics = await server.open(path.join(root, 'elsewhere', 'stat', 'attack.yaml'), text);
    expect(diagnostics.map((d) => d.message)).toContain('Property nmae is not allowed.');
  });
});

describe('the YAML language server before the first build', () => {
  it('says it cannot load the schema the settings point at (docs/EDITING.md)', async () => {
    const root = await tempDir('crs-editor-');
    fs.cpSync(path.join(fixturesDir, 'starter', 'stat'), path.join(root, 'data', 'stat'), { recursive: true });
    const server = await startYamlServer(root, editorSettings());
    try {
      const diagnostics = await server.open(path.join(root, 'data', 'stat', 'attack.yaml'));
      expect(diagnostics.map((d) => d.message)).toEqual([
        expect.stringMatching(/^Unable to load schema from .*\.editor-schemas\/stat\.json/),
      ]);
    } finally {
      await server.stop();
    }
  });
});

describe('the README', () => {
  it('shows what the language server answers to completion after `generation: ` in the shipped world', async () => {
    const root = await editorWorkspace(defaultDataDir, await tempDir('crs-editor-'));
    const picture = await captureCompletion(root);
    expect(picture).toContain('generation-i');
    expect(readmePicture(), 'run npx tsx build/tools/editor-capture.ts').toBe(picture);
  }, 120_000);
});

// A world's settings file, data/world.yaml, through the real command: its title and description in
// the explorer's page and the OpenAPI document, its languages a rule every record's names and any
// other list of names that gives something are held to (placed as every problem is), its own
// mistakes reported, and a change to it rebuilding what it touches — records published before included.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeEach, describe, expect, it } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { tempDir } from './helpers.ts';

const run = promisify(execFile);
// The build's own default address (vitest sets BASE_URL to one of its own).
const env = { ...process.env, BASE_URL: 'http://localhost:3000' };

/** `npm run build -- args`: its exit code and everything it printed. */
async function buildCli(...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(projectRoot, 'build/launch.mjs'), 'build', ...args], { env });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const { code, stdout, stderr } = err as { code: number; stdout: string; stderr: string };
    return { code, out: stdout + stderr };
  }
}

const names = (en: string, fr: string) => `names:\n  - { name: ${en}, language: en }\n  - { name: ${fr}, language: fr }\n`;

/** A world of two languages and a generation, each named in both. */
function writeWorld(data: string): void {
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(data, rel)), { recursive: true });
    fs.writeFileSync(path.join(data, rel), text);
  };
  write('language/en.yaml', `id: 1\nname: en\n${names('English', 'Anglais')}`);
  write('language/fr.yaml', `id: 2\nname: fr\n${names('French', 'Français')}`);
  write('generation/generation-i.yaml', `id: 1\nname: generation-i\n${names('Generation I', 'Génération I')}`);
}

let root: string;
let data: string;
let out: string;
const settings = (text: string) => fs.writeFileSync(path.join(data, 'world.yaml'), text);
const englishOnly = () =>
  fs.writeFileSync(
    path.join(data, 'generation/generation-i.yaml'),
    'id: 1\nname: generation-i\nnames:\n  - { name: Generation I, language: en }\n',
  );
const openapi = () => JSON.parse(fs.readFileSync(path.join(out, 'api/v2/openapi.json'), 'utf8'));
const page = () => fs.readFileSync(path.join(out, 'index.html'), 'utf8');

beforeEach(async () => {
  root = await tempDir('crs-world-settings-');
  data = path.join(root, 'data');
  out = path.join(root, 'dist');
  writeWorld(data);
  return () => fs.rmSync(root, { recursive: true, force: true });
});

describe("a world's settings file", () => {
  it('gives the explorer and the OpenAPI document their title and description, escaped in the page', async () => {
    settings('title: Tiny & <World>\ndescription: A world of "two" languages.\n');
    expect((await buildCli('--data', data, '--out', out)).code).toBe(0);
    expect(openapi().info.title).toBe('Tiny & <World>');
    expect(openapi().info.description).toMatch(/^A world of "two" languages\.\n/);
    expect(page()).toContain('<title>Tiny &amp; &lt;World&gt; · API explorer</title>');
    expect(page()).toContain('<meta name="description" content="A world of &quot;two&quot; languages." />');
    expect(page()).toContain('<meta name="application-name" content="Tiny &amp; &lt;World&gt;" />');
    expect(page()).not.toContain('__WORLD_');
  });

  it('holds every list of names to the languages it states, each once, placed as every problem is', async () => {
    settings('languages: [en, fr]\n');
    expect((await buildCli('--data', data, '--check')).code).toBe(0);
    englishOnly();
    const { code, out: said } = await buildCli('--data', data, '--check');
    expect(code).toBe(1);
    expect(said).toContain('data/generation/generation-i.yaml:4:3 generation generation-i at /names: names has nothing in fr');
    expect(said).toContain("hint: the world's languages are en, fr (data/world.yaml)");
    // Once stated, a language given twice is one too many; the world with no languages holds no list to any.
    fs.appendFileSync(
      path.join(data, 'generation/generation-i.yaml'),
      '  - { name: Génération I, language: fr }\n  - { name: Gen I, language: fr }\n',
    );
    expect((await buildCli('--data', data, '--check')).out).toContain('at /names/2/language: names gives fr a second time');
    englishOnly();
    settings('title: Tiny\n');
    expect((await buildCli('--data', data, '--check')).code).toBe(0);
  });

  it("holds a record's other lists of names to the languages once they give something: a species' genera", async () => {
    settings('languages: [en, fr]\n');
    fs.mkdirSync(path.join(data, 'creature-species'));
    const species = (genera: string) =>
      fs.writeFileSync(
        path.join(data, 'creature-species/budling.yaml'),
        `id: 1\nname: budling\n${names('Budling', 'Bourgeonnet')}gender_rate: 4\nhas_gender_differences: false\n${genera}`,
      );
    species('');
    expect((await buildCli('--data', data, '--check')).code).toBe(0);
    species('genera: []\n');
    expect((await buildCli('--data', data, '--check')).code).toBe(0);
    species('genera:\n  - { genus: Bud Creature, language: en }\n');
    const { code, out: said } = await buildCli('--data', data, '--check');
    expect(code).toBe(1);
    expect(said).toContain('data/creature-species/budling.yaml:9:3 creature-species budling at /genera: genera has nothing in fr');
    species('genera:\n  - { genus: Bud Creature, language: en }\n  - { genus: Créature Bourgeon, language: fr }\n');
    expect((await buildCli('--data', data, '--check')).code).toBe(0);
  });

  it('reports its own mistakes at their place: an unknown setting, a language that is not there, a wrong value', async () => {
    settings('title: [a, list]\nlanguage: [en]\nlanguages: [en, frr]\n');
    const { code, out: said } = await buildCli('--data', data, '--check');
    expect(code).toBe(1);
    expect(said).toContain('data/world.yaml:1:8 at /title: title is a list; it should be one line of at most 100 characters');
    expect(said).toContain('data/world.yaml:2:1 at /language: "language" is not a setting of the world');
    expect(said).toContain('hint: did you mean "languages"?');
    expect(said).toContain('data/world.yaml:3:17 at /languages/1: there is no language named "frr"');
    expect(said).toContain('hint: did you mean "fr"?');
  });

  it('is world.yaml and nothing else: world.yml at the top of the data folder is not read, and says so', async () => {
    fs.writeFileSync(path.join(data, 'world.yml'), 'title: Tiny\n');
    const { code, out: said } = await buildCli('--data', data, '--check');
    expect(code).toBe(1);
    expect(said).toContain("if it holds the world's settings, name it world.yaml");
  });

  it('is read only inside the data folder: a link leading out of it is refused, never read', async () => {
    const outside = path.join(root, 'secret.yaml');
    fs.writeFileSync(outside, 'title: Read from outside\n');
    fs.symlinkSync(outside, path.join(data, 'world.yaml'));
    const { code, out: said } = await buildCli('--data', data, '--out', out);
    expect(code).toBe(1);
    expect(said).toMatch(/data\/world\.yaml:1:1: the world's settings file leads to .*secret\.yaml, outside/);
    expect(fs.existsSync(out)).toBe(false);
  });

  it('when it changes, makes the next build a full one: the title is new everywhere, and records built before meet its rule', async () => {
    settings('title: First\nlanguages: [en, fr]\n');
    expect((await buildCli('--data', data, '--out', out)).code).toBe(0);
    // A record that breaks the rule fails a rebuild, which reads only what changed.
    englishOnly();
    expect((await buildCli('--data', data, '--out', out)).code).toBe(1);
    settings('title: First\n');
    expect((await buildCli('--data', data, '--out', out)).code).toBe(0);
    expect(openapi().info.title).toBe('First');
    settings('title: Second\n');
    expect((await buildCli('--data', data, '--out', out)).code).toBe(0);
    expect(openapi().info.title).toBe('Second');
    expect(page()).toContain('<title>Second · API explorer</title>');
    expect((await buildCli('--data', data, '--out', out)).out).toContain('nothing changed');
    // The record is as it was when it was last published; the languages stated again hold it to them.
    settings('title: Second\nlanguages: [en, fr]\n');
    const again = await buildCli('--data', data, '--out', out);
    expect(again.code).toBe(1);
    expect(again.out).toContain('data/generation/generation-i.yaml:4:3 generation generation-i at /names: names has nothing in fr');
    expect(openapi().info.title).toBe('Second');
  });
});

// Evolution chains through the real commands: a chain's tree is what its species say of their own
// evolution (evolves_from_species, evolution_chain, is_baby, evolution_details), so a species'
// evolution changed in a copy of the starter world changes the chain, a rebuild as a clean build; a
// species that evolves from one in another chain, or a loop, is one problem at the field that says
// it. The importer writes PokeAPI's chains as those species' facts, and finds where PokeAPI's two
// statements of them disagree.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkAgreements } from '../build/import/agree.ts';
import { readSource } from '../build/import/read.ts';
import { loadSchemas } from '../build/schemas/schemas.ts';
import { BASE, fixturesDir, fixtureWorld, launched, tempDir } from './helpers.ts';

type Json = Record<string, any>;

/** A chain's tree as lines: each species indented by its stage, with its triggers and levels. */
function tree(link: Json, depth = 0): string[] {
  const how = link.evolution_details.map((d: Json) => `${d.trigger.name}${d.min_level ? ` ${d.min_level}` : ''}`).join(', ');
  const line = `${'  '.repeat(depth)}${link.species.name}${link.is_baby ? ' (baby)' : ''}${how ? `: ${how}` : ''}`;
  return [line, ...link.evolves_to.flatMap((next: Json) => tree(next, depth + 1))];
}

const read = (out: string, file: string): Json => JSON.parse(fs.readFileSync(path.join(out, 'api', 'v2', file, 'index.json'), 'utf8'));

/** Appends lines to a record of the world, or replaces one. */
function edit(data: string, file: string, change: (text: string) => string): void {
  const at = path.join(data, file);
  fs.writeFileSync(at, change(fs.readFileSync(at, 'utf8')));
}

describe('an evolution chain, built from its species', () => {
  it('changes with what a species says of its evolution, a rebuild as a clean build', async () => {
    const world = await fixtureWorld('starter');
    const build = (out: string) => launched('build', ['--data', world.data, '--out', out, '--plain']);
    expect((await build(world.out)).code).toBe(0);
    expect(tree(read(world.out, 'evolution-chain/1').chain)).toEqual(['emberpup', '  ironshell: level-up 30']);
    expect(tree(read(world.out, 'evolution-chain/3').chain)).toEqual(['shadewisp (baby)', '  sproutle: use-item, level-up']);

    // Tidefin now evolves from ironshell at level 45, in its chain; its own chain goes.
    edit(world.data, 'creature-species/tidefin.yaml', (text) =>
      text.replace(
        'evolution_chain: tidefin-family\n',
        'evolves_from_species: ironshell\nevolution_chain: emberpup-family\nevolution_details:\n  - { trigger: level-up, version_group: tide-ember, min_level: 45 }\n',
      ),
    );
    fs.rmSync(path.join(world.data, 'evolution-chain', 'tidefin-family.yaml'));
    expect((await build(world.out)).code).toBe(0);
    const chain = read(world.out, 'evolution-chain/1');
    expect(tree(chain.chain)).toEqual(['emberpup', '  ironshell: level-up 30', '    tidefin: level-up 45']);
    expect(fs.existsSync(path.join(world.out, 'api', 'v2', 'evolution-chain', '2'))).toBe(false);
    expect(read(world.out, 'creature-species/2').evolution_chain).toEqual({ url: `${BASE}/api/v2/evolution-chain/1/` });
    expect(read(world.out, 'evolution-trigger/level-up').creature_species.map((s: Json) => s.name)).toEqual([
      'tidefin',
      'sproutle',
      'ironshell',
    ]);

    // The gender a species needs to evolve is each of its details' gender, by the gender's id.
    const male = read(world.out, 'gender/male');
    expect(chain.chain.evolves_to[0].evolution_details[0].gender).toBe(male.id);
    expect(chain.chain.evolves_to[0].evolves_to[0].evolution_details[0].gender).toBeNull();

    const clean = path.join(world.root, 'clean');
    expect((await build(clean)).code).toBe(0);
    expect(read(clean, 'evolution-chain/1')).toEqual(chain);
  }, 120_000);

  /** Builds `data` for a check: the exit code, and each problem line (file:line:column first). */
  async function problems(data: string): Promise<{ code: number; lines: string[] }> {
    const { code, stderr } = await launched('build', ['--data', data, '--check']);
    return {
      code,
      lines: stderr
        .split('\n')
        .filter((line) => /^\s+\S+:\d+:\d+ /.test(line))
        .map((line) => line.trim()),
    };
  }

  /** Where a field's value is, as the build places it: `<data's folder>/<file>:line:column`. */
  function place(data: string, file: string, field: string): string {
    const lines = fs.readFileSync(path.join(data, file), 'utf8').split('\n');
    const line = lines.findIndex((l) => l.startsWith(`${field}:`));
    return `${path.basename(data)}/${file}:${line + 1}:${field.length + 3}`;
  }

  it('refuses a species evolving from one in another chain, in one line at the field that says it', async () => {
    const world = await fixtureWorld('starter');
    edit(world.data, 'creature-species/ironshell.yaml', (text) =>
      text.replace('evolves_from_species: emberpup', 'evolves_from_species: tidefin'),
    );
    const found = await problems(world.data);
    expect(found.code).toBe(1);
    expect(found.lines).toEqual([
      `${place(world.data, 'creature-species/ironshell.yaml', 'evolves_from_species')} creature-species ironshell at /evolves_from_species: ironshell evolves from tidefin, which is in evolution chain 2, where ironshell is in evolution chain 1`,
    ]);
  });

  it('takes a chain of 64 stages, and refuses a 65th in one line at the species', async () => {
    const world = await fixtureWorld('starter');
    // Emberpup, ironshell, then ironshell-3, ironshell-4, … each evolving from the one before.
    const ironshell = fs.readFileSync(path.join(world.data, 'creature-species/ironshell.yaml'), 'utf8');
    const stage = (n: number) => {
      const text = ironshell
        .replace('id: 5', `id: ${100 + n}`)
        .replace('name: ironshell', `name: ironshell-${n}`)
        .replace('evolves_from_species: emberpup', `evolves_from_species: ${n === 3 ? 'ironshell' : `ironshell-${n - 1}`}`);
      fs.writeFileSync(path.join(world.data, `creature-species/ironshell-${n}.yaml`), text);
    };
    for (let n = 3; n <= 64; n++) stage(n);
    expect(await problems(world.data)).toEqual({ code: 0, lines: [] });
    stage(65);
    const found = await problems(world.data);
    expect(found.code).toBe(1);
    expect(found.lines).toEqual([
      `${place(world.data, 'creature-species/ironshell-65.yaml', 'evolves_from_species')} creature-species ironshell-65 at /evolves_from_species: ironshell-65 is stage 65 of its evolution: a chain has at most 64 stages`,
    ]);
  });

  it('refuses a loop, in one line at the first species of it', async () => {
    const world = await fixtureWorld('starter');
    edit(world.data, 'creature-species/emberpup.yaml', (text) => `${text}evolves_from_species: ironshell\n`);
    const found = await problems(world.data);
    expect(found.code).toBe(1);
    expect(found.lines).toEqual([
      `${place(world.data, 'creature-species/emberpup.yaml', 'evolves_from_species')} creature-species emberpup at /evolves_from_species: emberpup evolves from ironshell, which evolves from emberpup: an evolution cannot loop`,
    ]);
  });
});

describe('the shipped world', () => {
  it('puts every species in a chain whose tree holds it, and lists it in the national pokedex and one of a region, families whole', async () => {
    const out = path.join(await tempDir('crs-evolution-'), 'dist');
    expect((await launched('build', ['--out', out, '--plain'])).code).toBe(0);
    const list = (kind: string): Json[] =>
      fs
        .readFileSync(path.join(out, 'api', 'v2', kind, 'all.ndjson'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
    const species = list('creature-species');
    const inTree = new Map<string, number>();
    const walk = (link: Json, chain: number): void => {
      inTree.set(link.species.name, chain);
      for (const next of link.evolves_to) walk(next, chain);
    };
    for (const chain of list('evolution-chain')) walk(chain.chain, chain.id);
    expect(species.filter((s) => inTree.get(s.name) !== Number(s.evolution_chain?.url.split('/').at(-2))).map((s) => s.name)).toEqual([]);
    expect(inTree.size).toBe(species.length);

    const dexes = list('pokedex');
    const national = dexes.find((d) => d.region === null)!;
    expect(national.creature_entries.map((e: Json) => e.creature_species.name).sort()).toEqual(species.map((s) => s.name).sort());
    const regional = new Map<string, string>();
    for (const dex of dexes.filter((d) => d.region !== null))
      for (const entry of dex.creature_entries) regional.set(entry.creature_species.name, dex.name);
    expect(regional.size).toBe(species.length);
    // A family is in one region's pokedex: each species where the one it evolves from is.
    const split = species.filter((s) => s.evolves_from_species && regional.get(s.evolves_from_species.name) !== regional.get(s.name));
    expect(split.map((s) => s.name)).toEqual([]);
    expect(list('region').every((r) => r.pokedexes.length === 1)).toBe(true);
  }, 120_000);
});

describe('PokeAPI’s evolution chains, imported', () => {
  const FIXTURE = path.join(fixturesDir, 'pokeapi-world');

  it('become what each species says of its evolution, the chain keeping its id and baby trigger item', async () => {
    const out = path.join(await tempDir('crs-import-'), 'data');
    expect((await launched('import', ['--from', FIXTURE, '--out', out])).code).toBe(0);
    const text = (file: string) => fs.readFileSync(path.join(out, file), 'utf8');
    expect(text('evolution-chain/flarecub.yaml')).toBe('id: 1\nname: flarecub\nbaby_trigger_item: guard-tonic\n');
    const pixiemoth = text('creature-species/pixiemoth.yaml');
    expect(pixiemoth).toContain('evolves_from_species: flarecub\nevolution_chain: flarecub\nevolution_details:\n  - trigger: level-up\n');
    expect(pixiemoth).toContain('    min_happiness: 160\n');
    // The gender it needs is stated once, on the species: each detail's is the build's.
    expect(pixiemoth).toContain('gender_required_to_evolve: female\n');
    expect(pixiemoth).not.toMatch(/^\s+gender:/m);
  });

  it('give a species saying otherwise its place in the tree, each field taken in the report, and build', async () => {
    // As PokeAPI's manaphy, which its chain's tree has evolve from phione, and which says it evolves from none.
    const dir = await tempDir('crs-import-');
    const from = path.join(dir, 'from');
    fs.cpSync(FIXTURE, from, { recursive: true });
    const file = path.join(from, 'pokemon-species', '4', 'index.json');
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), evolves_from_species: null }));
    const out = path.join(dir, 'data');
    expect((await launched('import', ['--from', from, '--out', out])).code).toBe(0);
    expect(fs.readFileSync(path.join(out, 'creature-species', 'shifter.yaml'), 'utf8')).toContain('evolves_from_species: spectra\n');
    const report = JSON.parse(fs.readFileSync(`${out}.import-report.json`, 'utf8'));
    expect(report.losses.filter((l: Json) => l.category === 'evolution-from-chain')).toEqual([
      {
        action: 'substituted',
        category: 'evolution-from-chain',
        kind: 'creature-species',
        field: 'evolves_from_species',
        records: ['shifter'],
        count: 1,
      },
    ]);
    expect(report.disagreements.map((d: Json) => `${d.record}: ${d.detail}`)).toContain(
      'evolution-chain/2: has shifter evolve from spectra; pokemon-species.evolution_chain/evolves_from_species/is_baby does not',
    );
    expect((await launched('build', ['--data', out, '--check'])).code).toBe(0);
  }, 60_000);

  it('leave a species below one not imported in no chain, and a chain with no species out, each in the report, and build', async () => {
    const dir = await tempDir('crs-import-');
    const from = path.join(dir, 'from');
    fs.cpSync(FIXTURE, from, { recursive: true });
    // Flarecub, which pixiemoth evolves from, with its creature and form.
    for (const record of ['pokemon-species/1', 'pokemon/1', 'pokemon-form/1']) fs.rmSync(path.join(from, record), { recursive: true });
    const out = path.join(dir, 'data');
    expect((await launched('import', ['--from', from, '--out', out])).code).toBe(0);
    const pixiemoth = fs.readFileSync(path.join(out, 'creature-species', 'pixiemoth.yaml'), 'utf8');
    expect(pixiemoth).toContain('evolves_from_species: null\n');
    expect(pixiemoth).not.toContain('evolution_chain: flarecub');
    expect(pixiemoth).not.toContain('trigger:');
    expect(fs.readdirSync(path.join(out, 'evolution-chain'))).toEqual(['spectra.yaml']);
    const report = JSON.parse(fs.readFileSync(`${out}.import-report.json`, 'utf8'));
    expect(
      report.losses.filter((l: Json) => l.category === 'evolution-outside-import').map((l: Json) => `${l.kind}.${l.field}: ${l.records}`),
    ).toEqual([
      'creature-species.evolution_chain: pixiemoth',
      'creature-species.evolves_from_species: pixiemoth',
      'evolution-chain.chain: 1',
    ]);
    expect((await launched('build', ['--data', out, '--check'])).code).toBe(0);
  }, 60_000);

  it('are held to what the species, the genders and the triggers say of them', async () => {
    const { world } = await readSource(FIXTURE, loadSchemas());
    const chain = world.get('evolution-chain')!.get(1)!;
    for (const detail of chain.chain.evolves_to[0].evolution_details) detail.gender = 2; // pixiemoth needs a male, says the chain
    chain.chain.is_baby = false;
    world.get('evolution-chain')!.get(2)!.chain.evolves_to = []; // spectra no longer evolves into shifter
    const found = checkAgreements(world)
      .filter((d) => /evolution|baby|gender|trigger/.test(d.fact))
      .map((d) => `${d.record}: ${d.detail}`);
    expect(found).toEqual([
      'creature-species/flarecub: is_baby is true; evolution-chain.chain does not',
      'creature-species/shifter: evolution_chain is /api/v2/evolution-chain/2/; evolution-chain.chain does not',
      'creature-species/shifter: evolves_from_species is spectra; evolution-chain.chain does not',
      'creature-species/shifter: is_baby is false; evolution-chain.chain does not',
      'evolution-chain/1: has flarecub not a baby; pokemon-species.evolution_chain/evolves_from_species/is_baby does not',
      'evolution-chain/1: has pixiemoth need gender 2; gender.required_for_evolution does not',
      'gender/female: lists pixiemoth; evolution-chain.chain.*.evolution_details.gender does not',
      'evolution-trigger/level-up: lists shifter; evolution-chain.chain.*.evolution_details.trigger does not',
    ]);
  });
});

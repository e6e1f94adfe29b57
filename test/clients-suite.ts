// The test both client suites run (clients-every-endpoint.test.ts, a few records of each kind;
// clients-every-record.test.ts, every one): the shipped world and an import of PokeAPI's own
// records, built and served; both clients asked for every endpoint they know through the renaming,
// each answer held to what the build wrote, links followed, lists walked; then every answer checked
// by the compiler against the type its method declares, the disagreements held to the lists given.
import fs from 'node:fs';
import path from 'node:path';
import type { NamedAPIResource, PokemonSpecies } from 'pokenode-ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typeProblems, type Answer } from './client-types.ts';
import {
  atOrigin,
  clientsOf,
  endpointMethods,
  NOT_ENDPOINTS,
  servedWorld,
  sweep,
  type Clients,
  type Method,
  type World,
} from './clients-sweep.ts';
import { fixturesDir, tempDir } from './helpers.ts';

const SUBSET = path.join(fixturesDir, 'pokeapi-subset');

/** Endpoints a client knows that PokeAPI's data has no records of, so neither world publishes them. */
const UNPUBLISHED = [
  'pokenode-ts evolution.getEvolutionVariableById',
  'pokenode-ts evolution.getEvolutionVariableByName',
  'pokenode-ts evolution.listEvolutionVariables',
];

/** Endpoints by name of a kind this API publishes by id only (README "Paths"): a 404 by name, the record by id. */
const BY_ID_ONLY = ['pokenode-ts location.getLocationAreaByName', 'pokedex-promise-v2 getLocationAreaByName'];

// --- what the clients' types say otherwise -------------------------------------------------------

type WorldName = 'shipped' | 'pokeapi';

export interface Expected {
  /** The worlds asked: the shipped world, and the import of PokeAPI's own records. */
  worlds: WorldName[];
  /** Every record of each kind, or a few (clients-sweep.ts `samplesOf`). */
  every: boolean;
  /** What the compiler finds on a world's answers (client-types.ts), in any order. */
  disagreements: (world: WorldName) => string[];
}

export function clientSuite(expected: Expected): void {
  const worlds = new Map<string, World & { clients: Clients }>();
  /** Each world's answers, for the compiler. */
  const answered = new Map<string, Answer[]>();

  beforeAll(async () => {
    const sources = { shipped: { data: path.resolve(import.meta.dirname, '..', 'data') }, pokeapi: { from: SUBSET } };
    const built = await Promise.all(expected.worlds.map((name) => servedWorld(name, sources[name])));
    for (const world of built) worlds.set(world.name, { ...world, clients: await clientsOf(world) });
  }, 180_000);

  afterAll(async () => {
    for (const world of worlds.values()) await Promise.all([world.close(), world.clients.proxy.close()]);
  });

  describe.each(expected.worlds)('both clients on the %s world', (name) => {
    it('answer every endpoint with the record or page the build wrote', async () => {
      const world = worlds.get(name)!;
      const { asked, proxy } = world.clients;
      const methods = endpointMethods(world, world.clients);
      expect(methods.filter((m) => !m.way).map((m) => m.name)).toEqual([]);
      const answers: Answer[] = [];
      const unpublished: string[] = [];
      const byIdOnly: string[] = [];
      for (const client of ['pokenode-ts', 'pokedex-promise-v2'] as const) {
        const heard = client === 'pokenode-ts' ? asked : proxy.asked;
        const swept = await sweep(world, methods.filter((m) => m.client === client) as Method[], heard, expected.every);
        answers.push(...swept.answers);
        unpublished.push(...swept.unpublished);
        byIdOnly.push(...swept.byIdOnly);
      }
      expect(unpublished).toEqual(UNPUBLISHED);
      expect(byIdOnly).toEqual(BY_ID_ONLY);
      answered.set(name, answers);
    }, 180_000);

    it('follow links, walk lists and ask for any resource by path or url, as PokeAPI’s names', async () => {
      const world = worlds.get(name)!;
      const { pokenode, pokedex, proxy } = world.clients;
      // The index names PokeAPI's kinds, every one of them (PokeAPI's data has a folder for each).
      const index = (await pokedex.getEndpointsList()) as Record<string, string>;
      const theirKinds = fs.readdirSync(SUBSET).sort();
      expect(
        Object.keys(index)
          .filter((kind) => kind !== 'meta')
          .sort(),
      ).toEqual(theirKinds);
      expect(index['pokemon-species']).toBe(`${proxy.url}/api/v2/pokemon-species/`);

      const [first] = (await pokenode.pokemon.listPokemons(0, 1)).results;
      const creature = await pokenode.pokemon.getPokemonByName(first!.name);
      expect(creature.species.url).toMatch(new RegExp(`^${world.url}/api/v2/pokemon-species/\\d+/$`));
      const species = await pokenode.resolve(creature.species);
      expect(species).toEqual(await pokenode.pokemon.getPokemonSpeciesByName(creature.species.name));
      expect(await pokenode.resolve<PokemonSpecies>(creature.species.url)).toEqual(species);
      expect(await pokenode.utility.getResourceByUrl(creature.species)).toEqual(species);
      expect(await pokenode.resolveAll(creature.types.map((slot) => slot.type))).toEqual(
        await Promise.all(creature.types.map((slot) => pokenode.pokemon.getTypeByName(slot.type.name))),
      );
      const encounters = await pokenode.resolve<unknown>(creature.location_area_encounters);
      expect(encounters).toEqual(await pokenode.pokemon.getPokemonLocationAreaById(creature.id));

      const whole = await pokenode.pokemon.listPokemonSpecies(0, 100_000);
      const walked: NamedAPIResource[] = [];
      for await (const link of pokenode.pokemon.paginate('listPokemonSpecies', { pageSize: 7 })) walked.push(link);
      expect(walked).toEqual(whole.results);
      const athlon = [];
      for await (const stat of pokenode.pokemon.paginate('listPokeathlonStats', { pageSize: 2, resolve: true })) athlon.push(stat);
      expect(athlon.map((stat) => stat.name)).toEqual((await pokenode.pokemon.listPokeathlonStats(0, 100)).results.map((r) => r.name));
      expect(athlon[0]!.affecting_natures).toBeDefined();
      const unnamed = await pokenode.pokemon.listCharacteristics(0, 3);
      expect(unnamed.results.map((r) => Object.keys(r))).toEqual([['url'], ['url'], ['url']]);
      expect(await pokenode.resolve(unnamed.results[0]!)).toEqual(
        await pokenode.pokemon.getCharacteristicById(Number(unnamed.results[0]!.url.split('/').at(-2))),
      );

      // pokedex-promise-v2 follows a link by its url, the proxy's, or several at once.
      const seen = await pokedex.getPokemonByName(first!.name);
      expect(seen.species.url.startsWith(`${proxy.url}/api/v2/pokemon-species/`)).toBe(true);
      expect(atOrigin(await pokedex.getResource(seen.species.url), proxy.url, world.url)).toEqual(species);
      expect(atOrigin(await pokedex.resource(seen.species.url), proxy.url, world.url)).toEqual(species);
      const both = await pokedex.getResource([seen.species.url, seen.location_area_encounters]);
      expect(atOrigin(both, proxy.url, world.url)).toEqual([species, encounters]);
    });
  });

  // The compiler holds the event loop while it runs: every request is made by then.
  describe.each(expected.worlds)('the answers on the %s world', (name) => {
    it('are of the types the methods declare, but for the disagreements listed', async () => {
      expect(answered.get(name)?.length).toBeGreaterThan(0);
      const problems = typeProblems(answered.get(name)!, await tempDir('crs-types-'));
      expect(problems).toEqual(expected.disagreements(name).sort());
    });
  });

  it('leaves no public method of either client uncalled but its settings, cache and counts', () => {
    const { pokenode, pokedex } = worlds.get(expected.worlds[0]!)!.clients;
    // The sections' own methods are swept above; what they share is the facade's (BaseClient adds paginate).
    const base = Object.getPrototypeOf(Object.getPrototypeOf(pokenode.berry));
    const facade = Object.getPrototypeOf(base);
    expect(Object.getOwnPropertyNames(base)).toEqual(['constructor', 'paginate']);
    // resolve and resolveAll are followed above; the rest are the sections' own means (protected).
    const protectedOnes = ['getListResource', 'getResource', 'getResourceByURL', 'getUnnamedListResource', 'walk'];
    const settings = ['cache', 'clearCache', 'stats', 'statsSince', 'with'];
    expect(Object.getOwnPropertyNames(facade).sort()).toEqual(
      ['constructor', 'resolve', 'resolveAll', ...protectedOnes, ...settings].sort(),
    );
    // pokedex-promise-v2: getResource and resource are followed above, the rest swept.
    const pokedexRest = Object.getOwnPropertyNames(Object.getPrototypeOf(pokedex)).filter(
      (name) => !/^get\w+(ById|ByName|List)$/.test(name),
    );
    expect(pokedexRest.sort()).toEqual(['constructor', 'getResource', 'resource', ...NOT_ENDPOINTS].sort());
  });
}

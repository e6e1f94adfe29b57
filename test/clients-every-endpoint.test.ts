// pokenode-ts and pokedex-promise-v2 call every endpoint they know, through the renaming an app puts
// in front of them (README "Clients"), against two worlds built and served on loopback: the
// shipped world (data/) and an import of PokeAPI's own records (test/fixtures/pokeapi-subset/).
// Each answer is the record the build wrote, renamed back, and is checked by the compiler against
// the type its method declares (clients-suite.ts). Here a few records of each kind are asked for,
// so that each field a kind has is met; in the slow suite, every record (clients-every-record.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { clientSuite } from './clients-suite.ts';

/** Endpoints a client knows that PokeAPI's data has no records of, so neither world publishes them. */
const UNPUBLISHED = [
  'pokenode-ts evolution.getEvolutionVariableById',
  'pokenode-ts evolution.getEvolutionVariableByName',
  'pokenode-ts evolution.listEvolutionVariables',
];

/** Endpoints by name of a kind this API publishes by id only (README "Paths"): a 404 by name, the record by id. */
const BY_ID_ONLY = ['pokenode-ts location.getLocationAreaByName', 'pokedex-promise-v2 getLocationAreaByName'];

// --- what the clients' types say otherwise -------------------------------------------------------

/**
 * Differences from PokeAPI the specification forces, on any world: a form's sprites are its eight
 * urls (PokeAPI's add `versions`; pokenode-ts's type asks for `other` too, which PokeAPI's forms
 * never have).
 */
const FORCED = [
  'pokedex-promise-v2 pokemon-form sprites: lacks versions (required by PokemonFormSprites)',
  'pokenode-ts pokemon-form sprites: lacks other, versions (required by PokemonFormSprites)',
];

/**
 * A client's type that PokeAPI's own data does not match, on any world: pokenode-ts's evolution
 * detail has no `base_form` (PokeAPI's has), and its official artwork asks for `versions` (PokeAPI's
 * has none).
 */
const CLIENT_TYPES = [
  'pokenode-ts evolution-chain chain.evolves_to[].evolution_details[].base_form: not in EvolutionDetail',
  'pokenode-ts pokemon sprites.other.official-artwork: lacks versions (required by OfficialArtwork)',
];

/** On PokeAPI's records, the clients' types of the games' sprite tables and an item are out of step with PokeAPI's data. */
const POKEAPI = [
  // PokeAPI's static data gives an item no `cost`.
  'pokedex-promise-v2 item (the answer): lacks cost (required by Item)',
  // pokenode-ts's sprite tables per game name fields PokeAPI's data has not, and lack some it has.
  'pokenode-ts pokemon sprites.versions.generation-i.red-blue: lacks back_transparent_gray, front_transparent_gray (required by RedBlue)',
  'pokenode-ts pokemon sprites.versions.generation-i.red-green-japan.back_female: not in RedGreenJapan',
  'pokenode-ts pokemon sprites.versions.generation-i.yellow: lacks back_gbc, back_transparent_gray, front_gbc, front_transparent_gray (required by Yellow)',
  'pokenode-ts pokemon sprites.versions.generation-ii.crystal: lacks animated (required by Crystal)',
  'pokenode-ts pokemon sprites.versions.generation-ii.gold: lacks back_shiny_transparent, back_transparent, front_shiny_transparent (required by Gold)',
  'pokenode-ts pokemon sprites.versions.generation-ii.silver: lacks back_shiny_transparent, back_transparent, front_shiny_transparent (required by Silver)',
  'pokenode-ts pokemon sprites.versions.generation-iii.emerald: lacks animated, back_default, back_shiny (required by Emerald)',
  'pokenode-ts pokemon sprites.versions.generation-iv.diamond-pearl: lacks animated (required by DiamondPearl)',
  'pokenode-ts pokemon sprites.versions.generation-iv.heartgold-soulsilver: lacks animated (required by HeartgoldSoulsilver)',
  'pokenode-ts pokemon sprites.versions.generation-iv.platinum: lacks animated (required by Platinum)',
  'pokenode-ts pokemon sprites.versions.generation-ix: lacks champions (required by GenerationIXSprites)',
  'pokenode-ts pokemon sprites.versions.generation-v: lacks icons (required by GenerationVSprites)',
  'pokenode-ts pokemon sprites.versions.generation-vi.omegaruby-alphasapphire: lacks back_default, back_female, back_shiny, back_shiny_female (required by OmegarubyAlphasapphire)',
  'pokenode-ts pokemon sprites.versions.generation-vi.x-y: lacks back_default, back_female, back_shiny, back_shiny_female (required by XY)',
  'pokenode-ts pokemon sprites.versions.generation-vii.ultra-sun-ultra-moon: lacks back_default, back_female, back_shiny, back_shiny_female (required by UltraSunUltraMoon)',
  'pokenode-ts pokemon sprites.versions.generation-viii.brilliant-diamond-shining-pearl.front_female: not in BrilliantDiamondShiningPearl',
  'pokenode-ts type sprites.generation-ix.champions: not in GenerationIXTypeSprites',
  'pokenode-ts type sprites.generation-viii.the-crown-tundra: not in GenerationVIIITypeSprites',
];

/** On the shipped world. */
const SHIPPED = [
  // An area's encounter details are one object (the specification's); the PokeAPI subset's one area has no encounters.
  'pokedex-promise-v2 location-area pokemon_encounters[].version_details[].encounter_details: an object, not Encounter[]',
  'pokenode-ts location-area pokemon_encounters[].version_details[].encounter_details: an object, not Encounter[]',
  // A chain three deep (the PokeAPI subset's are two).
  'pokenode-ts evolution-chain chain.evolves_to[].evolves_to[].evolution_details[].base_form: not in EvolutionDetail',
  // pokenode-ts's type says a string where PokeAPI's data has null too (an item without a sprite, a creature without an old cry).
  'pokenode-ts item sprites.default: null, not string',
  'pokenode-ts pokemon cries.legacy: null, not string',
  // Sprites keyed by the world's own games, where the clients' types name PokeAPI's.
  'pokedex-promise-v2 pokemon sprites.versions.generation-i: lacks red-blue, yellow (required by GenerationI)',
  'pokedex-promise-v2 type sprites.generation-iii: lacks colosseum, emerald, firered-leafgreen, ruby-sapphire, xd (required by SpritesGenerationIii)',
  'pokedex-promise-v2 type sprites.generation-iv: lacks diamond-pearl, heartgold-soulsilver, platinum (required by SpritesGenerationIv)',
  'pokedex-promise-v2 type sprites.generation-v: lacks black-2-white-2, black-white (required by SpritesGenerationV)',
  'pokedex-promise-v2 type sprites.generation-vi: lacks omega-ruby-alpha-sapphire, x-y (required by SpritesGenerationVi)',
  'pokenode-ts pokemon sprites.versions.generation-i.dawn-dusk: not in GenerationISprites',
  'pokenode-ts type sprites.generation-iii.frost-bloom: not in GenerationIIITypeSprites',
  'pokenode-ts type sprites.generation-iv.gale-stone: not in GenerationIVTypeSprites',
  'pokenode-ts type sprites.generation-v.cobalt-coral: not in GenerationVTypeSprites',
  'pokenode-ts type sprites.generation-vi.ivory-onyx: not in GenerationVITypeSprites',
  // Fields PokeAPI always gives that the shipped world leaves out (optional in its schemas).
  'pokedex-promise-v2 ability (the answer): lacks effect_changes, effect_entries, flavor_text_entries, generation, is_main_series (required by Ability)',
  'pokedex-promise-v2 encounter-condition-value (the answer): lacks condition (required by EncounterConditionValue)',
  'pokedex-promise-v2 encounter-method (the answer): lacks order (required by EncounterMethod)',
  'pokedex-promise-v2 item (the answer): lacks category, cost, fling_effect, fling_power (required by Item)',
  'pokedex-promise-v2 item (the answer): lacks cost, fling_effect, fling_power (required by Item)',
  'pokedex-promise-v2 language (the answer): lacks iso3166, iso639, official (required by Language)',
  'pokedex-promise-v2 location (the answer): lacks region (required by Location)',
  'pokedex-promise-v2 move (the answer): lacks effect_chance, generation, priority, target (required by Move)',
  'pokedex-promise-v2 pokemon-species (the answer): lacks base_happiness, capture_rate, color, evolves_from_species, generation, growth_rate, habitat, hatch_counter, order, shape (required by PokemonSpecies)',
  'pokedex-promise-v2 pokemon-species (the answer): lacks base_happiness, capture_rate, color, generation, growth_rate, habitat, hatch_counter, order, shape (required by PokemonSpecies)',
  'pokedex-promise-v2 version-group (the answer): lacks order (required by VersionGroup)',
  'pokenode-ts ability (the answer): lacks effect_changes, effect_entries, flavor_text_entries, generation, is_main_series (required by Ability)',
  'pokenode-ts encounter-condition-value (the answer): lacks condition (required by EncounterConditionValue)',
  'pokenode-ts encounter-method (the answer): lacks order (required by EncounterMethod)',
  'pokenode-ts item (the answer): lacks category, fling_effect, fling_power (required by Item)',
  'pokenode-ts language (the answer): lacks iso3166, iso639, official (required by Language)',
  'pokenode-ts location (the answer): lacks region (required by Location)',
  'pokenode-ts move (the answer): lacks effect_chance, generation, priority, target (required by Move)',
  'pokenode-ts pokemon-species (the answer): lacks base_happiness, capture_rate, color, evolves_from_species, generation, growth_rate, habitat, hatch_counter, order, shape (required by PokemonSpecies)',
  'pokenode-ts pokemon-species (the answer): lacks base_happiness, capture_rate, color, generation, growth_rate, habitat, hatch_counter, order, shape (required by PokemonSpecies)',
  'pokenode-ts version-group (the answer): lacks order (required by VersionGroup)',
];

clientSuite({
  every: false,
  unpublished: UNPUBLISHED,
  byIdOnly: BY_ID_ONLY,
  disagreements: (world) => [...FORCED, ...CLIENT_TYPES, ...(world === 'shipped' ? SHIPPED : POKEAPI)],
});

it('README "Clients" gives the renaming the tests use, line for line', () => {
  const root = path.resolve(import.meta.dirname, '..');
  const helper = fs.readFileSync(path.join(root, 'test', 'client-renaming.ts'), 'utf8');
  const from = helper.indexOf('const ours');
  const code = helper.slice(from, helper.indexOf('\n};', from) + 3);
  const lines = code.split('\n').filter((line) => line !== '// prettier-ignore');
  expect(lines.length).toBeGreaterThan(5);
  expect(fs.readFileSync(path.join(root, 'README.md'), 'utf8')).toContain(lines.join('\n').replace('export const', 'const'));
});

// What the compiler finds when both PokeAPI clients' types meet this API's answers
// (clients-suite.ts), each list with why. The sweep in npm test asks for a few records of each kind;
// the slow suite's for every record, and meets more (the EVERY_ lists).

/**
 * Differences from PokeAPI the specification forces, on any world: a form's sprites are its eight
 * urls (PokeAPI's add `versions`; pokenode-ts's type asks for `other` too, which PokeAPI's forms
 * never have).
 */
export const FORCED = [
  'pokedex-promise-v2 pokemon-form sprites: lacks versions (required by PokemonFormSprites)',
  'pokenode-ts pokemon-form sprites: lacks other, versions (required by PokemonFormSprites)',
];

/**
 * A client's type that PokeAPI's own data does not match, on any world: pokenode-ts's evolution
 * detail has no `base_form` (PokeAPI's has), and its official artwork asks for `versions` (PokeAPI's
 * has none).
 */
export const CLIENT_TYPES = [
  'pokenode-ts evolution-chain chain.evolves_to[].evolution_details[].base_form: not in EvolutionDetail',
  'pokenode-ts pokemon sprites.other.official-artwork: lacks versions (required by OfficialArtwork)',
];

/** On PokeAPI's records, the clients' types of the games' sprite tables and an item are out of step with PokeAPI's data. */
export const POKEAPI = [
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
export const SHIPPED = [
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
  // Fields PokeAPI's clients require that the shipped world leaves out (optional in its schemas; an item's cost, PokeAPI's data leaves out too).
  'pokedex-promise-v2 ability (the answer): lacks effect_changes (required by Ability)',
  'pokedex-promise-v2 encounter-condition-value (the answer): lacks condition (required by EncounterConditionValue)',
  'pokedex-promise-v2 item (the answer): lacks cost (required by Item)',
  'pokenode-ts ability (the answer): lacks effect_changes (required by Ability)',
  'pokenode-ts encounter-condition-value (the answer): lacks condition (required by EncounterConditionValue)',
];

/** On every record of PokeAPI's, beyond those of POKEAPI. */
export const EVERY_POKEAPI = [
  // A type's name icon is a url or absent (the specification's): where PokeAPI gives null (fairy, stellar, shadow), it is left out.
  'pokedex-promise-v2 type sprites.generation-iii.colosseum: lacks name_icon (required by IconName)',
  'pokedex-promise-v2 type sprites.generation-iii.emerald: lacks name_icon (required by IconName)',
  'pokedex-promise-v2 type sprites.generation-iii.firered-leafgreen: lacks name_icon (required by IconName)',
  'pokedex-promise-v2 type sprites.generation-iii.ruby-sapphire: lacks name_icon (required by IconName)',
  'pokedex-promise-v2 type sprites.generation-iii.xd: lacks name_icon (required by IconName)',
  'pokedex-promise-v2 type sprites.generation-iv.diamond-pearl: lacks name_icon (required by IconName)',
  'pokedex-promise-v2 type sprites.generation-iv.heartgold-soulsilver: lacks name_icon (required by IconName)',
  'pokedex-promise-v2 type sprites.generation-iv.platinum: lacks name_icon (required by IconName)',
  'pokedex-promise-v2 type sprites.generation-ix.scarlet-violet: lacks name_icon (required by IconNameWithSymbol)',
  'pokedex-promise-v2 type sprites.generation-v.black-2-white-2: lacks name_icon (required by IconName)',
  'pokedex-promise-v2 type sprites.generation-v.black-white: lacks name_icon (required by IconName)',
  'pokedex-promise-v2 type sprites.generation-vi.omega-ruby-alpha-sapphire: lacks name_icon (required by IconName)',
  'pokedex-promise-v2 type sprites.generation-vi.x-y: lacks name_icon (required by IconName)',
  'pokedex-promise-v2 type sprites.generation-vii.lets-go-pikachu-lets-go-eevee: lacks name_icon (required by IconNameWithSymbol)',
  'pokedex-promise-v2 type sprites.generation-vii.sun-moon: lacks name_icon (required by IconName)',
  'pokedex-promise-v2 type sprites.generation-vii.ultra-sun-ultra-moon: lacks name_icon (required by IconName)',
  'pokedex-promise-v2 type sprites.generation-viii.brilliant-diamond-shining-pearl: lacks name_icon (required by IconNameWithSymbol)',
  'pokedex-promise-v2 type sprites.generation-viii.legends-arceus: lacks name_icon (required by IconNameWithSymbol)',
  'pokedex-promise-v2 type sprites.generation-viii.sword-shield: lacks name_icon (required by IconNameWithSymbol)',
  'pokenode-ts type sprites.generation-iii.colosseum: lacks name_icon (required by TypeGameSprites)',
  'pokenode-ts type sprites.generation-iii.emerald: lacks name_icon (required by TypeGameSprites)',
  'pokenode-ts type sprites.generation-iii.firered-leafgreen: lacks name_icon (required by TypeGameSprites)',
  'pokenode-ts type sprites.generation-iii.ruby-sapphire: lacks name_icon (required by TypeGameSprites)',
  'pokenode-ts type sprites.generation-iii.xd: lacks name_icon (required by TypeGameSprites)',
  'pokenode-ts type sprites.generation-iv.diamond-pearl: lacks name_icon (required by TypeGameSprites)',
  'pokenode-ts type sprites.generation-iv.heartgold-soulsilver: lacks name_icon (required by TypeGameSprites)',
  'pokenode-ts type sprites.generation-iv.platinum: lacks name_icon (required by TypeGameSprites)',
  'pokenode-ts type sprites.generation-ix.scarlet-violet: lacks name_icon (required by TypeGameSprites)',
  'pokenode-ts type sprites.generation-v.black-2-white-2: lacks name_icon (required by TypeGameSprites)',
  'pokenode-ts type sprites.generation-v.black-white: lacks name_icon (required by TypeGameSprites)',
  'pokenode-ts type sprites.generation-vi.omega-ruby-alpha-sapphire: lacks name_icon (required by TypeGameSprites)',
  'pokenode-ts type sprites.generation-vi.x-y: lacks name_icon (required by TypeGameSprites)',
  'pokenode-ts type sprites.generation-vii.lets-go-pikachu-lets-go-eevee: lacks name_icon (required by TypeGameSprites)',
  'pokenode-ts type sprites.generation-vii.sun-moon: lacks name_icon (required by TypeGameSprites)',
  'pokenode-ts type sprites.generation-vii.ultra-sun-ultra-moon: lacks name_icon (required by TypeGameSprites)',
  'pokenode-ts type sprites.generation-viii.brilliant-diamond-shining-pearl: lacks name_icon (required by TypeGameSprites)',
  'pokenode-ts type sprites.generation-viii.legends-arceus: lacks name_icon (required by TypeGameSprites)',
  'pokenode-ts type sprites.generation-viii.sword-shield: lacks name_icon (required by TypeGameSprites)',
  // A chain three deep, as CLIENT_TYPES.
  'pokenode-ts evolution-chain chain.evolves_to[].evolves_to[].evolution_details[].base_form: not in EvolutionDetail',
  // pokenode-ts's types of names and references are narrower than PokeAPI's data: a trigger named
  // `other`, a stat named `special`, a species with no habitat, a region with no main generation.
  'pokenode-ts evolution-trigger name: string, not EvolutionTriggerName',
  'pokenode-ts pokemon-species habitat: null, not NamedAPIResource<PokemonHabitat>',
  'pokenode-ts region main_generation: null, not NamedAPIResource<Generation>',
  'pokenode-ts stat name: string, not "attack" | "defense" | "hp" | "special-attack" | "special-defense" | "speed" | "accuracy" | "evasion"',
];

/** On every record of the shipped world, beyond those of SHIPPED. */
export const EVERY_SHIPPED = [
  // Sprites keyed by the world's own games, in every generation.
  'pokedex-promise-v2 pokemon sprites.versions.generation-ii: lacks crystal, gold, silver (required by GenerationIi)',
  'pokedex-promise-v2 pokemon sprites.versions.generation-iii: lacks emerald, firered-leafgreen, ruby-sapphire (required by VersionsGenerationIii)',
  'pokedex-promise-v2 pokemon sprites.versions.generation-iv: lacks diamond-pearl, heartgold-soulsilver, platinum (required by VersionsGenerationIv)',
  'pokedex-promise-v2 pokemon sprites.versions.generation-v: lacks black-white (required by VersionsGenerationV)',
  'pokedex-promise-v2 pokemon sprites.versions.generation-vi: lacks omegaruby-alphasapphire, x-y (required by VersionsGenerationVi)',
  'pokenode-ts pokemon sprites.versions.generation-ii.tide-ember: not in GenerationIISprites',
  'pokenode-ts pokemon sprites.versions.generation-iii.frost-bloom: not in GenerationIIISprites',
  'pokenode-ts pokemon sprites.versions.generation-iv.gale-stone: not in GenerationIVSprites',
  'pokenode-ts pokemon sprites.versions.generation-v.cobalt-coral: not in GenerationVSprites',
  'pokenode-ts pokemon sprites.versions.generation-vi.thunder-hush: not in GenerationVISprites',
  // The world's own egg groups, where pokenode-ts's type names PokeAPI's; a move raising a stat by
  // three, where its type allows one or two (PokeAPI's data has threes too).
  'pokenode-ts egg-group name: string, not "ground" | "flying" | "bug" | "dragon" | "fairy" | "monster" | "water1" | "water2" | "water3" | "plant" | "humanshape" | "mineral" | "indeterminate" | "ditto" | "no-eggs"',
  'pokenode-ts stat affecting_moves.increase[].change: number, not 1 | 2 | -1 | -2',
];

// Colours drawn from names: the same in the sprites the build draws and in the explorer page.
// No imports, so the page can use it as it is.

/** A stable 32-bit hash of a string (FNV-1a). */
export function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Hues people expect for the familiar type names; any other name gets one from its hash. */
const HUES: Record<string, number> = {
  normal: 45,
  fire: 18,
  water: 215,
  grass: 110,
  electric: 50,
  ice: 185,
  fighting: 0,
  poison: 285,
  ground: 35,
  flying: 235,
  psychic: 330,
  bug: 75,
  rock: 40,
  ghost: 265,
  dragon: 250,
  dark: 20,
  steel: 200,
  fairy: 320,
};
/** Saturation and lightness per familiar name where the hue alone would not tell them apart. */
const TONES: Record<string, [number, number]> = {
  normal: [20, 52],
  rock: [40, 40],
  ground: [55, 45],
  dark: [22, 30],
  steel: [18, 50],
  ghost: [35, 42],
};

/** A type's colour, the same wherever it is drawn; shiny turns the hue. */
export function typeColour(typeName: string, shiny = false): string {
  const base = HUES[typeName] ?? hash(typeName) % 360;
  const [saturation, lightness] = TONES[typeName] ?? [62, 46];
  return `hsl(${(base + (shiny ? 150 : 0)) % 360} ${saturation}% ${lightness}%)`;
}

// Sprites are drawn at build time from the data: a type's name icon (its name on its colour) and
// each creature form's front and back images, with a shiny variant and, where the species looks
// different by gender, female ones. Same data, same bytes.
import { hash, typeColour } from './colour.ts';
import { apiPaths } from '../paths.ts';
import type { Entry, Store } from '../store.ts';

export interface TypeIcon {
  generation: Entry;
  versionGroup: Entry;
  path: string;
}

/** One name icon per version group from the type's own generation on. */
export function typeIcons(store: Store, type: Entry): TypeIcon[] {
  const since = store.target(type.data.generation)?.id ?? 0;
  const icons: TypeIcon[] = [];
  for (const vg of store.valid('version-group')) {
    const generation = store.target(vg.data.generation);
    if (!generation || generation.id < since) continue;
    icons.push({ generation, versionGroup: vg, path: apiPaths.typeIcon(generation.name, vg.name, type.id) });
  }
  return icons;
}

export function renderTypeIcon(type: Entry, versionGroup: Entry): string {
  const label = escapeXml(type.name.toUpperCase());
  const rounded = hash(versionGroup.name) % 2 === 0 ? 6 : 2;
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="96" height="24" viewBox="0 0 96 24">',
    `<rect width="96" height="24" rx="${rounded}" fill="${typeColour(type.name)}"/>`,
    `<text x="48" y="16.5" text-anchor="middle" font-family="sans-serif" font-size="12" font-weight="700" fill="#fff">${label}</text>`,
    '</svg>',
    '',
  ].join('\n');
}

export const FORM_SPRITE_KEYS = [
  'back_default',
  'back_female',
  'back_shiny',
  'back_shiny_female',
  'front_default',
  'front_female',
  'front_shiny',
  'front_shiny_female',
] as const;

/**
 * PokeAPI's `other` sets of a creature's images, each with the keys PokeAPI gives it. The build draws
 * one image per variant, so each set takes the form's sprites of the same keys.
 */
export const OTHER_SPRITE_SETS: Record<string, readonly (typeof FORM_SPRITE_KEYS)[number][]> = {
  dream_world: ['front_default', 'front_female'],
  home: ['front_default', 'front_female', 'front_shiny', 'front_shiny_female'],
  'official-artwork': ['front_default', 'front_shiny'],
  showdown: FORM_SPRITE_KEYS,
};
/** Variants a set has in PokeAPI that are null in every record it publishes: null here too. */
export const OTHER_SPRITES_NEVER: Record<string, readonly string[]> = { showdown: ['back_shiny_female'] };

export interface FormSprite {
  key: (typeof FORM_SPRITE_KEYS)[number];
  variant: { back: boolean; shiny: boolean; female: boolean };
  path: string;
}

/** Each sprite key's variant, and the folders its files go in (`apiPaths.formSprite`): the same for every form. */
const SPRITE_VARIANTS = FORM_SPRITE_KEYS.map((key) => {
  const variant = Object.freeze({ back: key.startsWith('back'), shiny: key.includes('shiny'), female: key.includes('female') });
  const parts = [variant.back && 'back', variant.shiny && 'shiny', variant.female && 'female'].filter((p): p is string => !!p);
  return { key, variant, parts };
});

/** Every sprite key of a form, with its file, or null where the form has no such variant. */
export function formSprites(store: Store, form: Entry): Array<FormSprite | { key: FormSprite['key']; path: null }> {
  const species = store.target(store.target(form.data.creature)?.data.species);
  const rate = species?.data.gender_rate as number | undefined;
  const hasFemale = species?.data.has_gender_differences === true && rate !== undefined && rate >= 1 && rate <= 7;
  return SPRITE_VARIANTS.map(({ key, variant, parts }) =>
    variant.female && !hasFemale ? { key, path: null } : { key, variant, path: apiPaths.formSprite(parts, form.id) },
  );
}

/** A small creature: a body in its first type's colour, a belly in its second, a face from the front. */
export function renderFormSprite(form: Entry, typeNames: string[], variant: FormSprite['variant']): string {
  const h = hash(form.name);
  const body = typeColour(typeNames[0] ?? 'unknown', variant.shiny);
  const belly = typeColour(typeNames[1] ?? typeNames[0] ?? 'unknown', variant.shiny);
  const rx = 22 + (h % 8);
  const ry = 20 + ((h >>> 3) % 8);
  const ear = 8 + ((h >>> 6) % 10);
  const parts = [
    '<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96">',
    `<path d="M${48 - rx + 4} ${56 - ry} l${6} ${-ear} l${8} ${ear + 4}z M${48 + rx - 4} ${56 - ry} l${-6} ${-ear} l${-8} ${ear + 4}z" fill="${body}"/>`,
    `<ellipse cx="48" cy="58" rx="${rx}" ry="${ry}" fill="${body}" stroke="#222" stroke-width="2"/>`,
  ];
  if (!variant.back) {
    parts.push(
      `<ellipse cx="48" cy="${64 + (h % 4)}" rx="${Math.round(rx * 0.55)}" ry="${Math.round(ry * 0.45)}" fill="${belly}"/>`,
      `<circle cx="${40 - (h % 3)}" cy="52" r="3.5" fill="#222"/>`,
      `<circle cx="${56 + (h % 3)}" cy="52" r="3.5" fill="#222"/>`,
    );
  } else {
    parts.push(`<path d="M${48 - rx / 2} 70 q${rx / 2} 8 ${rx} 0" stroke="${belly}" stroke-width="4" fill="none"/>`);
  }
  if (variant.female) parts.push(`<path d="M60 ${52 - ry} l8 -6 v12z M60 ${52 - ry} l-8 -6 v12z" fill="#e0407a"/>`);
  if (variant.shiny) parts.push('<path d="M78 14 l2 6 6 2 -6 2 -2 6 -2 -6 -6 -2 6 -2z" fill="#f5c400"/>');
  parts.push('</svg>', '');
  return parts.join('\n');
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

// --- images an author gives ----------------------------------------------------------------------
//
// A record may give any place of its sprite tree (and a creature its cries): an absolute url, kept
// as it is; the name of a file in its own folder, published at `media/<kind>/<id>/<file>` (media.ts);
// or null, no image. A place left out is drawn by the build, where it draws one (a form's variants, a
// type's name icon), or taken from the default form (a creature's). Each function below takes the
// tree as written or as it already completed it, and gives the same tree: what it completed is urls.

type Tree = Record<string, any>;

const ABSOLUTE = /^https?:\/\//;

/** A place's value as published: a url as given, a file of the record's folder as its url, null as null. */
function mediaUrl(store: Store, entry: Entry, value: unknown): unknown {
  if (typeof value !== 'string' || ABSOLUTE.test(value)) return value;
  return store.urls.file(apiPaths.media(entry.kind, entry.id, value));
}

/** A tree as the author gave it, each file named in it as its url. */
function given(store: Store, entry: Entry, value: unknown): Tree {
  const walk = (node: unknown): unknown =>
    node && typeof node === 'object'
      ? Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]))
      : mediaUrl(store, entry, node);
  return value && typeof value === 'object' ? (walk(value) as Tree) : {};
}

/** The url of a drawn image, or null where there is none. */
const drawnUrl = (store: Store, path: string | null) => path && store.urls.file(path);

/** A form's images by key: each as given, else drawn (null where the form has no such variant). */
export function formSpriteTree(store: Store, form: Entry): Tree {
  const drawn = Object.fromEntries(formSprites(store, form).map((s) => [s.key, drawnUrl(store, s.path)]));
  return { ...drawn, ...given(store, form, form.data.sprites) };
}

/** The form's drawn images the build writes: those of the places the author left out. */
export function formSpritesToDraw(store: Store, form: Entry): FormSprite[] {
  const tree = formSpriteTree(store, form);
  return formSprites(store, form).filter((s): s is FormSprite => s.path !== null && tree[s.key] === store.urls.file(s.path));
}

/**
 * A creature's images: each place as it gives it, else its default form's (PokeAPI gives both the
 * same files), null without one. `other` holds them again as PokeAPI shapes it, set by set and key
 * by key; in `versions` a version group the creature gives is its own whole, and the default form's
 * version group, where it gives none, holds the form's images (a later one would repeat them).
 */
export function creatureSpriteTree(store: Store, creature: Entry, form: Entry | undefined): Tree {
  const formTree = form && formSpriteTree(store, form);
  const flat = Object.fromEntries(FORM_SPRITE_KEYS.map((key) => [key, formTree?.[key] ?? null]));
  const pick = (keys: readonly string[], never: readonly string[] = []) =>
    Object.fromEntries(keys.map((key) => [key, never.includes(key) ? null : flat[key]]));
  const own = given(store, creature, creature.data.sprites);
  const other = Object.fromEntries(
    Object.entries(OTHER_SPRITE_SETS).map(([set, keys]) => [set, { ...pick(keys, OTHER_SPRITES_NEVER[set]), ...own.other?.[set] }]),
  );
  const versionGroup = form && store.target(form.data.version_group);
  const generation = versionGroup && store.target(versionGroup.data.generation);
  const versions: Tree = generation ? { [generation.name]: { [versionGroup.name]: pick(FORM_SPRITE_KEYS) } } : {};
  for (const [name, groups] of Object.entries(own.versions ?? {})) versions[name] = { ...versions[name], ...(groups as Tree) };
  return { ...flat, ...own, other: { ...own.other, ...other }, versions };
}

/**
 * A type's icons, generation → version group: each version group as the type gives it, whole, and
 * every other one from its generation on with a name icon drawn. A name icon is a url or absent (the
 * specification's): one given as null is left out.
 */
export function typeSpriteTree(store: Store, type: Entry): Tree {
  const tree: Tree = {};
  for (const icon of typeIcons(store, type))
    (tree[icon.generation.name] ??= {})[icon.versionGroup.name] = { name_icon: store.urls.file(icon.path) };
  for (const [name, groups] of Object.entries(given(store, type, type.data.sprites))) {
    tree[name] = { ...tree[name] };
    for (const [group, icons] of Object.entries((groups ?? {}) as Tree)) {
      const { name_icon: nameIcon, ...rest } = (icons ?? {}) as Tree;
      tree[name][group] = nameIcon === null || nameIcon === undefined ? rest : { name_icon: nameIcon, ...rest };
    }
  }
  return tree;
}

/** The type's name icons the build writes: those of the version groups the author gave none for. */
export function typeIconsToDraw(store: Store, type: Entry): TypeIcon[] {
  const tree = typeSpriteTree(store, type);
  return typeIcons(store, type).filter(
    (icon) => tree[icon.generation.name]?.[icon.versionGroup.name]?.name_icon === store.urls.file(icon.path),
  );
}

/** Places with nothing drawn for them (an item's image, a creature's cries): each as given, null where left out. */
export function givenPlaces(store: Store, entry: Entry, value: unknown, keys: readonly string[]): Tree {
  const own = given(store, entry, value);
  return Object.fromEntries(keys.map((key) => [key, own[key] ?? null]));
}

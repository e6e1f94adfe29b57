// A PokeAPI record's shape, held to its kind's response schema as it is read: PokeAPI's records are
// this API's in another's words, so every field both know is of the type the specification gives.
// Only types are compared (an object, a list, a string, a number): whatever else the build would
// refuse is found on the mapped record (admit.ts). What the stages after read may then take for
// granted: a list is a list, an object an object, wherever the importer looks.
import { show } from '../report/hints.ts';
import { pointerOf } from '../report/problems.ts';
import type { Schema } from '../schemas/schemas.ts';
import { ourName } from './kinds.ts';

/**
 * Where PokeAPI holds a list of what the specification holds one of (prepare.ts folds each into
 * one): the field's path in this project's names, `[]` standing for a list's items.
 */
const LISTS: Record<string, string[][]> = {
  'location-area': [
    ['creature_encounters', '[]', 'version_details', '[]', 'encounter_details'],
    ['creature_encounters', '[]', 'version_details', '[]', 'encounter_details', '[]', 'condition_values'],
  ],
};

/** The shape of a PokeAPI record of `kind`: its response schema, with PokeAPI's lists where the specification has one. */
export function pokeApiShape(kind: string, response: Schema): Schema {
  return (LISTS[kind] ?? []).reduce(listAt, response);
}

function listAt(schema: Schema, path: string[]): Schema {
  const [step, ...rest] = path;
  if (step === undefined) return { type: 'array', items: schema };
  if (step === '[]') return { ...schema, items: listAt(schema.items, rest) };
  return { ...schema, properties: { ...schema.properties, [step]: listAt(schema.properties[step], rest) } };
}

/**
 * Where `value` is not of the type `shape` gives, said in words with its JSON pointer; undefined
 * when every field the shape knows fits. A reference may be null: the import drops or fills it. A
 * shape that holds itself (a chain's link) refers to its own `$defs` in `root`, and is followed as
 * deep as the record goes.
 */
export function misfit(root: Schema, value: unknown): string | undefined {
  return misfitAt(root, root, value, []);
}

function misfitAt(root: Schema, shape: Schema, value: unknown, at: Array<string | number>): string | undefined {
  if (typeof shape.$ref === 'string') return misfitAt(root, defined(root, shape.$ref), value, at);
  if (value === null && (shape['x-ref'] || shape['x-ref-by'])) return undefined;
  const branches: Schema[] | undefined = shape.anyOf ?? shape.oneOf;
  if (branches) {
    const found = branches.map((branch) => misfitAt(root, branch, value, at));
    return found.includes(undefined) ? undefined : found[0];
  }
  const types: string[] | undefined = shape.type && [shape.type].flat();
  if (types && !types.includes(typeOf(value)) && !(typeOf(value) === 'integer' && types.includes('number'))) {
    return `${pointerOf(at) || 'the record'} is ${show(value)} where the specification has ${types.map(words).join(' or ')}`;
  }
  if (Array.isArray(value))
    return shape.items
      ? first(
          root,
          value.map((item, i) => [shape.items, item, [...at, i]]),
        )
      : undefined;
  if (value && typeof value === 'object' && shape.properties) {
    const known = Object.entries(value).filter(([key]) => Object.hasOwn(shape.properties, ourName(key)));
    return first(
      root,
      known.map(([key, field]) => [shape.properties[ourName(key)], field, [...at, key]]),
    );
  }
  return undefined;
}

/** The first misfit of the places given. */
function first(root: Schema, places: Array<[Schema, unknown, Array<string | number>]>): string | undefined {
  for (const [shape, value, at] of places) {
    const found = misfitAt(root, shape, value, at);
    if (found) return found;
  }
  return undefined;
}

/** The shape a `$ref` of the inlined schema names: one of its own `$defs` (schemas.ts keeps only those). */
function defined(root: Schema, ref: string): Schema {
  const name = ref.startsWith('#/$defs/') ? ref.slice('#/$defs/'.length) : undefined;
  const shape = name === undefined ? undefined : root.$defs?.[name];
  if (!shape) throw new Error(`the shape names ${ref}, which it does not define`);
  return shape;
}

const typeOf = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
};

const WORDS: Record<string, string> = { array: 'a list', object: 'a mapping', null: 'null' };
const words = (type: string) => WORDS[type] ?? `a ${type}`;

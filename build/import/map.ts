// Stage 3, map: a prepared PokeAPI record into a source record, led by the kind's source schema.
// A field the source has is carried over, renamed ("pokemon" → "creature"), a reference written as
// the other record's name; a field only the published record has is derived by the build and left
// out (agree.ts checked PokeAPI's two statements of it); any other field is noted as dropped.
import type { KindInfo, Schema } from '../schemas/schemas.ts';
import { ourName, refTarget, type Poke, type World } from './kinds.ts';
import type { Losses } from './losses.ts';

const DROP = Symbol('drop');
type Out = unknown | typeof DROP;

interface Walk {
  world: World;
  losses: Losses;
  kind: string;
  record: string;
}

/** The source record of `record`, its keys in the source schema's order. */
export function mapRecord(kind: string, record: Poke, info: KindInfo, world: World, losses: Losses): Poke {
  const walk: Walk = { world, losses, kind, record: String(record.name ?? record.id) };
  return mapObject(info.source, info.response, record, '', walk) as Poke;
}

function mapNode(source: Schema, response: Schema | undefined, value: unknown, at: string, walk: Walk, required = false): Out {
  if (source['x-ref']) return mapRef(source, value, at, walk, required);
  if (source['x-ref-by']) return mapTrigger(source, value, at, walk);
  // Where the source takes one reference or a list of them (`x-source: "many"`), one is mapped as a reference.
  const one = source.anyOf?.find((branch: Schema) => branch['x-ref']);
  if (one && !Array.isArray(value)) return mapRef(one, value, at, walk, required);
  // A list or an object that may be null (`oneOf` it and null) is mapped as that branch, when it is not null.
  const branch = value !== null && !source.items && !source.properties ? branchFor(source, value) : undefined;
  if (branch) return mapNode(branch, branchFor(response, value) ?? response, value, at, walk, required);
  if (Array.isArray(value)) {
    if (!source.items) return value;
    return value.map((item) => mapNode(source.items, response?.items, item, `${at}[]`, walk)).filter((item) => item !== DROP);
  }
  if (value && typeof value === 'object' && source.properties) return mapObject(source, response, value as Poke, at, walk);
  return value;
}

function mapObject(source: Schema, response: Schema | undefined, value: Poke, at: string, walk: Walk): Out {
  const out: Poke = {};
  const responseProps = propertiesOf(response);
  for (const [pokeKey, field] of Object.entries(value)) {
    const key = ourName(pokeKey);
    const path = at ? `${at}.${key}` : key;
    // Own fields only: a key such as `toString` names nothing in a schema.
    const schema = Object.hasOwn(source.properties, key) ? source.properties[key] : undefined;
    const responseField = Object.hasOwn(responseProps, key) ? responseProps[key] : undefined;
    if (!schema) {
      // Derived by the build (held to PokeAPI's own statement in agree.ts), or not in this API at all.
      // A null or an empty list says nothing, so leaving it out loses nothing.
      const empty = field === null || (Array.isArray(field) && field.length === 0);
      if (!responseField && !empty) walk.losses.add('dropped', 'field-not-in-schema', walk.kind, path, walk.record);
      continue;
    }
    // A null the build fills in itself (a field whose source default is null) says nothing.
    if (field === null && schema.default === null) continue;
    const mapped = mapNode(schema, responseField, field, path, walk, (source.required ?? []).includes(key));
    if (mapped === DROP) {
      // An item without a part it needs goes (its loss is noted); a record stays, for admit.ts to refuse.
      if (at && (source.required ?? []).includes(key)) return DROP;
      continue;
    }
    out[key] = mapped;
  }
  return ordered(out, source);
}

/** The object's keys in the schema's order; an empty list the source may leave out, left out. */
function ordered(out: Poke, source: Schema): Poke {
  const sorted: Poke = {};
  for (const key of Object.keys(source.properties)) {
    if (!(key in out)) continue;
    const optionalList = Array.isArray(out[key]) && out[key].length === 0 && Array.isArray(source.properties[key].default);
    if (!optionalList) sorted[key] = out[key];
  }
  return sorted;
}

/** The branch of a `oneOf` (or `anyOf`) that holds `value`'s shape: a list's, or an object's. */
function branchFor(schema: Schema | undefined, value: unknown): Schema | undefined {
  const list = Array.isArray(value);
  return (schema?.oneOf ?? schema?.anyOf ?? []).find((s: Schema) => (list ? s.items : s.properties) !== undefined);
}

function propertiesOf(schema: Schema | undefined): Record<string, Schema> {
  if (!schema) return {};
  if (schema.properties) return schema.properties;
  const branch = (schema.anyOf ?? schema.oneOf ?? []).find((s: Schema) => s.properties);
  return branch?.properties ?? {};
}

/**
 * A reference, `{name, url}` in PokeAPI, is the target's name in the source. A null the field may
 * not hold, where it is required (a type's or a stat's move damage class), becomes the first record
 * of that kind by id.
 */
function mapRef(source: Schema, value: unknown, at: string, walk: Walk, required: boolean): Out {
  if (value !== null) return nameOf(value, source['x-ref'], at, walk) ?? DROP;
  if ([source.type].flat().includes('null')) return null;
  const records = walk.world.get(source['x-ref']);
  const first = records && [...records.values()].sort((a, b) => a.id - b.id)[0];
  if (!required || !first) return DROP;
  walk.losses.add('substituted', 'null-reference', walk.kind, at, walk.record);
  return first.name;
}

function nameOf(ref: unknown, kind: string, at: string, walk: Walk): string | undefined {
  const target = refTarget(ref);
  if (!target || target.kind !== kind) {
    walk.losses.add('dropped', 'reference-to-other-kind', walk.kind, at, walk.record);
    return undefined;
  }
  const record = walk.world.get(target.kind)?.get(target.id);
  if (!record) {
    walk.losses.add('dropped', 'reference-to-missing-record', walk.kind, at, walk.record);
    return undefined;
  }
  return record.name;
}

/**
 * A form's trigger condition, `{trigger, name, url}`: kept when the source format knows the word and
 * the record named is of the kind that word names (`x-ref-by`), the record written by name. One of a
 * word that names no record (`unnamed`: gigantamax-factor) is kept with its word alone: the record
 * leaves it out, and its trigger-conditions sub-resource gives it.
 */
function mapTrigger(source: Schema, value: unknown, at: string, walk: Walk): Out {
  const condition = value as Poke;
  const { kinds, unnamed = [] } = source['x-ref-by'] as { kinds: Record<string, string>; unnamed?: string[] };
  const trigger = condition?.trigger;
  // The fields beside its word, name and url (a base form), mapped as any field is.
  const { trigger: _word, name: _name, url: _url, ...beside } = condition ?? {};
  const besides = () => {
    const rest = mapObject(source, undefined, beside, at, walk);
    return rest === DROP ? {} : (rest as Poke);
  };
  if (typeof trigger === 'string' && unnamed.includes(trigger) && condition.url === undefined && condition.name === undefined) {
    walk.losses.add('folded', 'trigger-condition-unnamed', walk.kind, `${at}(${trigger})`, walk.record);
    return { trigger, ...besides() };
  }
  const kind = typeof trigger === 'string' && Object.hasOwn(kinds, trigger) ? kinds[trigger] : undefined;
  if (!condition?.url || !kind) {
    walk.losses.add('dropped', 'trigger-condition', walk.kind, `${at}(${condition?.trigger})`, walk.record);
    return DROP;
  }
  const name = nameOf(condition, kind, at, walk);
  if (name === undefined) return DROP;
  return { trigger, name, ...besides() };
}

// The response schemas in `schemas/` are the one description of every record. This module reads
// them and derives what the build needs from them: the source format an author writes, and the
// places in a record that hold references.
//
// Annotations (ignored by validators and by the type generator):
//   x-ref: KIND          this NamedRef points at a record of KIND
//   x-ref-by: {field, kinds, unnamed?}  this object is a reference whose kind `field` names: `kinds`
//                        maps each word the field may hold to the kind of record it names; a word
//                        of `unnamed` names no record, and the object has no name or url. The
//                        record leaves such an object out of its list (its schema holds the others)
//   x-source: "omit"     derived by the build; an author never writes it
//   x-source: "optional" derived (or defaulted) by the build when the author leaves it out
//   x-source: {pick}     the author writes any of the listed fields; the build completes the rest
//   x-source: "many"     (on a reference) the author may write a list of references here, where the
//                        specification publishes one: the record publishes the first, and what is
//                        derived from the record (a creature's encounters) reads them all
//   x-source: "only"     (a record's top-level field) the author writes it and derivations read it,
//                        but it is never published: the source schema has it, the response schema,
//                        the published schemas, the types and the OpenAPI document do not
//   x-sub-resource: {name, title, description, schema}  (a derived top-level field) its
//                        derivation's value, of that schema, is published at the record's path/NAME/
//                        (render.ts, the OpenAPI document), and the field gives that url. With
//                        `whole: true` (an authored list of x-ref-by objects) the list as written is
//                        published there, every object, and the field keeps those naming a record
//   x-media: true        (beside x-source "optional") a tree of images or sounds: the author may give
//                        any place a url, a file of the record's folder, or null (media.ts)
//   x-lookup: ["id"]     (root) the record is published by id only; default is by id and by name
//   x-inverse: {kind, field}  (a record's top-level list of references) derived: the records of KIND
//                        whose FIELD (a reference, or a list of them; top-level, or a dotted path
//                        through lists such as moves.move) points at this one, in id order. Like
//                        x-source "omit", the author never writes it
// A list the response requires may be left out of a source record; it is then empty.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { Cache } from '../cache.mjs';
import { readInside, SLUG, UsageError } from '../guard.mjs';
import { cacheArea, schemasDir } from '../paths.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = { [key: string]: any };

/**
 * A record's name, which is also a path: lowercase letters and digits in parts joined by one hyphen
 * or two (PokeAPI's `acid-downpour--physical`, `verdant-cavern--trial-site-area`), not only digits
 * (a path of digits is an id's). Nothing else a path could misread: no `/`, `\`, `.`, `%`, spaces.
 */
export { SLUG };
export const INT32_MAX = 2147483647;

/** A place in a record that holds references: a path where '*' stands for every item or key. */
export type RefSite =
  | { path: string[]; kind: string; many?: true }
  | { path: string[]; byField: string; kinds: Record<string, string> };

/** The kinds a reference site may point at. */
export const kindsOf = (site: RefSite): string[] => ('kind' in site ? [site.kind] : [...new Set(Object.values(site.kinds))]);

export interface KindInfo {
  kind: string;
  title: string;
  /** The response schema with every $ref inlined, annotations kept. */
  response: Schema;
  /** The schema an author's source record is checked against. */
  source: Schema;
  /** Where the record holds references, source and derived alike. */
  refSites: RefSite[];
  byName: boolean;
  /** The lowest id a record may have: 1, or less where the schema's `id` says (PokeAPI's move ailments start at -1). */
  firstId: number;
  /** Top-level fields the build derives entirely. */
  derived: string[];
  /** Top-level fields only the source has (`x-source: "only"`): read by derivations, never published. */
  unpublished: string[];
  /** Top-level lists the build fills in with the records pointing at this one (`x-inverse`). */
  inverses: Inverse[];
  /** Top-level fields published below the record (`x-sub-resource`). */
  subResources: SubResource[];
}

/** A field published at the record's path/NAME/ (`x-sub-resource`), as render and the OpenAPI document read it. */
export interface SubResource {
  field: string;
  name: string;
  title: string;
  description: string;
  /** A written list published whole: the field of its objects' word, and the words that name no record, which the record leaves out. */
  whole?: { word: string; unnamed: ReadonlySet<string> };
}

/**
 * A list of the records of kind `from` whose field `via` points at the record holding the list, in
 * its `field`. With `as`, the list holds the items of `from`'s list that point at it instead, each
 * without the reference and with the record holding it under `as` (a creature's abilities make an
 * ability's creatures, each with its slot).
 */
export interface Inverse {
  field: string;
  from: string;
  via: string;
  as?: string;
}

export interface SchemaSet {
  /** The published schema documents keyed by their $id (`type.json`, `common.json`, …): source-only fields left out. */
  documents: Map<string, Schema>;
  kinds: Map<string, KindInfo>;
}

export function loadSchemas(files = schemaFiles()): SchemaSet {
  const written = new Map<string, Schema>();
  for (const [file, bytes] of files) {
    const doc = parseSchema(file, bytes);
    written.set(doc.$id ?? file, doc);
  }
  // Checked on the documents as written: inlining only copies their nodes, so a mark it brings is one checked here.
  for (const [id, doc] of written) assertOnlyAtTop(id, doc, true);
  const kinds = kindInfos(written);
  for (const info of kinds.values()) for (const inverse of info.inverses) assertInverse(kinds, info, inverse);
  return { documents: new Map([...written].map(([id, doc]) => [id, published(doc, fieldsMarked(doc, 'only'))])), kinds };
}

/**
 * The schema documents of `schemas/`, by file name in order, each read through the guard (a regular
 * file inside the folder, under the size limit, so that a FIFO is never waited on); anything else
 * is one line naming the file, as a schema is the project's own setting.
 */
function schemaFiles(): [string, Buffer][] {
  return fs
    .readdirSync(schemasDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const read = readInside(schemasDir, path.join(schemasDir, file));
      if ('why' in read) throw new UsageError(`schemas/${file}: ${read.why}`);
      return [file, read.bytes];
    });
}

function parseSchema(file: string, bytes: Buffer): Schema {
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new UsageError(`schemas/${file}: is not JSON (${(err as Error).message})`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new UsageError(`schemas/${file}: is not a JSON object`);
  return doc as Schema;
}

/** The project's schemas, read once per process: the build's, its threads' and its derivations'. */
export const projectSchemas = (): SchemaSet => (project ??= keptSchemas());
let project: SchemaSet | undefined;

/**
 * The project's schemas as `loadSchemas` gives them, kept in the cache's `schemas` area when the
 * build runs from its bundle: deriving every kind's source schema, inlined response and references
 * took 30-40 ms of each process and thread, and reading them back takes a quarter of that
 * (docs/PERFORMANCE.md, "Schemas kept"). The key is the bundle's folder, named by the hash of the
 * build's sources, and the schema files' bytes, so a change to either is a miss. Run from its
 * TypeScript sources (the tests), the build has no such name for its code, and derives them anew.
 */
function keptSchemas(): SchemaSet {
  const files = schemaFiles();
  if (import.meta.url.endsWith('.ts')) return loadSchemas(files);
  const hash = createHash('sha1').update(fileURLToPath(new URL('.', import.meta.url)));
  for (const [file, bytes] of files) hash.update(`\0${file}\0${bytes.length}\0`).update(bytes);
  const key = hash.digest('base64url');
  const cache = new Cache(cacheArea('schemas'));
  const kept = cache.read(key, KEPT_SCHEMAS);
  if (kept) {
    try {
      return v8.deserialize(kept) as SchemaSet;
    } catch {} // damaged before it was kept: derived again
  }
  const schemas = loadSchemas(files);
  cache.write(key, [[KEPT_SCHEMAS, v8.serialize(schemas)]], true);
  return schemas;
}
const KEPT_SCHEMAS = 'schemas.v8';

/** What the build knows of each kind, from the schema documents as written. */
function kindInfos(written: Map<string, Schema>): Map<string, KindInfo> {
  const kinds = new Map<string, KindInfo>();
  const firstIds = new Map([...written].map(([id, doc]) => [id.replace(/\.json$/, ''), firstIdOf(doc)]));
  for (const [id, doc] of written) {
    if (id === 'common.json') continue;
    const kind = id.replace(/\.json$/, '');
    // The source format and the places of references come from every field, published or not.
    const whole = inline(written, id, doc);
    const unpublished = fieldsMarked(doc, 'only');
    const inverses = Object.entries((doc.properties ?? {}) as Schema)
      .filter(([, s]) => s['x-inverse'])
      .map(([field, s]) => ({ field, from: s['x-inverse'].kind, via: s['x-inverse'].field, as: s['x-inverse'].as }));
    kinds.set(kind, {
      kind,
      title: doc.title,
      response: published(whole, unpublished),
      source: sourceSchema(whole, firstIds),
      refSites: refSites(whole),
      byName: !(doc['x-lookup'] && !doc['x-lookup'].includes('name')),
      firstId: firstIds.get(kind)!,
      derived: [...new Set([...fieldsMarked(doc, 'omit'), ...inverses.map((i) => i.field)])],
      unpublished,
      inverses,
      subResources: subResourcesOf(kind, whole),
    });
  }
  return kinds;
}

/**
 * A kind's sub-resources; `whole` is for a written list of `x-ref-by` objects, and any other field
 * so marked is refused, in one line.
 */
function subResourcesOf(kind: string, record: Schema): SubResource[] {
  return Object.entries((record.properties ?? {}) as Schema).flatMap(([field, node]) => {
    const sub = node?.['x-sub-resource'];
    if (!sub) return [];
    const one: SubResource = { field, name: sub.name, title: sub.title, description: sub.description };
    if (!sub.whole) return [one];
    const refBy = node.type === 'array' && node['x-source'] === undefined ? node.items?.['x-ref-by'] : undefined;
    if (!refBy)
      throw new UsageError(`schemas/${kind}.json: an x-sub-resource "whole" is for a written list of x-ref-by objects, which ${field} is not`);
    return [{ ...one, whole: { word: refBy.field, unnamed: new Set<string>(refBy.unnamed ?? []) } }];
  });
}

/**
 * An inverse list names a kind and one of that kind's fields that refers to this kind (a reference or
 * a list of them, at the top level or at a dotted path through lists), and holds references to that
 * kind, or with `as`, objects holding one under `as`, the path's last field being inside a list's
 * items: a schema that says otherwise is refused, naming the list, before any record is read.
 */
function assertInverse(kinds: Map<string, KindInfo>, info: KindInfo, { field, from, via, as }: Inverse): void {
  const where = `schemas/${info.kind}.json: the x-inverse of ${field}`;
  const source = kinds.get(from);
  if (!source) throw new UsageError(`${where} names the kind "${from}", which has no schema`);
  // A site's path without its lists' items ('*') is the dotted path that names it.
  const named = (site: RefSite) => site.path.filter((step) => step !== '*').join('.') === via;
  const site = source.refSites.find((one) => named(one) && kindsOf(one).includes(info.kind));
  if (!site) throw new UsageError(`${where}: ${from}.${via} is not a reference to a ${info.kind}, nor a list of them`);
  const list = info.response.properties?.[field];
  if (as === undefined) {
    if (singleRef(list) === from) return;
    if (list?.type !== 'array' || list.items?.['x-ref'] !== from)
      throw new UsageError(`${where}: the list's items must be references to a ${from} ("x-ref": "${from}"), or the field one, or null`);
    return;
  }
  if (site.path.at(-2) !== '*')
    throw new UsageError(`${where}: with "as", ${from}.${via} must be a field of a list's items, which the list is made of`);
  if (list?.type !== 'array' || list.items?.properties?.[as]?.['x-ref'] !== from)
    throw new UsageError(`${where}: the list's items must hold a reference to a ${from} in "${as}" ("x-ref": "${from}")`);
}

/**
 * The kind a field holds one reference to, maybe null (a reference, or `oneOf` a reference and
 * null): an inverse that is one record, such as a region's main generation, or undefined.
 */
export function singleRef(schema: Schema | undefined): string | undefined {
  if (schema?.['x-ref']) return schema['x-ref'];
  const refs = (schema?.oneOf ?? []).filter((s: Schema) => s['x-ref']);
  return refs.length === 1 && schema!.oneOf.every((s: Schema) => s['x-ref'] || s.type === 'null') ? refs[0]['x-ref'] : undefined;
}

/** The top-level fields whose `x-source` is `mode`. */
function fieldsMarked(doc: Schema, mode: string): string[] {
  return Object.entries((doc.properties ?? {}) as Schema)
    .filter(([, s]) => s['x-source'] === mode)
    .map(([k]) => k);
}

/** A schema document as published: without its source-only fields (`only`), which only a record's top level may have. */
function published(doc: Schema, only: readonly string[]): Schema {
  if (only.length === 0) return doc;
  const properties = Object.fromEntries(Object.entries(doc.properties as Schema).filter(([k]) => !only.includes(k)));
  return { ...doc, properties, required: (doc.required ?? []).filter((k: string) => !only.includes(k)) };
}

function assertOnlyAtTop(docId: string, node: any, top: boolean): void {
  if (!node || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' && value && typeof value === 'object') {
      for (const [name, sub] of Object.entries(value as Schema)) {
        if (!top && sub?.['x-source'] === 'only') throw new Error(`schema ${docId}: x-source "only" is for a record's top-level fields (${name})`);
        if (!top && sub?.['x-inverse']) throw new UsageError(`schemas/${docId}: x-inverse is for a record's top-level lists (${name})`);
        assertOnlyAtTop(docId, sub, false);
      }
    } else assertOnlyAtTop(docId, value, false);
  }
}

/**
 * Replace every $ref by a copy of its target; keywords beside the $ref win over the target's. A
 * shape that holds itself (an evolution chain's link, whose `evolves_to` holds links) cannot be
 * copied into itself: there the $ref stays, to a definition the root carries under `$defs`.
 */
function inline(documents: Map<string, Schema>, docId: string, node: any): any {
  const defs: Schema = {};
  const out = inlineNode(documents, docId, node, [], defs);
  return Object.keys(defs).length > 0 ? { ...out, $defs: defs } : out;
}

function inlineNode(documents: Map<string, Schema>, docId: string, node: any, within: string[], defs: Schema): any {
  if (Array.isArray(node)) return node.map((n) => inlineNode(documents, docId, n, within, defs));
  if (!node || typeof node !== 'object') return node;
  const out: Schema = {};
  if (typeof node.$ref === 'string') {
    const [file, pointer = ''] = node.$ref.split('#');
    const targetDoc = file ? file : docId;
    const doc = documents.get(targetDoc);
    if (!doc) throw new Error(`schema ${docId}: $ref to unknown document ${node.$ref}`);
    let target: any = doc;
    for (const seg of pointer.split('/').filter(Boolean)) target = target?.[seg];
    if (target === undefined) throw new Error(`schema ${docId}: $ref ${node.$ref} points at nothing`);
    const key = `${targetDoc}#${pointer}`;
    if (within.includes(key)) {
      const name = `${targetDoc.replace(/\.json$/, '')}-${pointer.split('/').pop()}`;
      if (!(name in defs)) {
        defs[name] = {};
        defs[name] = inlineNode(documents, targetDoc, target, [key], defs);
      }
      out.$ref = `#/$defs/${name}`;
    } else {
      Object.assign(out, inlineNode(documents, targetDoc, target, [...within, key], defs));
    }
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' || key === '$defs' || key === '$id' || key === '$schema') continue;
    out[key] = inlineNode(documents, docId, value, within, defs);
  }
  return out;
}

const REF_SCHEMA: Schema = {
  type: ['string', 'integer'],
  pattern: SLUG,
  minimum: 1,
  maximum: INT32_MAX,
};

/**
 * A reference as an author writes it. It keeps its `x-ref` (or its place under an `x-ref-by`), so
 * that the editors' copy of the source schemas (editor-schemas.ts) can offer the names that exist.
 */
const refSchema = (kind: string, firstIds: FirstIds): Schema => ({
  ...REF_SCHEMA,
  minimum: firstIds.get(kind) ?? 1,
  description: `A ${kind}: its name, or its id.`,
  'x-ref': kind,
});

/** The lowest id of each kind's records. */
type FirstIds = ReadonlyMap<string, number>;

/**
 * The lowest id a kind's records may have: 1, unless its schema's `id` states a lower `minimum`, as
 * where PokeAPI numbers a kind from 0 or -1 (a move ailment's "none" and "unknown").
 */
function firstIdOf(doc: Schema): number {
  const minimum = doc.properties?.id?.minimum;
  return Number.isInteger(minimum) && minimum < 1 ? minimum : 1;
}

/** The schema of the source format, derived from the inlined response schema. */
function sourceSchema(response: Schema, firstIds: FirstIds): Schema {
  const root = toSource(response, firstIds);
  const firstId = firstIdOf(response);
  root.properties.id = {
    type: 'integer',
    minimum: firstId,
    maximum: INT32_MAX,
    description: `The record id: ${firstId === 1 ? 'a positive integer' : `an integer from ${firstId}`}, unique within its kind, chosen once and never changed.`,
  };
  root.properties.name = {
    ...root.properties.name,
    pattern: SLUG,
    minLength: 1,
    description:
      'The record name, unique within its kind and the same as its file name: a lowercase slug (fire, route-12, acid-downpour--physical).',
  };
  root.required = [...new Set(['id', 'name', ...(root.required ?? [])])];
  return root;
}

/**
 * A media file's name in its record's folder (`data/<kind>/<name>/`): a slug and the extension of
 * one of the types the build publishes. Nothing a path could misread: no folder, no dot of its own.
 */
export const MEDIA_FILE = '^[a-z0-9]+(?:[-_][a-z0-9]+)*\\.(?:png|svg|ogg)$';
/**
 * A media value as an author writes it: an absolute http(s) url, kept as it is, or a file of the
 * record's folder. The url holds only what a url may (RFC 3986's characters, `%` as an escape): a
 * quote or an angle bracket in it is published as it stands, to clients that trust `format: uri`.
 */
const MEDIA_VALUE = `^(?:https?://(?:[A-Za-z0-9\\-._~:/?#@!$&'()*+,;=]|%[0-9A-Fa-f]{2})+|${MEDIA_FILE.slice(1, -1)})$`;

/**
 * A tree of images or sounds (`x-media`) as an author writes it: any of its places, each a url, a
 * file of the record's folder (by its name) or null; the build completes the places left out.
 */
function mediaSource(node: Schema): Schema {
  const out: Schema = { type: node.type };
  if (node.description) out.description = node.description;
  if (node.propertyNames) out.propertyNames = node.propertyNames;
  if (node.properties) out.properties = Object.fromEntries(Object.entries(node.properties as Schema).map(([k, v]) => [k, mediaSource(v)]));
  if (node.additionalProperties !== undefined)
    out.additionalProperties = typeof node.additionalProperties === 'object' ? mediaSource(node.additionalProperties) : node.additionalProperties;
  if (node.format !== 'uri') return out;
  return { type: ['string', 'null'], pattern: MEDIA_VALUE, description: 'An absolute http(s) url, or the name of a PNG, SVG or OGG file in the folder named after the record, beside its file.' };
}

/**
 * A reference whose kind a word beside it names (`x-ref-by`), as a source record writes it. A word
 * that names no record (`unnamed`: a form's gigantamax-factor) is written with no name.
 */
function refBySchema(refBy: { field: string; kinds: Record<string, string>; unnamed?: string[] }, others: Schema = {}): Schema {
  const { field, kinds, unnamed = [] } = refBy;
  const words = Object.keys(kinds);
  const named = [...new Set(Object.values(kinds))];
  const said = [...words.map((w) => `${w} (a ${kinds[w]})`), ...unnamed.map((w) => `${w} (no record: give no name)`)];
  const schema: Schema = {
    type: 'object',
    required: [field, 'name'],
    additionalProperties: false,
    properties: {
      ...others,
      [field]: { enum: [...words, ...unnamed], description: `What names the record: ${said.join(', ')}.` },
      name: { ...REF_SCHEMA, description: `The ${named.join(' or ')} named: its name, or its id.` },
    },
    'x-ref-by': refBy,
  };
  if (unnamed.length === 0) return schema;
  // A name is required with a word that names a kind, and refused with one that names none.
  return {
    ...schema,
    required: [field],
    if: { required: [field], properties: { [field]: { enum: unnamed } } },
    then: { properties: { name: false } },
    else: { required: ['name'] },
  };
}

/** The fields an `x-ref-by` object holds beside its word, name and url (a trigger's base form), as a source record writes them. */
function besideRefBy(node: Schema, firstIds: FirstIds): Schema {
  const skip = new Set([node['x-ref-by'].field, 'name', 'url']);
  const entries = Object.entries((node.properties ?? {}) as Schema).filter(([name]) => !skip.has(name));
  return Object.fromEntries(entries.map(([name, sub]) => [name, toSource(sub, firstIds)]));
}

function toSource(node: Schema, firstIds: FirstIds): Schema {
  if (node['x-media']) return mediaSource(node);
  if (node['x-ref'] && node['x-source'] === 'many') return manyRefsSchema(refSchema(node['x-ref'], firstIds));
  if (node['x-ref']) return refSchema(node['x-ref'], firstIds);
  if (node['x-ref-by']) return refBySchema(node['x-ref-by'], besideRefBy(node, firstIds));
  if (Array.isArray(node.oneOf)) {
    // A nullable reference collapses to one schema, so its errors read plainly.
    const ref = node.oneOf.find((s: Schema) => s['x-ref']);
    const allowsNull = node.oneOf.some((s: Schema) => s.type === 'null');
    if (ref && allowsNull && node.oneOf.length === 2) {
      return { ...refSchema(ref['x-ref'], firstIds), type: ['string', 'integer', 'null'], ...('default' in node ? { default: node.default } : {}) };
    }
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('x-')) continue;
    if (key === 'properties') {
      const props: Schema = {};
      const required = new Set<string>(node.required ?? []);
      const pick: string[] | undefined = node['x-source']?.pick;
      for (const [name, sub] of Object.entries(value as Schema)) {
        const mode = sub['x-source'];
        if ((pick && !pick.includes(name)) || mode === 'omit' || sub['x-inverse']) {
          required.delete(name);
          continue;
        }
        if (mode === 'optional' || (mode && typeof mode === 'object')) required.delete(name);
        props[name] = toSource(sub, firstIds);
        // A list may be left out of a source record: it is then empty.
        if ((!mode || mode === 'only') && sub.type === 'array' && required.delete(name)) props[name] = { ...props[name], default: [] };
      }
      if (pick) for (const name of pick) required.delete(name);
      out.properties = props;
      out.required = [...required];
    } else if (key === 'required' || key === '$defs') {
      // Required is rebuilt with properties; a shape that holds itself is a derived one's, never written.
      continue;
    } else if (key === 'items' || key === 'additionalProperties') {
      out[key] = typeof value === 'object' ? toSource(value as Schema, firstIds) : value;
    } else if ((key === 'oneOf' || key === 'anyOf') && Array.isArray(value)) {
      out[key] = value.map((s: Schema) => toSource(s, firstIds));
    } else {
      out[key] = value;
    }
  }
  if (out.required && out.required.length === 0) delete out.required;
  return out;
}

/** One reference, or (`x-source: "many"`) a list of them, as a source record writes it. */
function manyRefsSchema(one: Schema): Schema {
  return { anyOf: [one, { type: 'array', items: one, minItems: 1 }], description: `${one.description} Or a list of them.` };
}

function refSites(response: Schema): RefSite[] {
  const sites: RefSite[] = [];
  const walk = (node: Schema, at: string[]) => {
    if (!node || typeof node !== 'object') return;
    if (node['x-ref']) {
      sites.push(node['x-source'] === 'many' ? { path: at, kind: node['x-ref'], many: true } : { path: at, kind: node['x-ref'] });
      return;
    }
    if (node['x-ref-by']) {
      sites.push({ path: at, byField: node['x-ref-by'].field, kinds: node['x-ref-by'].kinds });
      // The fields beside its word, name and url may hold references of their own (a trigger's base form).
      const own = new Set([node['x-ref-by'].field, 'name', 'url']);
      for (const [name, sub] of Object.entries((node.properties ?? {}) as Schema)) if (!own.has(name)) walk(sub, [...at, name]);
      return;
    }
    for (const [name, sub] of Object.entries((node.properties ?? {}) as Schema)) walk(sub, [...at, name]);
    if (node.items) walk(node.items, [...at, '*']);
    if (node.additionalProperties && typeof node.additionalProperties === 'object') walk(node.additionalProperties, [...at, '*']);
    for (const sub of [...(node.oneOf ?? []), ...(node.anyOf ?? [])]) walk(sub, at);
  };
  walk(response, []);
  return sites;
}

/** A copy of a schema without the project's x- annotations, for tools that don't know them. */
export function stripAnnotations(node: any): any {
  if (Array.isArray(node)) return node.map(stripAnnotations);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k]) => !k.startsWith('x-'))
      .map(([k, v]) => [k, stripAnnotations(v)]),
  );
}

/**
 * Every schema document as one set of named definitions, annotations stripped, with each `$ref`
 * rewritten to point at a sibling definition through `refPrefix` (`#/$defs/` inside one JSON
 * Schema, `#/components/schemas/` inside an OpenAPI document). A kind's root is named by its
 * title, a definition of common.json by its own name, and a definition of a kind's document by
 * the kind's title followed by its name.
 */
export function bundleDefinitions(
  schemas: SchemaSet,
  refPrefix = '#/$defs/',
): { definitions: Record<string, Schema>; kindDefinition: (kind: string) => string } {
  const { documents } = schemas;
  const definitions: Schema = {};
  const kindTitle = (docId: string) => {
    const title = documents.get(docId)?.title;
    if (typeof title !== 'string') throw new Error(`schema ${docId}: no title to name it by`);
    return title;
  };
  const defName = (docId: string, name: string) => (docId === 'common.json' ? name : `${kindTitle(docId)}${name}`);
  const rewrite = (node: any, docId: string): any => {
    if (Array.isArray(node)) return node.map((n) => rewrite(n, docId));
    if (!node || typeof node !== 'object') return node;
    const out: Schema = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') {
        const [file, pointer = ''] = v.split('#');
        const target = file || docId;
        const name = pointer.split('/').pop();
        out.$ref = `${refPrefix}${name && pointer ? defName(target, name) : kindTitle(target)}`;
      } else if (k !== '$defs' && k !== '$id' && k !== '$schema') out[k] = rewrite(v, docId);
    }
    return out;
  };
  for (const [docId, doc] of documents) {
    for (const [name, def] of Object.entries((doc.$defs ?? {}) as Schema)) {
      definitions[defName(docId, name)] = rewrite(stripAnnotations(def), docId);
    }
    if (docId !== 'common.json') definitions[kindTitle(docId)] = rewrite(stripAnnotations(doc), docId);
    // A record's sub-resource (a creature's encounters) is a shape of its own, by the title its annotation gives.
    for (const sub of Object.values((doc.properties ?? {}) as Schema).map((s) => s['x-sub-resource']))
      if (sub) definitions[sub.title] = rewrite({ title: sub.title, description: sub.description, ...stripAnnotations(sub.schema) }, docId);
  }
  return { definitions, kindDefinition: (kind) => kindTitle(`${kind}.json`) };
}

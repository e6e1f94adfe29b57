// Stage 6, render: check every record against its response schema and shape it into its published bytes.
// output/trees.ts puts the files in place.
import type { Files } from '../incremental/manifest.ts';
import { hashBody, joinedHash, lacking, type OutputFile } from '../output/plan.ts';
import fs from 'node:fs';
import { descriptionFiles } from '../schemas/openapi.ts';
import { apiPaths, hostRuleFiles, META, NDJSON_LIST, NOT_FOUND_BODY } from '../paths.ts';
import { BuildFailed, fileStart, pointerOf, type Problems } from '../report/problems.ts';
import type { KindInfo, RefSite, SchemaSet, SubResource } from '../schemas/schemas.ts';
import { formSpritesToDraw, renderFormSprite, renderTypeIcon, typeIconsToDraw } from '../site/sprites.ts';
import { readMedia } from '../site/media.ts';
import { unpark, type Context } from './facts.ts';
import type { Data, Entry, Store } from '../store.ts';
import type { Validators } from '../schemas/validators.ts';
import { at } from './parse.ts';
import { serialise } from './serialise.ts';
import type { RecordRule, WorldText } from './world.ts';

interface EmitOptions {
  pretty?: boolean;
  /** Hashes of files already published (and so already checked); only other records are checked. */
  published: Files;
  /**
   * On a rebuild, the kinds with a record read again or removed. Any other kind has the same
   * members: its list is the live tree's, unchanged (where `published` holds it).
   */
  read?: ReadonlySet<string>;
  /** Files published as they are, such as the explorer page, by output-relative path. */
  extra?: Map<string, string | Buffer>;
  /** Called now and then with how many records are done, of all. */
  onRecord?: (done: number, total: number) => void;
  /** The world's title and description, for the API's description of itself. */
  world: WorldText;
  /** The world's rule each record is held to as it is published. */
  rule?: RecordRule;
  /**
   * Only the files that may differ from the live tree's: those of the records not carried over (their
   * icons and sprites included), and their kinds' NDJSON files. For a rebuild whose records all keep their facts (facts.ts), where
   * every other file is the live tree's as it is (trees.ts, `publishChanges`).
   */
  changes: boolean;
  /** What `/api/v2/meta/` states: the build's date (config.ts, `sourceDateFromEnv`) and its build key. */
  meta: { date: string; hash: string };
}

/** A file of the live tree that stays as it is: trees.ts takes its hash from the live manifest. */
const carried = (rel: string, sameAs?: string): OutputFile => ({ rel, carried: true, sameAs });

/**
 * Every file of the output, in a fixed order, made as it is asked for. Each record is read whole
 * again as it is published (facts.ts); one carried over gives its files without bytes: they are
 * the live tree's. A record whose bytes are new is checked against its response schema first, and
 * its references resolved: a problem there ends the run with BuildFailed before anything is swapped in.
 */
export function* outputFiles(
  store: Store,
  schemas: SchemaSet,
  validators: Validators,
  problems: Problems,
  options: EmitOptions,
): Generator<OutputFile> {
  const { pretty = false, published, read, extra = new Map(), onRecord, changes, world, rule, meta } = options;
  const total = [...schemas.kinds.keys()].reduce((n, kind) => n + store.valid(kind).length, 0);
  const progress = { done: 0, total, onRecord };
  const ctx: Publishing = {
    store,
    schemas,
    validators,
    problems,
    rule,
    world,
    pretty,
    published,
    read,
    hashes: new Map(),
    changes,
    progress,
    meta,
  };
  // Once there is a problem, nothing more is published; the records are still read, for the rest.
  // One loop takes every part's files: V8 optimises it while the first part runs, and a loop of its
  // own for each part was optimised again each time it reached a part that had not run yet.
  for (const part of parts(ctx, extra)) {
    for (const file of part) if (problems.count === 0) yield file;
  }
  if (problems.count > 0) throw new BuildFailed(problems.list);
}

/** What publishing needs, passed on to each part of it: what unparking needs, and how to write. */
interface Publishing extends Context, Pick<EmitOptions, 'read' | 'world' | 'meta'> {
  pretty: boolean;
  published: Files;
  /** The hash of each record's file by id, of the kind being published: what its NDJSON file is made of. */
  hashes: Map<number, string>;
  changes: boolean;
  progress: { done: number; total: number; onRecord: EmitOptions['onRecord'] };
}

/** The parts of the output in their order, each a generator of its files, made as it is reached. */
function* parts(ctx: Publishing, extra: Map<string, string | Buffer>): Generator<Generator<OutputFile>> {
  const { store, schemas, changes, progress } = ctx;
  const kinds = [...schemas.kinds.keys()];
  if (schemas.kinds.has(NDJSON_LIST)) throw new Error(`no kind may be called ${NDJSON_LIST}: its folder is the list of the NDJSON files`);
  if (schemas.kinds.has(META)) throw new Error(`no kind may be called ${META}: its folder is the API's word about itself`);
  // Each kind's records, its list and the NDJSON file of all its records.
  for (const kind of kinds) {
    if (changes && store.valid(kind).every((entry) => entry.carry)) continue;
    ctx.hashes.clear();
    yield recordFiles(kind, ctx);
    // Every record keeps its id and its name: the list is as it was.
    if (!changes) yield listFile(kind, ctx);
    yield ndjsonFile(kind, ctx);
  }
  // The site's files come from the tool, the options and the kinds alone: as they were.
  if (!changes) yield siteFiles(ctx, extra);
  // The build key changed, or there would be no build: the hash it states is new every time.
  yield metaFile(ctx);
  yield spriteFiles(ctx);
  progress.onRecord?.(progress.total, progress.total);
}

/** Records of a kind: each one's bytes at its id path, and at its name path where it has one. */
function* recordFiles(kind: string, ctx: Publishing): Generator<OutputFile> {
  const { problems, pretty, published, hashes, progress } = ctx;
  const info = ctx.schemas.kinds.get(kind)!;
  const { byName, unpublished, subResources: subs } = info;
  for (const entry of ctx.store.valid(kind)) {
    if (progress.onRecord && ++progress.done % 250 === 0) progress.onRecord(progress.done, progress.total);
    const idPath = apiPaths.record(kind, entry.id);
    if (entry.carry) {
      // Unchanged, and so are its derived fields: its published files stay as they are, with the
      // hashes the live tree's manifest lists.
      const hash = published.get(idPath);
      if (hash === undefined) throw lacking(idPath);
      hashes.set(entry.id, hash);
      if (ctx.changes) continue;
      yield carried(idPath);
      if (byName) yield carried(apiPaths.record(kind, entry.name), idPath);
      for (const sub of subs) yield* subFiles(kind, entry, sub.name, byName);
      // Its folder is as it was (its hash is the folder's too), and each of its files was published.
      for (const file of entry.file.media ?? []) yield carried(apiPaths.media(kind, entry.id, file.name));
      continue;
    }
    const before = problems.count;
    const whole = unpark(entry, ctx);
    if (!whole || problems.count > before) continue; // its own problems say what is wrong with it
    // Without the fields only its source has, and with one reference where its source may give many.
    const many = manySites(info);
    const data = unpublished.length || many.length || subs.length ? oneOfMany({ ...whole }, many) : whole;
    for (const field of unpublished) delete data[field];
    // A sub-resource is published at its own url, which the record gives in the field that held it;
    // a whole list's (`whole`) keeps in the field the objects the record's schema holds.
    const subBodies = subs.map(({ field, name }) => ({ sub: name, body: serialise(data[field] ?? [], pretty) }));
    for (const { field, name, whole } of subs)
      data[field] = whole ? namedOnly(data[field], whole) : ctx.store.urls.subResource(kind, entry.id, name);
    const body = serialise(data, pretty);
    const hash = hashBody(body);
    // Asked for only for a record published anew: a kind's validators are loaded when first asked for.
    const validate = published.get(idPath) !== hash ? ctx.validators.response.get(kind)! : undefined;
    if (validate && !validate(data)) {
      for (const { instancePath: pointer, message } of validate.errors ?? []) {
        const broken = `the published record would break its schema: ${message}`;
        problems.add({ ...at(entry.file, pointer), kind, record: entry.name, pointer, message: broken });
      }
      continue;
    }
    hashes.set(entry.id, hash);
    yield { rel: idPath, body, hash };
    if (byName) yield { rel: apiPaths.record(kind, entry.name), body, hash, sameAs: idPath };
    for (const { sub, body } of subBodies) yield* subFiles(kind, entry, sub, byName, body);
    yield* mediaFiles(entry, data, ctx);
  }
}

/**
 * The files of a record's own folder, each published at `media/<kind>/<id>/<file>`: every one must be
 * named by a field of the record's images or sounds (`x-media`) and be of its type (media.ts), and
 * every file a field names must be there. A problem is placed at the field that names the file, or
 * at the file itself when none does.
 */
function* mediaFiles(entry: Entry, data: Data, { store, schemas, problems }: Publishing): Generator<OutputFile> {
  const folder = `${entry.file.rel.slice(0, entry.file.rel.lastIndexOf('.'))}/`;
  const prefix = store.urls.file(apiPaths.media(entry.kind, entry.id, ''));
  const named = new Map<string, string>();
  const fields = Object.entries(schemas.kinds.get(entry.kind)!.response.properties ?? {}).filter(([, s]) => (s as Data)['x-media']);
  for (const [field] of fields) namedIn(data[field], [field], prefix, named);
  const media = entry.file.media ?? [];
  const problem = (name: string, message: string) => {
    const pointer = named.get(name);
    const place = pointer === undefined ? fileStart(folder + name) : at(entry.file, pointer);
    problems.add({ ...place, kind: entry.kind, record: entry.name, pointer: pointer ?? '', message });
  };
  for (const name of named.keys())
    if (!media.some((file) => file.name === name)) problem(name, `names the file ${name}, which ${folder} does not hold`);
  for (const file of media) {
    const read = readMedia(file);
    if ('why' in read) problem(file.name, `the file ${folder}${file.name} ${read.why}`);
    else if (!named.has(file.name))
      problem(file.name, `the file ${folder}${file.name} is named by no field of the record: give it a place, or remove it`);
    else yield { rel: apiPaths.media(entry.kind, entry.id, file.name), body: read.bytes };
  }
}

/** The files of the record's folder a published tree names, each with the pointer of its first place. */
function namedIn(value: unknown, at: Array<string | number>, prefix: string, named: Map<string, string>): void {
  if (typeof value === 'string' && value.startsWith(prefix)) {
    const name = value.slice(prefix.length);
    if (!named.has(name)) named.set(name, pointerOf(at));
  } else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) namedIn(v, [...at, k], prefix, named);
}

/** A whole list's objects that name a record: those whose word names none the record leaves out. */
const namedOnly = (list: unknown, { word, unnamed }: NonNullable<SubResource['whole']>) =>
  ((list ?? []) as Data[]).filter((item) => !unnamed.has(item[word] as string));

/**
 * A sub-resource's file at the record's id path, and at its name path where it has one; carried
 * from the live tree with its record when no body is given.
 */
function* subFiles(kind: string, entry: Entry, sub: string, byName: boolean, body?: string): Generator<OutputFile> {
  const idPath = apiPaths.subResource(kind, entry.id, sub);
  const namePath = apiPaths.subResource(kind, entry.name, sub);
  if (body === undefined) {
    yield carried(idPath);
    if (byName) yield carried(namePath, idPath);
    return;
  }
  const hash = hashBody(body);
  yield { rel: idPath, body, hash };
  if (byName) yield { rel: namePath, body, hash, sameAs: idPath };
}

/** The places where a kind's source may give a list of references for the one its record publishes (`x-source: "many"`). */
function manySites(info: KindInfo): RefSite[] {
  let sites = manyOf.get(info);
  if (!sites) manyOf.set(info, (sites = info.refSites.filter((site) => 'kind' in site && site.many)));
  return sites;
}
/** Kept by the kind's schema, as one process (the dev loop, a test run) builds with the schemas as each build read them. */
const manyOf = new WeakMap<KindInfo, RefSite[]>();

/**
 * `data` with the first of each list at `sites` where the record publishes one reference, as the
 * specification holds one (an encounter's condition value); the rest are read by what is derived
 * from the record. The fields it changes are copied first: the record's facts hold the lists.
 */
function oneOfMany(data: Data, sites: readonly RefSite[]): Data {
  for (const field of new Set(sites.map((site) => site.path[0]!)))
    if (data[field] !== undefined) data[field] = structuredClone(data[field]);
  const first = (value: unknown, path: readonly string[]): unknown => {
    if (path.length === 0) return Array.isArray(value) ? value[0] : value;
    if (value === null || typeof value !== 'object') return value;
    const [step, ...rest] = path;
    if (step === '*') return Array.isArray(value) ? value.map((item) => first(item, rest)) : value;
    const object = value as Data;
    if (Object.hasOwn(object, step!)) object[step!] = first(object[step!], rest);
    return object;
  };
  for (const site of sites) first(data, site.path);
  return data;
}

/**
 * A kind's list of all its records, made once its records are published: each as `{name, url}`, or
 * as `{url}` for a kind whose records publish no name (a characteristic), as PokeAPI lists them.
 */
function* listFile(kind: string, { store, schemas, pretty, published, read }: Publishing): Generator<OutputFile> {
  const listPath = apiPaths.list(kind);
  if (read && !read.has(kind) && published.has(listPath)) return yield carried(listPath);
  const entries = store.valid(kind);
  const named = !schemas.kinds.get(kind)!.unpublished.includes('name');
  const results = named ? entries.map((e) => store.ref(e)) : entries.map((e) => ({ url: store.urls.record(kind, e.id) }));
  const list = { count: entries.length, next: null, previous: null, results };
  yield { rel: listPath, body: serialise(list, pretty) };
}

/**
 * Every record of a kind in one file, one a line, ordered by id: the bytes of each record's file,
 * joined by the writer from the tree's files once they are placed, so that neither the build nor the
 * writer holds them all. Without the indent of `--pretty`, a record's file is one line already.
 */
function* ndjsonFile(kind: string, { store, pretty, hashes, problems }: Publishing): Generator<OutputFile> {
  if (problems.count > 0) return; // a record is missing: nothing more is published
  const entries = store.valid(kind);
  const parts = entries.map((e) => apiPaths.record(kind, e.id));
  const partHashes = entries.map((e) => hashes.get(e.id)!);
  const hash = joinedHash(partHashes, pretty);
  yield { rel: apiPaths.ndjson(kind), hash, join: { parts, compact: pretty, hashes: partHashes } };
}

/** The API's index, the list of NDJSON files, the 404 bodies, the hosts' rule files, the API description and the extra files. */
function* siteFiles({ store, schemas, pretty, world }: Publishing, extra: Map<string, string | Buffer>): Generator<OutputFile> {
  // The index maps kinds to their lists, and `meta` to the API's word about itself: nothing else, as PokeAPI's.
  const index = Object.fromEntries([...schemas.kinds.keys(), META].map((kind) => [kind, store.urls.list(kind)]));
  yield { rel: apiPaths.index, body: serialise(index, pretty) };
  // One per kind by name: at `api/v2/ndjson/`, not in the index.
  const ndjson = [...schemas.kinds.keys()].sort().map((kind) => ({ name: kind, url: store.urls.ndjson(kind) }));
  yield { rel: apiPaths.list(NDJSON_LIST), body: serialise({ count: ndjson.length, next: null, previous: null, results: ndjson }, pretty) };
  const notFound = serialise(NOT_FOUND_BODY, pretty);
  yield { rel: apiPaths.notFound, body: notFound };
  // The static hosts' rules, and the name their 404 page goes by (hosts/README.md).
  yield { rel: apiPaths.notFoundPage, body: notFound };
  for (const [rel, file] of hostRuleFiles) yield { rel, body: fs.readFileSync(file, 'utf8') };
  for (const [rel, body] of descriptionFiles(schemas, store.baseUrl, world)) yield { rel, body };
  for (const [rel, body] of [...extra].sort(([a], [b]) => (a < b ? -1 : 1))) yield { rel, body };
}

/**
 * `/api/v2/meta/`, as PokeAPI's: the date the build states as its own, the hash of everything the
 * output is made from (its build key: the same hash, the same bytes) and no tag.
 */
function* metaFile({ meta, pretty }: Publishing): Generator<OutputFile> {
  // In hexadecimal, as PokeAPI's (a commit's) is written.
  const hash = Buffer.from(meta.hash, 'base64url').toString('hex');
  yield { rel: apiPaths.meta, body: serialise({ deploy_date: meta.date, hash, tag: null }, pretty) };
}

/** The types' icons and the forms' sprites: those the build draws, for the places their authors left out. */
function* spriteFiles({ store, changes }: Publishing): Generator<OutputFile> {
  for (const type of store.valid('type')) {
    if (type.carry && changes) continue;
    for (const icon of typeIconsToDraw(store, type))
      yield type.carry ? carried(icon.path) : { rel: icon.path, body: renderTypeIcon(type, icon.versionGroup) };
  }
  for (const form of store.valid('creature-form')) {
    if (form.carry) {
      if (!changes) for (const sprite of formSpritesToDraw(store, form)) yield carried(sprite.path);
      continue;
    }
    const typeNames = (form.data.types ?? [])
      .slice()
      .sort((a: { slot: number }, b: { slot: number }) => a.slot - b.slot)
      .map((t: { type: { name: string } }) => t.type.name);
    for (const sprite of formSpritesToDraw(store, form))
      yield { rel: sprite.path, body: renderFormSprite(form, typeNames, sprite.variant) };
  }
}

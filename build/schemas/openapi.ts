// The API describing itself: an OpenAPI 3.1 document and the JSON Schemas of every record, both
// generated from `schemas/*.json`, published beside the records so any tool can read them.
import fs from 'node:fs';
import path from 'node:path';
import { apiPaths, META, NDJSON_LIST, NDJSON_TYPE, NOT_FOUND_BODY, projectRoot, urls } from '../paths.ts';
import { bundleDefinitions, stripAnnotations, type KindInfo, type Schema, type SchemaSet, type SubResource } from './schemas.ts';

const COMPONENTS = '#/components/schemas/';
/** Shapes the document adds beside the record schemas. */
const LIST = 'NamedRefList';
/** The list of a kind whose records publish no name: urls alone, as PokeAPI lists characteristics. */
const URL_LIST = 'UrlList';
const INDEX = 'ApiIndex';
/** `/api/v2/meta/`, the API's word about itself. */
const METADATA = 'ApiMeta';
const NOT_FOUND = 'NotFound';

/** What the document says the API is about: the world's title and description (its settings file, pipeline/world.ts). */
export interface About {
  title: string;
  description: string;
}

/** The OpenAPI 3.1 document of every endpoint, generated from the schema set, titled and described as the world is. */
export function openapiDocument(schemas: SchemaSet, baseUrl: string, about: About): Schema {
  const { definitions, kindDefinition } = bundleDefinitions(schemas, COMPONENTS);
  const kinds = [...schemas.kinds.values()];
  const extra = documentSchemas(kinds);
  assertNamesFree(extra, definitions);
  const paths = endpointPaths(kinds, kindDefinition);

  return {
    openapi: '3.1.0',
    info: {
      title: about.title,
      version: (JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version,
      description:
        `${about.description}\n\n` +
        'Read-only reference data, one record per request, as JSON. ' +
        'Generated from the JSON Schemas in schemas/. Every record links to others as {name, url}. ' +
        `Every record of a kind in one download: /api/v2/{kind}/all.ndjson, each listed at /api/v2/${NDJSON_LIST}/.`,
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: baseUrl }],
    paths,
    components: {
      schemas: { ...definitions, ...extra },
      parameters: parameterComponents(),
      responses: {
        NotFound: jsonResponse(NOT_FOUND, 'No record has that id or name.'),
      },
    },
  };
}

/** A page of a list, as PokeAPI pages: the count, the pages beside it, and its results, each `item`. */
function page(title: string, description: string, item: Schema): Schema {
  return {
    title,
    description,
    type: 'object',
    required: ['count', 'next', 'previous', 'results'],
    additionalProperties: false,
    properties: {
      count: { type: 'integer', minimum: 0 },
      next: { type: ['string', 'null'], format: 'uri' },
      previous: { type: ['string', 'null'], format: 'uri' },
      results: { type: 'array', items: item },
    },
  };
}

/** The shapes of the responses that are not records: a kind's list, the index and the 404 body. */
function documentSchemas(kinds: KindInfo[]): Schema {
  return {
    [LIST]: page(
      LIST,
      'Records of one kind: count is every record, results the page asked for by offset and limit, next and previous the urls of the pages beside it (null at either end). Without offset or limit, every record in one page.',
      { $ref: `${COMPONENTS}NamedRef` },
    ),
    [URL_LIST]: page(URL_LIST, 'Records of one kind that publish no name, each as its url alone; paged as a NamedRefList.', {
      type: 'object',
      required: ['url'],
      additionalProperties: false,
      properties: { url: { type: 'string', format: 'uri' } },
    }),
    [INDEX]: {
      title: INDEX,
      description: `The url of every list endpoint, by kind, and of ${META}, and nothing else, as PokeAPI gives it.`,
      type: 'object',
      required: [...kinds.map((k) => k.kind), META],
      additionalProperties: false,
      properties: Object.fromEntries([...kinds.map((k) => k.kind), META].map((key) => [key, { type: 'string', format: 'uri' }])),
    },
    [METADATA]: {
      title: METADATA,
      description:
        'The build that made the API, as PokeAPI gives its own: its date (SOURCE_DATE_EPOCH, in seconds since 1970; "0" when the build was given none) and a SHA-1 of everything it was made from; no tag.',
      type: 'object',
      required: ['deploy_date', 'hash', 'tag'],
      additionalProperties: false,
      properties: {
        deploy_date: { type: 'string', pattern: '^[0-9]+$' },
        hash: { type: 'string', pattern: '^[0-9a-f]{40}$' },
        tag: { type: 'null' },
      },
    },
    [NOT_FOUND]: {
      title: NOT_FOUND,
      type: 'object',
      required: Object.keys(NOT_FOUND_BODY),
      additionalProperties: false,
      properties: Object.fromEntries(Object.entries(NOT_FOUND_BODY).map(([k, v]) => [k, { type: 'string', const: v }])),
    },
  };
}

/** The document's own shapes share one namespace with the record schemas, so a clash must stop the build. */
function assertNamesFree(extra: Schema, definitions: Record<string, Schema>): void {
  for (const name of Object.keys(extra)) {
    if (name in definitions) throw new Error(`schema name ${name} is taken by a record schema`);
  }
}

/** The index endpoint, then the list and record endpoints of each kind, in the schema set's order. */
function endpointPaths(kinds: KindInfo[], kindDefinition: (kind: string) => string): Schema {
  const api = urls('');
  const paths: Schema = {
    [api.index]: {
      get: {
        operationId: 'getIndex',
        summary: 'List the kinds',
        description: 'The url of every list endpoint. A query string is accepted and ignored.',
        responses: { '200': jsonResponse(INDEX, 'The url of every list endpoint, by kind.') },
      },
    },
    [api.list(NDJSON_LIST)]: {
      get: {
        operationId: 'listNdjson',
        summary: 'List the NDJSON files',
        description:
          'Per kind, by kind name: its name, and the url of the file holding all its records. Not in the index, which lists kinds only.',
        responses: { '200': jsonResponse(LIST, 'The NDJSON file of every kind.') },
      },
    },
    [api.list(META)]: {
      get: {
        operationId: 'getMeta',
        summary: 'Get the build that made the API',
        description: 'Its date and the hash of what it was made from, as PokeAPI gives them. A query string is accepted and ignored.',
        responses: { '200': jsonResponse(METADATA, 'The date and hash of the build.') },
      },
    },
  };
  for (const info of kinds) {
    const words = info.kind.replace(/-/g, ' ');
    const op = pascal(info.kind);
    paths[api.list(info.kind)] = { get: listOperation(op, words, !info.unpublished.includes('name')) };
    paths[`${api.list(info.kind)}{id}/`] = { get: recordOperation(info, op, words, kindDefinition(info.kind)) };
    paths[api.ndjson(info.kind)] = { get: ndjsonOperation(op, words, kindDefinition(info.kind)) };
    for (const sub of info.subResources) paths[`${api.list(info.kind)}{id}/${sub.name}/`] = { get: subOperation(info, op, sub) };
  }
  return paths;
}

/**
 * A sub-resource of a record (a creature's encounters, at the url its `field` gives; a form's
 * trigger conditions, the whole of its `field`); its shape the component its annotation names.
 */
function subOperation(info: KindInfo, op: string, { field, name, title, description, whole }: SubResource): Schema {
  return {
    operationId: `get${op}${pascal(name)}`,
    summary: `Get a ${info.kind.replace(/-/g, ' ')}'s ${name.replace(/-/g, ' ')}`,
    description: `${description} ${whole ? `The record's ${field} gives those naming a record.` : `The record's ${field} gives its url.`} ${info.byName ? 'Reachable by its id or by its name.' : 'Reachable by its id only.'}`,
    parameters: [{ $ref: `#/components/parameters/${info.byName ? 'idOrName' : 'id'}` }],
    responses: {
      '200': jsonResponse(title, `The ${name.replace(/-/g, ' ')} of the ${info.kind.replace(/-/g, ' ')}.`),
      '404': { $ref: '#/components/responses/NotFound' },
    },
  };
}

/** A kind's NDJSON file: OpenAPI 3.1 has no way to type each line, so the record schema is named in words. */
function ndjsonOperation(op: string, words: string, schemaName: string): Schema {
  return {
    operationId: `all${op}`,
    summary: `Get every ${words} in one file`,
    description:
      `Newline-delimited JSON: every ${words}, one a line, in id order, each line the bytes of the record's ` +
      `own endpoint and conforming to ${COMPONENTS}${schemaName}.`,
    responses: {
      '200': { description: `Every ${words}, one a line.`, content: { [NDJSON_TYPE]: { schema: { type: 'string' } } } },
    },
  };
}

function listOperation(op: string, words: string, named: boolean): Schema {
  return {
    operationId: `list${op}`,
    summary: `List every ${words}`,
    description: `Every ${words} as ${named ? 'a name and a url' : 'its url (it publishes no name)'}, in id order: the whole list, or with offset or limit the page they ask for (as PokeAPI pages). A host that runs no code (Vercel, nginx, serve) ignores offset and limit and answers the whole list.`,
    parameters: [{ $ref: '#/components/parameters/offset' }, { $ref: '#/components/parameters/limit' }],
    responses: { '200': jsonResponse(named ? LIST : URL_LIST, `Every ${words}.`) },
  };
}

function recordOperation(info: KindInfo, op: string, words: string, schemaName: string): Schema {
  const about = info.response.description ? `${info.response.description}\n\n` : '';
  return {
    operationId: `get${op}`,
    summary: `Get ${words}`,
    description: `${about}${info.byName ? 'Reachable by its id or by its name.' : 'Reachable by its id only.'}`,
    parameters: [{ $ref: `#/components/parameters/${info.byName ? 'idOrName' : 'id'}` }],
    responses: {
      '200': jsonResponse(schemaName, `The ${words}.`),
      '404': { $ref: '#/components/responses/NotFound' },
    },
  };
}

/** How a record endpoint takes its key, and the paging parameters of a list. */
function parameterComponents(): Schema {
  return {
    idOrName: {
      name: 'id',
      in: 'path',
      required: true,
      description: 'The record id (an integer) or its name.',
      // An id may be 0 or negative where PokeAPI numbers a kind so (a move ailment's -1); a name starts with a letter or digit.
      schema: { type: 'string', pattern: '^(?:0|-?[1-9][0-9]*|[a-z0-9]+(?:--?[a-z0-9]+)*)$' },
    },
    id: {
      name: 'id',
      in: 'path',
      required: true,
      description: 'The record id.',
      schema: { type: 'integer', minimum: 1 },
    },
    offset: {
      name: 'offset',
      in: 'query',
      required: false,
      description: 'Where the page starts (default 0; a value that is not a whole number counts as 0). Ignored, with the whole list answered, by hosts that run no code.',
      schema: { type: 'integer', minimum: 0 },
    },
    limit: {
      name: 'limit',
      in: 'query',
      required: false,
      description: 'How many records a page holds (default 20, no maximum; a value that is not a positive integer counts as 20). Ignored, with the whole list answered, by hosts that run no code.',
      schema: { type: 'integer', minimum: 1 },
    },
  };
}

/** A response whose JSON body is the component schema `schemaName`. */
function jsonResponse(schemaName: string, description: string): Schema {
  return {
    description,
    content: { 'application/json': { schema: { $ref: `${COMPONENTS}${schemaName}` } } },
  };
}

/**
 * The JSON Schemas published under `schema/v2/`, by output-relative path, annotations stripped.
 * With `baseUrl`, each `$id` is the absolute url it is served from; without, it stays the bare
 * file name, which a reader resolves against the url it fetched the file from. Either way the
 * relative `$ref`s (`common.json#/$defs/NamedRef`) resolve to the published common.json.
 */
export function schemaFiles(schemas: SchemaSet, baseUrl?: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const [docId, doc] of schemas.documents) {
    const published = stripAnnotations(doc);
    if (baseUrl !== undefined) published.$id = urls(baseUrl).file(apiPaths.schema(docId));
    files.set(apiPaths.schema(docId), text(published));
  }
  return files;
}

/** Every description file of the output — the OpenAPI document and the schemas — by output-relative path. */
export function descriptionFiles(schemas: SchemaSet, baseUrl: string, about: About): Map<string, string> {
  const files = new Map<string, string>([[apiPaths.openapi, text(openapiDocument(schemas, baseUrl, about))]]);
  for (const [rel, body] of schemaFiles(schemas, baseUrl)) files.set(rel, body);
  return files;
}

/** Description files are indented for readers, whatever `--pretty` says of the records. */
const text = (value: unknown) => JSON.stringify(value, null, 2) + '\n';

function pascal(kind: string): string {
  return kind.replace(/(^|-)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
}

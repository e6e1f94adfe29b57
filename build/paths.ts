// The one place that knows where things live: record urls, the files behind them, and the
// project's own folders. Nothing else builds `/api/v2/...` strings or output paths.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot, codeCacheRoot } from './cache.mjs';

// Compiled, the build runs from a bundle elsewhere (launch.mjs), which is told the project's folder.
declare const __PROJECT_ROOT__: string | undefined;
export const projectRoot =
  typeof __PROJECT_ROOT__ === 'string' ? __PROJECT_ROOT__ : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const schemasDir = path.join(projectRoot, 'schemas');
export const defaultDataDir = path.join(projectRoot, 'data');
export const defaultOutDir = path.join(projectRoot, 'dist');
/**
 * Where `npm start` builds for an address other than the default one: a folder per address, so
 * that a server on another port never rebuilds the links another server is serving.
 */
export const serverOutputsDir = path.join(projectRoot, '.dist-serve');
/** The source format's JSON Schemas for editors, generated and committed (`npm run types`). */
export const sourceSchemasDir = path.join(schemasDir, 'source');
/** The same schemas offering the names of the records that exist: kept by builds of `data/`, git-ignored. */
export const editorSchemasDir = path.join(projectRoot, '.editor-schemas');
/**
 * The folder of one area of the build's cache (cache.mjs), by its name: the checked records under
 * CRS_CACHE_DIR when it is set, code and pages always in the project's own root. The first call
 * claims the root, and refuses (a UsageError) one that holds what the cache did not make.
 */
export const cacheArea = (area: 'records' | 'validators' | 'schemas' | 'explorer' | 'host-code') =>
  path.join(area === 'records' ? cacheRoot(projectRoot) : codeCacheRoot(projectRoot), area);

const API = 'api/v2';

/**
 * The list folder of the per-kind NDJSON files (its results name each kind's file). The index holds
 * kinds only, as PokeAPI's does; this list is linked from the OpenAPI document, the README and the
 * explorer instead. No kind may be called so.
 */
export const NDJSON_LIST = 'ndjson';
/**
 * The API's word about itself, `/api/v2/meta/`: its date and the hash of what it was built from, as
 * PokeAPI gives them. In the index beside the kinds, as PokeAPI's is; no kind may be called so.
 */
export const META = 'meta';
/** The file holding every record of a kind, one a line: a dot in its name, so it is never a record's id or name path. */
const ndjsonFile = (kind: string) => `${API}/${kind}/all.ndjson`;
/** The content type of the NDJSON files, as the local server and every host rule file send it. */
export const NDJSON_TYPE = 'application/x-ndjson';

/** Dist-relative path of the folder that answers `/api/v2/<kind>/<key>/`. */
const recordDir = (kind: string, key: string | number) => `${API}/${kind}/${key}`;

export const apiPaths = {
  index: `${API}/index.json`,
  list: (kind: string) => `${API}/${kind}/index.json`,
  /** The folder that holds a record's file. */
  recordDir,
  record: (kind: string, key: string | number) => `${recordDir(kind, key)}/index.json`,
  /** The file of a record's sub-resource, such as a creature's encounters. */
  subResource: (kind: string, key: string | number, sub: string) => `${recordDir(kind, key)}/${sub}/index.json`,
  meta: `${API}/${META}/index.json`,

  ndjson: ndjsonFile,
  notFound: '404.json',
  /** The name static hosts give their 404 page: the same bytes as notFound. */
  notFoundPage: '404.html',
  openapi: `${API}/openapi.json`,
  schemaDir: 'schema/v2',
  schema: (docId: string) => `schema/v2/${docId}`,
  typeIcon: (generation: string, versionGroup: string, typeId: number) => `sprites/types/${generation}/${versionGroup}/${typeId}.svg`,
  /** A file an author gave in a record's folder (`data/<kind>/<name>/<file>`), published by the record's id. */
  media: (kind: string, id: number, file: string) => `media/${kind}/${id}/${file}`,
  /** `variant` is a list such as ['back', 'shiny', 'female']; the front default has none. */
  formSprite: (variant: readonly string[], formId: number) => {
    // Joined by hand: every form's eight sprites are named on every build, carried over or not.
    let dir = 'sprites/creature-form/';
    for (const part of variant) dir += `${part}/`;
    return `${dir}${formId}.svg`;
  },
};

/** serve-handler's rules: the local server's, and `npx serve dist`'s once copied into the output. */
export const serveConfigFile = path.join(projectRoot, 'hosts', 'serve.json');

/**
 * Static hosts' rule files, copied to the output root: Cloudflare Pages' (Netlify reads `_headers`
 * and `_redirects` too; `_routes.json` says which paths its worker is given), and the config of the
 * `serve` command (`npx serve dist`).
 */
export const hostRuleFiles = [
  ...['_headers', '_redirects', '_routes.json'].map((name) => [name, path.join(projectRoot, 'hosts', 'cloudflare', name)] as const),
  ['serve.json', serveConfigFile] as const,
];

/** The body of every 404, as PokeAPI answers it; the build writes it to `apiPaths.notFound`. */
export const NOT_FOUND_BODY = { detail: 'Not found.' };

export function urls(baseUrl: string) {
  return {
    index: `${baseUrl}/${API}/`,
    list: (kind: string) => `${baseUrl}/${API}/${kind}/`,
    record: (kind: string, id: number) => `${baseUrl}/${recordDir(kind, id)}/`,
    /** A record's sub-resource, without the trailing slash, as PokeAPI writes a creature's `location_area_encounters`. */
    subResource: (kind: string, id: number, sub: string) => `${baseUrl}/${recordDir(kind, id)}/${sub}`,
    ndjson: (kind: string) => `${baseUrl}/${ndjsonFile(kind)}`,
    /** The url of a file written under the output folder (sprites). */
    file: (relPath: string) => `${baseUrl}/${relPath}`,
  };
}
export type Urls = ReturnType<typeof urls>;

/** Inverse of `urls(base).record`: the kind and id a record url names (an id as a number is written: 0 and -1 as PokeAPI has them), or undefined. */
export function parseRecordUrl(baseUrl: string, url: string): { kind: string; id: number } | undefined {
  const prefix = `${baseUrl}/${API}/`;
  if (!url.startsWith(prefix)) return undefined;
  const m = /^([a-z0-9-]+)\/(0|-?[1-9][0-9]*)\/$/.exec(url.slice(prefix.length));
  return m ? { kind: m[1]!, id: Number(m[2]) } : undefined;
}

/** Posix-style path of `file` relative to `root`, as problems report it. */
export function relativeTo(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join('/');
}

export interface Listed {
  /** `<kind>/<file>` */
  path: string;
  size: number;
  mtimeMs: number;
}
export const SOURCE_EXTENSIONS: string[];
/** The source files, and the entries an author may have meant as sources that are not read. */
export interface Listing {
  sources: Listed[];
  /** `<kind>/<name>` in a kind's folder, or `<name>` in the data folder itself. */
  others: string[];
}
/** The source files' names, `<kind>/<file>` in path order, and the other entries; no file looked at. */
export function listNames(dataDir: string): { names: string[]; others: string[] };
/** The source files and the other entries; `onNames` is given the names before any file is looked at. */
export function listSources(dataDir: string, onNames?: (names: string[]) => void): Listing;
/** Listing started on a thread of its own; `done()` looks at the files left beside it, and gives the listing. */
export function listSourcesOnThread(dataDir: string): { done(): Promise<Listing> };

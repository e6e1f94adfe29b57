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
export function listSources(dataDir: string): Listing;
export function listSourcesOnThread(dataDir: string): Promise<Listing>;
/** The texts of files (absolute paths), read on a thread of its own: '' for one that cannot be read. */
export function readTextsOnThread(files: string[]): Promise<string[]>;

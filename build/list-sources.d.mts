export interface Listed {
  /** `<kind>/<file>` */
  path: string;
  size: number;
  mtimeMs: number;
}
export const SOURCE_EXTENSIONS: string[];
export function listSources(dataDir: string): Listed[];
export function listSourcesOnThread(dataDir: string): Promise<Listed[]>;

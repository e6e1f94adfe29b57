// What the dev server tells the explorer page about its latest build, in one place for both. No
// imports, so the page can use it as it is.

/** Where the page asks for the state of the latest build. */
export const STATUS_PATH = '/__build-status';
/** The event the dev server sends the page after every build. */
export const BUILD_EVENT = 'crs:build';

export interface BuildStatus {
  ok: boolean;
  /** Counts the builds since the dev server started. */
  version: number;
  /** The version of the build the API answers from: this one when it succeeded, an earlier one, or 0 for none yet. */
  served: number;
  ms: number;
  records: number;
  /** The problems as the terminal shows them. */
  text: string;
  problems: Array<{ file: string; line?: number; column?: number; message: string; hint?: string }>;
}

// Stage 6, write: the files admitted, at `<out>/<kind>/<name>.yaml`, and the report beside the
// folder. The files are made into a folder of the import's own beside `out` and put in place by one
// rename, so a failed or stopped import leaves no half-written folder, and a folder that holds
// anything is never written into. Nothing is written over: each file is new.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../guard.mjs';
import type { SourceFile } from './admit.ts';
import { pause } from './kinds.ts';

/** An output the import could not write (a folder without rights, a full disk): exit code 3. */
export class NotWritten extends Error {}

/** The folder the import writes into first, beside `out`: named after the process, so two never share one. */
export const tempFolder = (out: string) => `${out}.importing-${process.pid}`;

/** Files written between two turns of the event loop (kinds.ts, pause). */
const FILES_PER_PAUSE = 256;

/**
 * Refuses an `--out` that is a link, a file, or a folder that holds anything, and a report or a
 * folder of the import's own that is there already: before anything is read.
 */
export function checkOut(out: string, report: string): void {
  const stats = look(out, `--out ${out}`);
  if (stats?.isSymbolicLink()) throw new UsageError(`--out ${out}: is a link; name the folder it leads to`);
  if (stats && !stats.isDirectory()) throw new UsageError(`--out ${out}: is a file; the import writes only a new or empty folder`);
  if (stats && listed(out).length > 0) {
    throw new UsageError(`--out ${out} exists and is not empty: the import writes only a new or empty folder`);
  }
  if (look(report, report)) throw new UsageError(`${report} exists: the import does not overwrite its report`);
  const temp = tempFolder(out);
  if (look(temp, temp)) throw new UsageError(`${temp} exists: the import does not write over it`);
}

/** What is at `file`, not following a link; undefined for nothing. A name the system refuses (too long, say) is refused. */
function look(file: string, said: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file, { throwIfNoEntry: false });
  } catch (err) {
    throw new UsageError(`${said}: cannot be made (${(err as NodeJS.ErrnoException).code})`);
  }
}

function listed(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch (err) {
    throw new UsageError(`--out ${dir}: could not be listed (${(err as NodeJS.ErrnoException).code})`);
  }
}

export interface WriteOptions {
  /** The report's file and text, written once every record is. */
  report: { file: string; text: string };
  onFile?: () => void;
}

/** The report as it is written, inside the import's own folder: no PokeAPI kind is named so. */
const REPORT_DRAFT = '.import-report.json';

/**
 * Writes the files into a new folder beside `out` and the report beside it, then renames the folder
 * to `out`. The report is written whole inside that folder and linked into place (a link is never
 * made over a file), so a disk that fills leaves no cut-off report to refuse the next import.
 */
export async function writeFolder(out: string, files: SourceFile[], { report, onFile }: WriteOptions): Promise<void> {
  const temp = tempFolder(out);
  made(() => madeAbove.set(out, fs.mkdirSync(path.dirname(out), { recursive: true })), out);
  made(() => fs.mkdirSync(temp), out); // not recursive: a folder found there is not the import's
  let reported = false;
  try {
    for (const dir of new Set(files.map((f) => path.dirname(f.rel)))) made(() => fs.mkdirSync(path.join(temp, dir)), out);
    for (const [i, file] of files.entries()) {
      made(() => fs.writeFileSync(path.join(temp, file.rel), file.text, { flag: 'wx' }), out);
      onFile?.();
      if ((i + 1) % FILES_PER_PAUSE === 0) await pause();
    }
    await pause();
    const draft = path.join(temp, REPORT_DRAFT);
    made(() => fs.writeFileSync(draft, report.text, { flag: 'wx' }), report.file);
    made(() => fs.linkSync(draft, report.file), report.file);
    reported = true;
    fs.rmSync(draft);
    if (fs.existsSync(out)) made(() => fs.rmdirSync(out), out); // empty, as checkOut found it
    made(() => fs.renameSync(temp, out), out);
  } catch (err) {
    // The report first: it lies in the folder above `out`, which `unmake` removes only if empty.
    if (reported) fs.rmSync(report.file, { force: true });
    unmake(out);
    throw err;
  }
}

/** The topmost folder above each `out` that this import made for it (`mkdir -p`'s answer), if any. */
const madeAbove = new Map<string, string | undefined>();

/**
 * Removes what an import that failed or was stopped made: its own folder beside `out`, and the
 * folders above `out` it made, each only if empty (a folder another process wrote into since stays).
 */
export function unmake(out: string): void {
  fs.rmSync(tempFolder(out), { recursive: true, force: true });
  const top = madeAbove.get(out);
  if (top === undefined) return;
  for (let dir = path.dirname(out); ; dir = path.dirname(dir)) {
    try {
      fs.rmdirSync(dir);
    } catch {
      return;
    }
    if (dir === top) return;
  }
}

/** Does `write`; a failure of the system's (no rights, a full disk, a name taken since) is `NotWritten`, said of `what`. */
function made(write: () => void, what: string): void {
  try {
    write();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!code) throw err;
    throw new NotWritten(`${what}: could not be written (${code}); nothing was imported`);
  }
}

// The importer run as a user runs it, for the tests of its boundary (import-hostile, import-fuzz):
// the real command as a child process, a PokeAPI world copied into a temp folder to spoil, and
// every file of a folder by its bytes, to show that nothing outside the output changed.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { BASE, fixturesDir, tempDir } from './helpers.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');
export const FIXTURE = path.join(fixturesDir, 'pokeapi-world');

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node build/launch.mjs <name> …` from the project, never throwing; killed after `timeout` ms (a hang fails). */
export async function command(name: string, args: string[], timeout = 60_000): Promise<Ran> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['build/launch.mjs', name, ...args], {
      cwd: root,
      env: { ...process.env, BASE_URL: BASE, CI: '1' },
      maxBuffer: 64 << 20,
      timeout,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number | null; stdout: string; stderr: string };
    return { code: typeof e.code === 'number' ? e.code : null, stdout: e.stdout, stderr: e.stderr };
  }
}

/** What the command said on stderr besides its progress lines (`  read   80 files`, on CI). */
export const said = (stderr: string): string[] =>
  stderr.split('\n').filter((line) => line.trim() && !/^ {2}(read|write) +\d+ files$/.test(line));

/** No stack trace, anywhere in what the command printed. */
export function expectNoTrace(ran: Ran): void {
  expect(ran.stdout + ran.stderr).not.toMatch(/^ {4}at /m);
  expect(ran.stderr).not.toMatch(/internal error/);
}

/** A temp folder holding a copy of the PokeAPI fixture world at `from/`, and the place for `out`. */
export async function pokeWorld(prefix = 'crs-import-'): Promise<{ dir: string; from: string; out: string }> {
  const dir = await tempDir(prefix);
  const from = path.join(dir, 'from');
  fs.cpSync(FIXTURE, from, { recursive: true });
  return { dir, from, out: path.join(dir, 'out') };
}

/** A record's file in a PokeAPI folder. */
export const recordFile = (from: string, kind: string, id: number) => path.join(from, kind, String(id), 'index.json');

/** Rewrites a record of a PokeAPI folder through `change`, which may edit it in place or return another value. */
export function editRecord(from: string, kind: string, id: number, change: (record: any) => unknown): void {
  const file = recordFile(from, kind, id);
  const record = JSON.parse(fs.readFileSync(file, 'utf8'));
  const changed = change(record);
  fs.writeFileSync(file, JSON.stringify(changed === undefined ? record : changed));
}

/**
 * Every entry under `dir` by its path: a file by the hash of its bytes, a link by where it leads,
 * a folder, a FIFO; nothing is followed or opened but regular files. `skip` leaves out entries by
 * their path relative to `dir`.
 */
export function tree(dir: string, skip: (rel: string) => boolean = () => false): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const name of fs.readdirSync(path.join(dir, rel)).sort()) {
      const at = rel ? `${rel}/${name}` : name;
      if (skip(at)) continue;
      const abs = path.join(dir, at);
      const stats = fs.lstatSync(abs);
      if (stats.isSymbolicLink()) out.set(at, `link to ${fs.readlinkSync(abs)}`);
      else if (stats.isDirectory()) {
        out.set(at, 'folder');
        walk(at);
      } else if (stats.isFile()) out.set(at, createHash('sha1').update(fs.readFileSync(abs)).digest('hex'));
      else out.set(at, 'other');
    }
  };
  walk('');
  return out;
}

/** The entries of `dir` but the import's output (`out` and its report), for comparing before and after. */
export const outsideOut = (dir: string, out: string) => {
  const rel = path.relative(dir, out);
  return tree(dir, (at) => at === rel || at.startsWith(`${rel}/`) || at === `${rel}.import-report.json`);
};

/** The report an import left beside `out`. */
export const readReport = (out: string) => JSON.parse(fs.readFileSync(`${out}.import-report.json`, 'utf8'));

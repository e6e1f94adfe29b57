// When the machine refuses the output — a full disk, a read-only file system, a folder that may not
// be written — the build ends with one message naming the path and the cause (exit code 3), the live
// tree as it was, and nothing half-written where a host would publish it. Tried on a real small file
// system: a tmpfs of a few MiB, which only root may mount (CI runs as root).
import { execFileSync, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultDataDir, projectRoot } from '../build/paths.ts';
import { fixturesDir, snapshot, tempDir } from './helpers.ts';

/** Why the tests cannot mount their tmpfs here, if they cannot: they need root, and a machine that lets root mount. */
function cannotMount(): string | undefined {
  if (process.getuid?.() !== 0) return 'the write-failure tests mount a tmpfs, which needs root';
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'crs-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'pipe' });
    execFileSync('umount', [probe]);
    return undefined;
  } catch (err) {
    return `mounting a tmpfs failed here: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`;
  } finally {
    fs.rmdirSync(probe);
  }
}
const unable = cannotMount();
if (unable) console.log(`skipped: ${unable}`);

const starter = path.join(fixturesDir, 'starter');
/** Fits the starter world's output (under 1 MiB) with room to spare, but not the shipped world's. */
const SIZE = '3m';

/** Runs the build as a user runs it; `uid` runs it as another user. */
function buildCli(data: string, out: string, extra: string[] = [], options: SpawnSyncOptions = {}) {
  const run = spawnSync(process.execPath, ['build/launch.mjs', 'build', '--data', data, '--out', out, ...extra], {
    cwd: projectRoot,
    env: { ...process.env, BASE_URL: 'http://localhost:3000' },
    encoding: 'utf8',
    ...options,
  });
  return {
    status: run.status,
    stderr: String(run.stderr),
    lines: String(run.stderr)
      .trim()
      .split('\n')
      .filter((l) => !/^\s*\w+ +[\d.]+s$/.test(l)),
  };
}

describe.skipIf(unable !== undefined)('write failures', () => {
  let mount: string;
  beforeAll(async () => {
    mount = await tempDir('crs-small-');
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${SIZE}`, 'tmpfs', mount]);
  });
  afterAll(() => {
    if (mount) execFileSync('umount', [mount]);
  });
  const emptyMount = () => {
    for (const entry of fs.readdirSync(mount)) fs.rmSync(path.join(mount, entry), { recursive: true, force: true });
  };

  it('a full disk in a rebuild: one message, dist as it was, the unfinished tree removed to give the space back', async () => {
    emptyMount();
    const out = path.join(mount, 'dist');
    expect(buildCli(starter, out).status).toBe(0);
    const before = await snapshot(out);
    const free = fs.statfsSync(mount).bfree;

    const failed = buildCli(defaultDataDir, out);
    expect(failed.status).toBe(3);
    expect(failed.lines).toHaveLength(2);
    expect(failed.lines[0]).toMatch(
      new RegExp(`^could not write ${mount}/\\.dist-builds/b/\\S+: no space is left on the device \\(ENOSPC\\)$`),
    );
    expect(failed.lines[1]).toBe('the build stopped; the output folder was left as it was');
    expect(await snapshot(out)).toEqual(before);
    expect(fs.readdirSync(path.join(mount, '.dist-builds')).sort()).toEqual(['a', 'a.manifest']);
    expect(fs.statfsSync(mount).bfree).toBe(free);

    // The next build finds the live tree whole.
    expect(buildCli(starter, out).status).toBe(0);
    expect(await snapshot(out)).toEqual(before);
  });

  it('a full disk in a plain build: the plain folder a host publishes is as it was, and nothing else is left', async () => {
    emptyMount();
    const out = path.join(mount, 'dist');
    expect(buildCli(starter, out, ['--plain']).status).toBe(0);
    const before = await snapshot(out);

    const failed = buildCli(defaultDataDir, out, ['--plain']);
    expect(failed.status).toBe(3);
    expect(failed.lines[0]).toMatch(/: no space is left on the device \(ENOSPC\)$/);
    expect(await snapshot(out)).toEqual(before);
    expect(fs.readdirSync(mount)).toEqual(['dist']);
  });

  it('a read-only file system: one message naming the path, dist as it was', async () => {
    emptyMount();
    const out = path.join(mount, 'dist');
    expect(buildCli(starter, out).status).toBe(0);
    const before = await snapshot(out);
    execFileSync('mount', ['-o', 'remount,ro', mount]);
    try {
      for (const target of [out, path.join(mount, 'other')]) {
        const failed = buildCli(defaultDataDir, target);
        expect(failed.status).toBe(3);
        expect(failed.lines).toEqual([
          expect.stringMatching(new RegExp(`^could not write ${mount}/\\S+: the file system is read-only \\(EROFS\\)$`)),
          'the build stopped; the output folder was left as it was',
        ]);
      }
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', mount]);
    }
    expect(await snapshot(out)).toEqual(before);
  });

  it('a folder the build may not write: one message naming it (run as an unprivileged user)', async () => {
    emptyMount();
    const locked = path.join(mount, 'locked');
    fs.mkdirSync(locked, { mode: 0o555 });
    fs.chmodSync(mount, 0o755);
    // The launcher's bundle is made by a run as root first; the unprivileged run only reads it.
    expect(buildCli(starter, path.join(mount, 'warm')).status).toBe(0);
    const failed = buildCli(starter, path.join(locked, 'dist'), [], { uid: 65534, gid: 65534 });
    expect(failed.lines).toEqual([
      `could not write ${locked}/.dist-builds: permission denied (EACCES)`,
      'the build stopped; the output folder was left as it was',
    ]);
    expect(failed.status).toBe(3);
    expect(fs.readdirSync(locked)).toEqual([]);
  });
});

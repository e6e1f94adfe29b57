// The generated types, as a consumer sees them: a separate package with its own strict tsconfig
// imports `creature-reference-service` by name (through node_modules, as after an install), and
// type-checks under both NodeNext and bundler resolution. Code that misuses a record must not.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../build/pipeline/build.ts';
import { projectRoot } from '../build/paths.ts';
import { statSummary, typeSummary } from './consumer/consumer.ts';
import { fixtureWorld, serve, tempDir } from './helpers.ts';

const run = promisify(execFile);
const tsc = path.join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');
const consumerDir = path.join(import.meta.dirname, 'consumer');
const CONFIGS = ['tsconfig.json', 'tsconfig.bundler.json'];

/** Runs tsc on one of the consumer's configs; never throws. */
async function typecheck(dir: string, config: string, extra: string[] = []): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run(process.execPath, [tsc, '-p', path.join(dir, config), '--pretty', 'false', ...extra], { cwd: dir });
    return { code: 0, output: stdout };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

/** Code a consumer might write by mistake, each with the error tsc must give. */
const MISTAKES: { file: string; code: string; error: RegExp }[] = [
  {
    file: 'unknown-field.ts',
    code: `import type { Stat } from 'creature-reference-service';\nexport const base = (s: Stat): number => s.base_stat;\n`,
    error: /unknown-field\.ts\(2,\d+\): error TS2339: Property 'base_stat' does not exist on type 'Stat'/,
  },
  {
    file: 'wrong-type.ts',
    code: `import type { Type } from 'creature-reference-service';\nexport const id = (t: Type): string => t.id;\n`,
    error: /wrong-type\.ts\(2,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/,
  },
  {
    file: 'unknown-export.ts',
    code: `import type { Pokemon } from 'creature-reference-service';\nexport type P = Pokemon;\n`,
    error: /unknown-export\.ts\(1,\d+\): error TS2305: Module '"creature-reference-service"' has no exported member 'Pokemon'/,
  },
];

let dir: string;

beforeAll(async () => {
  // The consumer package, with the service installed under its own name.
  dir = await tempDir('crs-consumer-');
  await fs.cp(consumerDir, dir, { recursive: true });
  await fs.writeFile(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'creature-reference-consumer', private: true, type: 'module' }),
  );
  await fs.mkdir(path.join(dir, 'node_modules'));
  await fs.symlink(projectRoot, path.join(dir, 'node_modules', 'creature-reference-service'), 'dir');
});
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe('consumer types', () => {
  // One run of tsc a config: the good consumer beside the mistakes, which alone must fail.
  it.each(CONFIGS)('type-check by package name with %s, and reject code that misuses a record', async (config) => {
    const bad = await tempDir('crs-consumer-bad-');
    try {
      await fs.cp(dir, bad, { recursive: true, verbatimSymlinks: true });
      for (const m of MISTAKES) await fs.writeFile(path.join(bad, m.file), m.code);
      const result = await typecheck(bad, config, ['--listFiles']);
      expect(result.code).not.toBe(0);
      for (const m of MISTAKES) expect(result.output).toMatch(m.error);
      // Only the mistakes fail: the good consumer checks.
      const errors = result.output.split('\n').filter((l) => / error TS/.test(l));
      expect(errors).toHaveLength(MISTAKES.length);
      // The import resolved through the package to the generated types.
      const files = result.output.split('\n').map((l) => l.trim());
      expect(files).toContain(path.join(projectRoot, 'build', 'api-types.ts'));
      expect(files).toContain(path.join(bad, 'consumer.ts'));
    } finally {
      await fs.rm(bad, { recursive: true, force: true });
    }
  });
});

describe('the consumer against a built world', () => {
  let world: { root: string; data: string; out: string };
  let server: { url: string; close: () => Promise<void> };
  beforeAll(async () => {
    world = await fixtureWorld('starter');
    await fs.mkdir(world.out, { recursive: true });
    server = await serve(world.out);
    await build({ dataDir: world.data, outDir: world.out, baseUrl: server.url });
  });
  afterAll(async () => {
    await server?.close();
    if (world) await fs.rm(world.root, { recursive: true, force: true });
  });

  it('reads the fields its types promise', async () => {
    expect(await typeSummary(server.url, 'fire')).toBe('fire (#2): strong against grass, steel; weak to water');
    expect(await statSummary(server.url, 'attack')).toBe('Attack (game index 2, physical)');
  });
});

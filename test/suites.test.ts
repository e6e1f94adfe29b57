// Every test file runs in exactly one suite: `npm test` (vitest.config.ts), `npm run test:slow`
// (vitest.slow.config.ts) or `npm run test:hosts` (vitest.hosts.config.ts). A file no suite takes
// would never run, and one that two take would run twice.
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { configDefaults, type ViteUserConfig } from 'vitest/config';
import { projectRoot } from '../build/paths.ts';
import fast from '../vitest.config.ts';
import hosts from '../vitest.hosts.config.ts';
import slow, { slowTests } from '../vitest.slow.config.ts';

const suites: Record<string, ViteUserConfig> = { 'npm test': fast, 'npm run test:slow': slow, 'npm run test:hosts': hosts };

/** The files a suite's configuration takes, as vitest finds them: its include patterns, less its exclude patterns. */
function filesOf(config: ViteUserConfig): string[] {
  const { include = configDefaults.include, exclude = configDefaults.exclude } = config.test ?? {};
  return fg.sync(include, { cwd: projectRoot, ignore: exclude, dot: true });
}

/** Every file vitest would take for a test by its name, anywhere in the project but installed packages. */
const testFiles = () => fg.sync(configDefaults.include, { cwd: projectRoot, ignore: ['**/node_modules/**', '**/.git/**'], dot: true });

describe('the test suites', () => {
  it('take every test file, each in one suite', () => {
    const taken = new Map<string, string[]>();
    for (const [name, config] of Object.entries(suites))
      for (const file of filesOf(config)) taken.set(file, [...(taken.get(file) ?? []), name]);
    const files = testFiles();
    expect(files.length).toBeGreaterThan(50);
    const wrong = files.map((file) => [file, taken.get(file) ?? []] as const).filter(([, names]) => names.length !== 1);
    expect(Object.fromEntries(wrong)).toEqual({});
    expect([...taken.keys()].filter((file) => !files.includes(file))).toEqual([]);
  });

  it('name in the slow suite only files that are there', () => {
    expect(slowTests.filter((file) => !fg.sync(file, { cwd: projectRoot }).length)).toEqual([]);
  });
});

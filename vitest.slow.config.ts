// The slow suite, `npm run test:slow`: promises tried many times over, or under load, at a cost a
// run before each commit cannot pay. Builds killed at many points, the build lock raced by real
// processes, seeded fuzzing of the build and of the import, the servers under sustained traffic,
// commands stopped by signals, the scale tools (the world generator and the bench), the diff against
// a git revision (a copy of the project, two versions of its code built), npm test failing on a
// lint or format error (a copy of the project, type-checked and linted whole), both PokeAPI
// clients asked for every record of two worlds, and the sweeps of hostile input: forged cache
// entries, hostile import folders, hostile media files, the cases of the boundaries' review, and a
// table of bad values and folders given to every command; and the cache's and the kept validators'
// own promises (an entry whole under racing threads, kept code judging as Ajv's own); and two of
// the engine's own: checking threads give what the build's thread gives, and every derivation
// reads only the fields it declares.
// The hosts have a suite of their own (vitest.hosts.config.ts).
import { defineConfig } from 'vitest/config';

/** The slow suite's files; `npm test` runs every other test file but the hosts'. */
export const slowTests = [
  'test/kill.test.ts',
  'test/lock-race.test.ts',
  'test/fuzz.test.ts',
  'test/import-fuzz.test.ts',
  'test/load.test.ts',
  'test/serve-descriptors.test.ts',
  'test/signals.test.ts',
  'test/scale-tools.test.ts',
  'test/clients-every-record.test.ts',
  'test/cache-trust.test.ts',
  'test/import-hostile.test.ts',
  'test/media-hostile.test.ts',
  'test/boundaries.test.ts',
  'test/commands-bad-input.test.ts',
  'test/cache.test.ts',
  'test/validators.test.ts',
  'test/threads.test.ts',
  'test/facts.test.ts',
  'test/diff-revision.test.ts',
  'test/npm-test.test.ts',
];

export default defineConfig({
  test: {
    include: slowTests,
    maxWorkers: '100%', // a worker per core: these tests load the machine themselves
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});

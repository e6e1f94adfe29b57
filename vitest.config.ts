// The test suite `npm test` runs: every test file but the slow ones (vitest.slow.config.ts, `npm run
// test:slow`) and the hosts' (vitest.hosts.config.ts, `npm run test:hosts`).
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { slowTests } from './vitest.slow.config.ts';

/**
 * Files that take long for their size. With no record of an earlier run (a fresh clone, CI), vitest
 * starts the largest files first; one of these, small and started last, would run alone at the end.
 */
const longForTheirSize = ['test/clients-every-endpoint.test.ts', 'test/serve-rebuild.test.ts', 'test/start.test.ts'];

class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const long = (spec: TestSpecification) => longForTheirSize.some((file) => spec.moduleId.endsWith(file));
    return [...sorted.filter(long), ...sorted.filter((spec) => !long(spec))];
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/hosts/**', 'node_modules/**', ...slowTests],
    // Three workers on two cores, where vitest's default leaves one core to itself: the tests spend
    // much of their time waiting on the processes, servers and browsers they start.
    maxWorkers: '150%',
    sequence: { sequencer: LongFirst },
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});

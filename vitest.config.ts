// The test suite `npm test` runs: every test file but the slow ones (vitest.slow.config.ts, `npm run
// test:slow`) and the hosts' (vitest.hosts.config.ts, `npm run test:hosts`).
import { defineConfig } from 'vitest/config';
import { slowTests } from './vitest.slow.config.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/hosts/**', 'node_modules/**', ...slowTests],
    // Three workers on two cores, where vitest's default leaves one core to itself: the tests spend
    // much of their time waiting on the processes, servers and browsers they start.
    maxWorkers: '150%',
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});

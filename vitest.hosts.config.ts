// The hosts tests: the built API served by each static host's own local emulator (and by the
// local server, the reference), all held to one set of HTTP assertions. Needs `npm ci --prefix hosts`.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/hosts/**/*.test.ts'],
    globalSetup: ['test/hosts/setup.ts'],
    // One emulator at a time: they are heavy for a 2-core machine and each starts its own helpers.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    teardownTimeout: 30_000,
  },
});

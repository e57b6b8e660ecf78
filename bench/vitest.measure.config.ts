import { defineConfig } from 'vitest/config';

/**
 * `npm run bench:tron`: measurements that need the test harnesses (a local
 * node, the real app) and report figures without asserting them (machines
 * here are noisy). Not part of `npm test`.
 */
export default defineConfig({
  test: {
    include: ['bench/**/*.measure.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});

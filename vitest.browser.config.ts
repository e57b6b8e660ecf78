import { defineConfig } from 'vitest/config';

/**
 * `npm run test:browser`: the hosted payment page in Debian's Chromium
 * (playwright-core) against a running Ivory. Kept out of `npm test`, which
 * excludes test/browser (issue 12).
 */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 90_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});

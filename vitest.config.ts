import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real-browser tests run on their own: `npm run test:browser` (vitest.browser.config.ts).
    exclude: ['test/browser/**', '**/node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});

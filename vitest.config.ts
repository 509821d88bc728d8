import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 has no "exports" map: Node (and so yoga and Pothos) loads its CommonJS build,
    // while vite would pick the "module" (.mjs) build for our own imports. Two copies of graphql
    // refuse each other's schema objects, so tests load the one production loads.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'examples/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // `npm run test:postgres` (TEST_DATABASE=postgres): one embedded PostgreSQL for the run.
    globalSetup: ['test/support/postgres.ts'],
  },
});

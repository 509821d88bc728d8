import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // graphql 16 has no "exports" map: Node (and so Pothos and yoga, loaded by Node) gets its
    // CommonJS build while Vite would pick the ESM one. One realm for tests too, or printSchema
    // and instanceof checks reject the schema as coming "from another module or realm".
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});

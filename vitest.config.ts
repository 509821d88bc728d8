import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/** Test files that need the real password-hash cost (see test/support/argon2-test-cost.ts). */
const PRODUCTION_COST = ['test/sign-in/credential-abuse.test.ts', 'test/platform/password-cost.test.ts'];

export default defineConfig({
  resolve: {
    // graphql 16 has no "exports" map: Node (and so yoga and Pothos) loads its CommonJS build,
    // while vite would pick the "module" (.mjs) build for our own imports. Two copies of graphql
    // refuse each other's schema objects, so tests load the one production loads.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits for a state (a page's heading, a row gone, a stream's event); its default
    // bound of 1 s is crossed by a browser or server process on a busy 2-core machine (a console
    // test failed so in the flake hunt). The bound stays far below the test's own timeout.
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    // `npm run test:postgres` (TEST_DATABASE=postgres): one embedded PostgreSQL for the run.
    globalSetup: ['test/support/postgres.ts'],
    // Vitest's default on 2 cores is one worker (cores - 1), which leaves a core idle whenever a
    // test waits on a browser, a server process or the network. Measured on 2 cores: 2 workers.
    maxWorkers: 2,
    // A worker keeps its loaded modules from one test file to the next instead of importing the
    // app's whole module graph (Prisma client, graphql, Pothos, yoga) again for each of ~100
    // files: that import was half the suite's time. Test files keep their own state: each builds
    // its own app on its own database copy (test/support/app.ts), and src keeps no per-app state
    // at module level (caches live in the app; module-level maps are keyed by request or client).
    isolate: false,
    projects: [
      {
        extends: true,
        resolve: {
          // Passwords hashed at test cost (test/support/argon2-test-cost.ts).
          alias: [{ find: /^@node-rs\/argon2$/, replacement: fileURLToPath(new URL('test/support/argon2-test-cost.ts', import.meta.url)) }],
        },
        test: {
          name: 'app',
          include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'examples/**/*.test.ts'],
          exclude: PRODUCTION_COST,
        },
      },
      { extends: true, test: { name: 'production-cost', include: PRODUCTION_COST } },
    ],
  },
});

/**
 * The scene most request-level test files share: one fresh test app (app.ts) seeded with the
 * standard actors (subjects.ts `seedFixtures`), built before the file's first test and closed
 * after its last. A file calls `useSeededApp()` once at its top level and imports `app` and `fx`:
 * they are live bindings, set by the hook before any test (or helper a test calls) reads them.
 * Vitest isolates test files, so each file has its own app.
 */
import { afterAll, beforeAll } from 'vitest';
import { createTestApp, type TestApp } from './app.js';
import { type Fixtures, seedFixtures } from './subjects.js';

/** The app of the current test file; set by `useSeededApp`'s beforeAll. */
export let app: TestApp;
/** The standard actors seeded into `app`; set by `useSeededApp`'s beforeAll. */
export let fx: Fixtures;

/**
 * Registers the hooks that build `app` (with `options`, as createTestApp takes them) and seed
 * `fx` before the file's tests, and close the app after them. Call once per file, at top level.
 */
export function useSeededApp(options?: Parameters<typeof createTestApp>[0]): void {
  beforeAll(async () => {
    app = await createTestApp(options);
    fx = await seedFixtures(app);
  });
  afterAll(() => app?.close());
}

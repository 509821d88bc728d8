/**
 * The per-request budget (`npm run bench -- budget`) names every yoga plugin of the app by its
 * factory (bench/support/plugin-names.ts recognizes each by its hooks' source): no plugin of the
 * app goes unnamed, and no two share a name (the budget's rows are keyed by it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pluginName } from '../../bench/support/plugin-names.js';
import { createTestApp, pluginsOf, type TestApp } from '../support/app.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ env: { METRICS_ENABLED: 'true' } });
});
afterAll(() => app.close());

describe("the budget benchmark's plugin names", () => {
  it('name every plugin of the app by its factory and hooks, each once', () => {
    const plugins = pluginsOf(app);
    const names = plugins.map(pluginName);
    expect(names.length).toBeGreaterThan(15);
    expect(names.filter((n) => /unnamed|\?|#/.test(n))).toEqual([]);
    for (const name of names) expect(name).toMatch(/^(use[A-Za-z]+|max-[a-z]+ \(graphql-armor\)|plugin \d+ of the list: no hooks)/);
    const named = names.filter((n) => !n.startsWith('plugin '));
    expect(new Set(named).size).toBe(named.length);
  });
});

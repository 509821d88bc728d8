/**
 * Issue #10 item 5: a document whose later mutation fails must not lose the secret of an API key
 * created by an earlier field (createApiKey is nullable, so the failure stays in its own field).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

it('the first key and its secret survive a failing second createApiKey', async () => {
  const res = await app.graphql<{ first: { id: number; key: string } | null; second: unknown }>(
    `mutation {
      first: createApiKey(input: {name: "kept", role: Viewer}) { id key }
      second: createApiKey(input: {name: "kept", role: Viewer}) { id key }
    }`,
  );
  expect(res.body.data?.first?.key).toMatch(/\S{20,}/);
  expect(res.body.data?.second).toBeNull();
  expect(res.body.errors?.[0]?.extensions?.code).toBe('API_KEY_ALREADY_EXISTS');
  const stored = await app.database.prisma.apiKey.count({ where: { name: 'kept' } });
  expect(stored).toBe(1);
});

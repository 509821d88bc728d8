/**
 * Invalid UTF-8 in a GraphQL body is refused with 400, as on the REST door, instead of being
 * decoded with U+FFFD replacements and stored.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN, createTestApp, type TestApp } from '../support/app.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

function post(body: Uint8Array): Promise<Response> {
  return app.request('/graphql', { method: 'POST', auth: ADMIN, headers: { 'content-type': 'application/json' }, body: Buffer.from(body) });
}

const utf8 = (text: string) => new TextEncoder().encode(text);

it('a body with a broken UTF-8 sequence: 400, nothing created', async () => {
  const before = utf8('{"query":"mutation { createTeam(input: {name: \\"bad-');
  const after = utf8('\\"}) { id } }"}');
  const res = await post(new Uint8Array([...before, 0xc3, 0x28, ...after])); // C3 28: an invalid sequence
  expect(res.status).toBe(400);
  const json = (await res.json()) as { errors?: { extensions?: { code?: string } }[] };
  expect(json.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
  expect(await app.database.prisma.team.count({ where: { name: { startsWith: 'bad-' } } })).toBe(0);
});

it('broken UTF-8 inside variables: 400 too', async () => {
  const before = utf8('{"query":"mutation($n: String!) { createTeam(input: {name: $n}) { id } }","variables":{"n":"bad-');
  const res = await post(new Uint8Array([...before, 0xff, ...utf8('"}}')]));
  expect(res.status).toBe(400);
});

it('the same document in valid UTF-8 (é) is accepted', async () => {
  const res = await post(utf8('{"query":"mutation { createTeam(input: {name: \\"good-é\\"}) { id name } }"}'));
  expect(res.status).toBe(200);
  const json = (await res.json()) as { data?: { createTeam?: { name: string } } };
  expect(json.data?.createTeam?.name).toBe('good-é');
});

/**
 * Hot GraphQL documents run as compiled code (src/http/use-execution.ts, graphql-jit): a document
 * is compiled once it ran GRAPHQL_COMPILE_AFTER times, and from then on answers exactly what
 * graphql-js answered (data, errors, field order, refused variables), with every check still
 * made: a revocation is seen by the next compiled run. Fresh documents are never compiled, and
 * compilations stop at the per-minute budget. (That graphql-jit is not loaded at start:
 * test/platform/lazy-modules.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCompiler } from '../../src/http/use-execution.js';
import { type Credentials, createTestApp, type TestApp } from '../support/app.js';
import { createUser, p, unique } from '../support/subjects.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ env: { GRAPHQL_COMPILE_AFTER: '3', GRAPHQL_COMPILES_PER_MINUTE: '1000' } });
  // graphql-jit loads at the first hot document; loaded first here, so the counts below are exact.
  await loadCompiler();
});
afterAll(() => app.close());

/** The raw answer text and status of one GraphQL POST (text: byte-for-byte comparisons). */
async function send(query: string, variables?: Record<string, unknown>, auth?: Credentials | null) {
  const res = await app.request('/graphql', { method: 'POST', json: { query, variables }, ...(auth !== undefined && { auth }) });
  return { status: res.status, text: await res.text() };
}

/** Sends the document `runs` times; returns the answers and how many of the runs were compiled. */
async function runs(count: number, query: string, variables?: Record<string, unknown>, auth?: Parameters<typeof send>[2]) {
  const before = app.execution.compiledRuns;
  const answers: { status: number; text: string }[] = [];
  for (let i = 0; i < count; i++) answers.push(await send(query, variables, auth));
  return { answers, compiledRuns: app.execution.compiledRuns - before };
}

describe('hot documents compiled', () => {
  it.each([
    ['the viewer', '{ viewer { login roles { name uid } permissions { action scope } can(action: "roles:read") } }', undefined, 4],
    ['awaited fields before immediate ones (order kept)', '{ viewer { roles { name } login teams { name } orgRole } }', undefined, 4],
    [
      'variables and a list',
      'query R($hidden: Boolean) { roles(includeHidden: $hidden) { uid name version displayName } }',
      { hidden: true },
      4,
    ],
    [
      // graphql-jit generates JavaScript from the document: literals that read as code stay data.
      'string literals that read as JavaScript',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a template placeholder in the document is the attack
      '{ viewer { a: can(action: "x\\"); globalThis.pwned = 1; (\\"", scope: "`${globalThis.pwned = 2}` </script> \\\\") login } }',
      undefined,
      4,
    ],
    // An answer with errors is made again by graphql-js, and the document runs interpreted since.
    ['a field error (compiled once, then interpreted)', '{ viewer { login } userPermissions(userId: 999999) { action } }', undefined, 1],
  ])('%s: compiled at the third run, every answer the same bytes', async (_name, query, variables, compiled) => {
    const { answers, compiledRuns } = await runs(6, query, variables);
    expect(compiledRuns).toBe(compiled);
    expect((globalThis as { pwned?: number }).pwned).toBeUndefined();
    expect(answers[0]?.text).toContain('"data"');
    for (const answer of answers) expect(answer).toEqual(answers[0]);
  });

  it('refused variables answer graphql-js words in a compiled run too', async () => {
    const query = 'query V($id: Int!) { viewer { login } userPermissions(userId: $id) { action } }';
    const good = await runs(4, query, { id: 1 });
    expect(good.compiledRuns).toBe(2);
    const refused = await runs(1, query, { id: 'not a number' });
    expect(refused.compiledRuns).toBe(1);
    const body = JSON.parse(refused.answers[0]?.text ?? '{}') as { errors?: { message: string; extensions?: { code?: string } }[] };
    expect(body.errors?.[0]?.message).toMatch(/^Int cannot represent non-integer value: "not a number"$/);
    expect(body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
  });

  it('a revocation is seen by the next compiled run', async () => {
    const login = unique('jit');
    const user = await createUser(app, login, { permissions: [p('users.permissions:read', 'users:*')] });
    const query = `{ userPermissions(userId: ${user.id}) { action } }`;
    const before = await runs(4, query, undefined, user.auth);
    expect(before.compiledRuns).toBe(2);
    expect(before.answers.every((a) => a.status === 200 && !a.text.includes('"errors"'))).toBe(true);
    const removed = await app.request(`/api/access-control/users/${user.id}/roles/own-${login}`, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    const after = await runs(1, query, undefined, user.auth);
    expect(after.compiledRuns).toBe(1);
    expect(after.answers[0]?.text).toContain('ACCESS_DENIED');
  });

  it('a compiled viewer reads no more SQL than an interpreted one', async () => {
    const query = '{ viewer { login roles { name } permissions { action scope } } }';
    const statements: number[] = [];
    const compiledBefore = app.execution.compiledRuns;
    for (let i = 0; i < 5; i++) {
      app.resetQueries();
      await send(query);
      statements.push(app.queries.length);
    }
    expect(app.execution.compiledRuns - compiledBefore).toBe(3); // runs 3-5 compiled
    expect(statements.slice(1)).toEqual([0, 0, 0, 0]); // all from the permission cache
  });

  it("compiles the frontend's round-trip (viewer roles with their permissions): same bytes, no SQL when warm", async () => {
    const query = '{ viewer { login permissions { action scope } roles { name permissions { action scope } } } }';
    const statements: number[] = [];
    const answers: string[] = [];
    const compiledBefore = app.execution.compiledRuns;
    for (let i = 0; i < 5; i++) {
      app.resetQueries();
      answers.push((await send(query)).text);
      statements.push(app.queries.length);
    }
    expect(app.execution.compiledRuns - compiledBefore).toBe(3); // runs 3-5 compiled
    expect(statements.slice(1)).toEqual([0, 0, 0, 0]); // role rows from the held roles' cache
    expect(answers[0]).toContain('"permissions":[{"action"');
    for (const answer of answers) expect(answer).toBe(answers[0]);
  });

  it.each([
    ['a fixed selection below viewer.roles', '{ viewer { roles { name global permissions { action } } } }'],
    ['a relation of rows below viewer.roles', '{ viewer { roles { name grantedRoles { name permissions { action } } } } }'],
    ['a carried relation outside viewer.roles', '{ roles { name permissions { action } } }'],
  ])('keeps %s interpreted', async (_name, query) => {
    const { answers, compiledRuns } = await runs(5, query);
    expect(compiledRuns).toBe(0);
    expect(answers[0]?.text).toContain('"data"');
    expect(answers[0]?.text).not.toContain('"errors"');
    for (const answer of answers) expect(answer).toEqual(answers[0]);
  });

  it('keeps documents whose rows Prisma loads with their parents interpreted (same statements)', async () => {
    const query = '{ teams { id members { id orgs { orgId role } } } }';
    const compiledBefore = app.execution.compiledRuns;
    const statements: number[] = [];
    for (let i = 0; i < 5; i++) {
      app.resetQueries();
      await send(query);
      statements.push(app.queries.length);
    }
    expect(app.execution.compiledRuns - compiledBefore).toBe(0);
    expect(new Set(statements.slice(1)).size).toBe(1); // the warm runs read alike, past the threshold too
  });

  it('never compiles a document that ran fewer times than the threshold', async () => {
    const compiled = app.execution.compiled;
    for (let i = 0; i < 20; i++) {
      const res = await send(`{ viewer { login first${i}: orgId } }`);
      expect(res.status).toBe(200);
    }
    expect(app.execution.compiled).toBe(compiled);
  });
});

describe('the compile budget', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await createTestApp({ env: { GRAPHQL_COMPILE_AFTER: '1', GRAPHQL_COMPILES_PER_MINUTE: '2' } });
  });
  afterAll(() => limited.close());

  it('stops compiling for the minute once spent; the others run interpreted with the same answers', async () => {
    const answers: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await limited.request('/graphql', { method: 'POST', json: { query: `{ viewer { login n${i}: orgId } }` } });
      expect(res.status).toBe(200);
      answers.push(await res.text());
    }
    expect(limited.execution.compiled).toBe(2);
    expect(limited.execution.compiledRuns).toBe(2);
    expect(limited.execution.interpretedRuns).toBe(3);
    for (const [i, text] of answers.entries()) expect(JSON.parse(text)).toEqual({ data: { viewer: { login: 'admin', [`n${i}`]: 1 } } });
  });
});

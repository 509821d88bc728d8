/**
 * GraphiQL's starting query greets the caller by the way the page was signed in: a
 * console session, a login and password (basic), an API key or a service account's token. No
 * greeting speaks of a basic-auth prompt to someone who did not get one, and no line of it is
 * wider than the editor shows (GREETING_WIDTH).
 */
import { describe, expect, it } from 'vitest';
import { GREETING_WIDTH, graphiqlDefaultQuery } from '../../src/http/use-graphiql-auth.js';
import { ANONYMOUS } from '../../src/kernel/principal.js';
import type { Credentials } from '../support/app.js';
import { app, fx, useSeededApp } from '../support/scene.js';
import { createKey, userPrincipal } from '../support/subjects.js';

useSeededApp();

/** GraphiQL's starting query as the page at /graphql carries it (yoga writes the options as JSON). */
async function startingQuery(init: { auth?: Credentials | null; cookie?: string }): Promise<string> {
  const headers: Record<string, string> = { accept: 'text/html', ...(init.cookie && { cookie: init.cookie }) };
  const page = await app.request('/graphql', { auth: init.auth, headers });
  expect(page.status).toBe(200);
  const html = await page.text();
  const match = /"defaultQuery":("(?:[^"\\]|\\.)*")/.exec(html);
  expect(match, html.slice(0, 300)).not.toBeNull();
  const query = JSON.parse(match?.[1] ?? '""') as string;
  for (const line of query.split('\n')) expect(line.length, line).toBeLessThanOrEqual(GREETING_WIDTH);
  return query;
}

/** The greeting of a starting query: its opening comment lines, as one sentence. */
function greeting(query: string): string {
  const lines = query.split('\n');
  return lines
    .slice(
      0,
      lines.findIndex((line) => !line.startsWith('# ')),
    )
    .map((line) => line.slice(2))
    .join(' ');
}

describe("GraphiQL's greeting", () => {
  it('names the console session for a session cookie, without any basic-auth prompt', async () => {
    const login = await app.request('/login', {
      method: 'POST',
      auth: null,
      json: { user: fx.editor.login, password: fx.editor.password },
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.getSetCookie()[0]?.split(';')[0] ?? '';
    const query = await startingQuery({ auth: null, cookie });
    expect(greeting(query)).toBe('Signed in with your console session (the cookie of the sign-in page); sign out in the console.');
    expect(query).not.toMatch(/basic|prompt/i);
    expect(query).toContain('viewer {');
  });

  it('names a login and password for basic auth', async () => {
    const query = await startingQuery({});
    expect(greeting(query)).toBe(
      "Signed in with a login and password (HTTP basic auth: your browser's prompt keeps them until it closes).",
    );
  });

  it('names an API key, or a service account token', async () => {
    const key = await createKey(app, { name: 'graphiql-greeting', role: 'Viewer' });
    expect(greeting(await startingQuery({ auth: { token: key.key } }))).toBe('Signed in with an API key (the Authorization header).');
    const made = await app.request(`/api/serviceaccounts/${fx.serviceAccount.id}/tokens`, { method: 'POST', json: { name: 'greeting' } });
    const { key: token } = (await made.json()) as { key: string };
    expect(greeting(await startingQuery({ auth: { token } }))).toBe("Signed in with a service account's token (the Authorization header).");
  });

  it('the starting query is a valid document for every principal', async () => {
    for (const principal of [ANONYMOUS, userPrincipal(fx.viewer, 'Viewer')]) {
      const res = await app.graphql(graphiqlDefaultQuery(principal));
      expect(res.body.errors, JSON.stringify(res.body)).toBeUndefined();
    }
  });
});

/**
 * The auth module recorded for a session started by `POST /login`:
 * `ldap` when the directory vouched for the user, `password` for a local one, as Grafana's
 * `/api/user/auth-tokens` names them. Against a real LDAP server on 127.0.0.1.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, type TestApp } from '../support/app.js';
import { ldapToml, type Person, startLdap, type TestLdap } from './ldap-server.js';

process.env.TEST_LDAP_BIND_PASSWORD = 'bind-secret';
const dave: Person = { uid: 'dave', password: 'dave-pw', mail: 'dave@example.org', givenName: 'Dave', sn: 'D', memberOf: [] };
const scratch = mkdtempSync(join(tmpdir(), 'portcullis-ldap-module-'));
let directory: TestLdap;
let app: TestApp;

beforeAll(async () => {
  directory = await startLdap([dave]);
  const toml = join(scratch, 'ldap.toml');
  writeFileSync(toml, ldapToml(directory.port));
  app = await createTestApp({ env: { AUTH_LDAP_ENABLED: 'true', AUTH_LDAP_CONFIG_FILE: toml } });
});
afterAll(async () => {
  await app.close();
  await directory.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** Signs in with `POST /login` and answers the auth modules `/api/user/auth-tokens` lists for that session's user. */
async function modulesAfterLogin(user: string, password: string): Promise<string[]> {
  const res = await app.request('/login', { method: 'POST', auth: null, json: { user, password } });
  expect(res.status).toBe(200);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('portcullis_session=')) as string;
  const tokens = await app.request('/api/user/auth-tokens', { auth: null, headers: { cookie: cookie.split(';')[0] as string } });
  expect(tokens.status).toBe(200);
  return ((await tokens.json()) as { authModule: string }[]).map((t) => t.authModule);
}

describe('POST /login records the auth module of the session', () => {
  it('ldap for a directory user', async () => {
    expect(await modulesAfterLogin('dave', 'dave-pw')).toEqual(['ldap']);
  });
  it('password for a local user, with the directory enabled', async () => {
    expect(await modulesAfterLogin(ADMIN.login, ADMIN.password)).toEqual(['password']);
  });
});

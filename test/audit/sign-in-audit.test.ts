/**
 * The audit log of the changes sign-in makes (every change to users
 * and org membership recorded): a user's own password change and organization switch, and the
 * users that directory (LDAP, a real server on 127.0.0.1) and OAuth (a real OpenID provider)
 * sign-ins create and sync: user.create, user.update, user.service_admin_set, org_user.add /
 * update / remove, made by that user (auth method `ldap` or `oauth`), from the request's client
 * address and id. A sign-in that changes nothing logs nothing; a refused one logs nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUPS, ldapToml, type Person, startLdap, type TestLdap } from '../sign-in/ldap-server.js';
import { CLIENT, ROOT_URL, startProvider, type TestProvider } from '../sign-in/oidc-provider.js';
import type { TestApp } from '../support/app.js';
import { expectOutcome } from '../support/requests.js';
import { createUser, SUBJECT_PASSWORD } from '../support/subjects.js';
import { basicUser, createAuditApp, eventsAfter, expected, expectLogged, lastEventId, newOrigin, restFrom } from './audit-scene.js';

process.env.TEST_LDAP_BIND_PASSWORD = 'bind-secret';
const scratch = mkdtempSync(join(tmpdir(), 'portcullis-sign-in-audit-'));
let directory: TestLdap;
let app: TestApp;

const dora: Person = {
  uid: 'dora',
  password: 'dora-pw',
  mail: 'dora@example.org',
  givenName: 'Dora',
  sn: 'Dir',
  memberOf: [GROUPS.admins],
};

/** A membership row as the log snapshots it (dates as ISO text). */
const membership = (orgId: number, userId: number, role: string) => ({
  orgId,
  userId,
  role,
  created: expect.any(String),
  updated: expect.any(String),
});

beforeAll(async () => {
  directory = await startLdap([dora]);
  const toml = join(scratch, 'ldap.toml');
  writeFileSync(toml, ldapToml(directory.port));
  app = await createAuditApp({ AUTH_LDAP_ENABLED: 'true', AUTH_LDAP_CONFIG_FILE: toml });
});
afterAll(async () => {
  await app?.close();
  await directory?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe("the signed-in user's own changes", () => {
  it('PUT /api/user/password logs user.password_change with the sessions it ended, never a password', async () => {
    const u = await createUser(app, 'audit-own-pw');
    const login = await app.request('/login', { method: 'POST', auth: null, json: { user: u.login, password: SUBJECT_PASSWORD } });
    expect(login.status).toBe(200);
    const origin = newOrigin();
    const change = { oldPassword: SUBJECT_PASSWORD, newPassword: 'audit-new-secret' };
    const logged = await expectLogged(
      app,
      async () => expectOutcome(await restFrom(app, 'PUT', '/api/user/password', { auth: u.auth, json: change, origin }), 200),
      [
        expected(
          {
            action: 'user.password_change',
            orgId: 0,
            resourceKind: 'user',
            resourceId: String(u.id),
            before: null,
            after: { sessionsEnded: 1 },
          },
          basicUser(u),
          origin,
        ),
      ],
    );
    expect(JSON.stringify(logged)).not.toMatch(/audit-new-secret|hash/i);
    // A wrong old password changes nothing and logs nothing.
    await expectLogged(
      app,
      async () =>
        expectOutcome(
          await restFrom(app, 'PUT', '/api/user/password', {
            auth: { login: u.login, password: 'audit-new-secret' },
            json: { oldPassword: 'wrong', newPassword: 'another-one' },
          }),
          401,
          'INVALID_CREDENTIALS',
        ),
      [],
    );
  });

  it('POST /api/user/using/:orgId logs user.update of the default organization; the same one again logs nothing', async () => {
    const org = await app.database.prisma.org.create({ data: { name: 'audit-switch-org' } });
    const u = await createUser(app, 'audit-switcher', { alsoIn: [{ orgId: org.id, orgRole: 'Viewer' }] });
    const origin = newOrigin();
    await expectLogged(
      app,
      async () => expectOutcome(await restFrom(app, 'POST', `/api/user/using/${org.id}`, { auth: u.auth, origin }), 200),
      [
        expected(
          {
            action: 'user.update',
            orgId: 0,
            resourceKind: 'user',
            resourceId: String(u.id),
            before: { orgId: 1 },
            after: { orgId: org.id },
          },
          basicUser(u),
          origin,
        ),
      ],
    );
    await expectLogged(app, async () => expectOutcome(await restFrom(app, 'POST', `/api/user/using/${org.id}`, { auth: u.auth }), 200), []);
    await expectLogged(
      app,
      async () => expectOutcome(await restFrom(app, 'POST', '/api/user/using/999', { auth: u.auth }), 401, 'ORG_NOT_ACCESSIBLE'),
      [],
    );
  });
});

describe('users created and synced by a directory sign-in', () => {
  const dir = { login: dora.uid, password: dora.password };
  let doraId = 0;
  const actor = () => ({ actorKind: 'user', actorId: doraId, actorLogin: 'dora', authMethod: 'ldap' });

  it('the first sign-in logs user.create and org_user.add, made by the new user from the request', async () => {
    const origin = newOrigin();
    const mark = await lastEventId(app);
    expectOutcome(await restFrom(app, 'GET', '/api/user', { auth: dir, origin }), 200);
    doraId = (await app.database.prisma.user.findUniqueOrThrow({ where: { login: 'dora' } })).id;
    const events = (await eventsAfter(app, mark)).map(({ id, created, ...rest }) => rest);
    expect(events).toEqual([
      expected(
        {
          action: 'user.create',
          orgId: 0,
          resourceKind: 'user',
          resourceId: String(doraId),
          before: null,
          after: {
            id: doraId,
            login: 'dora',
            email: 'dora@example.org',
            name: 'Dora Dir',
            orgId: 1,
            isServiceAdmin: true,
            isDisabled: false,
            authModule: 'ldap',
          },
        },
        actor(),
        origin,
      ),
      expected(
        {
          action: 'org_user.add',
          orgId: 1,
          resourceKind: 'org_user',
          resourceId: `1:${doraId}`,
          before: null,
          after: membership(1, doraId, 'Admin'),
        },
        actor(),
        origin,
      ),
    ]);
  });

  it('a sign-in that changes nothing logs nothing', async () => {
    await expectLogged(app, async () => expectOutcome(await restFrom(app, 'GET', '/api/user', { auth: dir }), 200), []);
  });

  it('a group change logs user.service_admin_set and org_user.update; a new name logs user.update', async () => {
    dora.memberOf = [GROUPS.editors];
    dora.sn = 'Renamed';
    const origin = newOrigin();
    await expectLogged(app, async () => expectOutcome(await restFrom(app, 'GET', '/api/user', { auth: dir, origin }), 200), [
      expected(
        {
          action: 'user.update',
          orgId: 0,
          resourceKind: 'user',
          resourceId: String(doraId),
          before: { email: 'dora@example.org', name: 'Dora Dir', orgId: 1 },
          after: { email: 'dora@example.org', name: 'Dora Renamed', orgId: 1 },
        },
        actor(),
        origin,
      ),
      expected(
        {
          action: 'user.service_admin_set',
          orgId: 0,
          resourceKind: 'user',
          resourceId: String(doraId),
          before: { isServiceAdmin: true },
          after: { isServiceAdmin: false },
        },
        actor(),
        origin,
      ),
      expected(
        {
          action: 'org_user.update',
          orgId: 1,
          resourceKind: 'org_user',
          resourceId: `1:${doraId}`,
          before: membership(1, doraId, 'Admin'),
          after: membership(1, doraId, 'Editor'),
        },
        actor(),
        origin,
      ),
    ]);
  });

  it('a membership the directory does not map is removed and logged as org_user.remove', async () => {
    const org = await app.database.prisma.org.create({ data: { name: 'audit-unmapped-org' } });
    await app.services.access.write((tx) => tx.orgUser.create({ data: { orgId: org.id, userId: doraId, role: 'Viewer' } }));
    const origin = newOrigin();
    await expectLogged(app, async () => expectOutcome(await restFrom(app, 'GET', '/api/user', { auth: dir, origin }), 200), [
      expected(
        {
          action: 'org_user.remove',
          orgId: org.id,
          resourceKind: 'org_user',
          resourceId: `${org.id}:${doraId}`,
          before: membership(org.id, doraId, 'Viewer'),
          after: null,
        },
        actor(),
        origin,
      ),
    ]);
  });

  it('a refused directory sign-in logs nothing', async () => {
    await expectLogged(
      app,
      async () =>
        expectOutcome(await restFrom(app, 'GET', '/api/user', { auth: { login: 'dora', password: 'wrong' } }), 401, 'INVALID_CREDENTIALS'),
      [],
    );
  });
});

describe('users created by an OAuth sign-in', () => {
  let provider: TestProvider;
  let oauthApp: TestApp;
  beforeAll(async () => {
    provider = await startProvider();
    oauthApp = await createAuditApp({
      ROOT_URL,
      AUTH_GENERIC_OAUTH_ENABLED: 'true',
      AUTH_GENERIC_OAUTH_CLIENT_ID: CLIENT.id,
      AUTH_GENERIC_OAUTH_CLIENT_SECRET: CLIENT.secret,
      AUTH_GENERIC_OAUTH_ISSUER: provider.issuer,
      AUTH_GENERIC_OAUTH_SCOPES: 'openid email profile',
      AUTH_GENERIC_OAUTH_ROLE_ATTRIBUTE_PATH: "contains(groups[*], 'admins') && 'GrafanaAdmin' || 'Editor'",
    });
  });
  afterAll(async () => {
    await oauthApp?.close();
    await provider?.close();
  });

  it('logs user.create and org_user.add made by the new user, auth method oauth', async () => {
    provider.account.next = { sub: 'olga-sub', preferred_username: 'olga', email: 'olga@idp.test', name: 'Olga', groups: ['admins'] };
    const start = await oauthApp.request('/login/generic_oauth', { auth: null });
    const state = /portcullis_oauth_state=([^;]+)/.exec(start.headers.getSetCookie().join('\n'))?.[1] as string;
    const back = await provider.browse(start.headers.get('location') as string);
    const mark = await lastEventId(oauthApp);
    const done = await oauthApp.request(`/login/generic_oauth${back.search}`, {
      auth: null,
      headers: { cookie: `portcullis_oauth_state=${state}` },
    });
    expect(done.headers.get('location')).toBe(ROOT_URL);
    const olga = await oauthApp.database.prisma.user.findUniqueOrThrow({ where: { login: 'olga' } });
    const events = await eventsAfter(oauthApp, mark);
    const who = { actorKind: 'user', actorId: olga.id, actorLogin: 'olga', authMethod: 'oauth' };
    expect(events.map((e) => ({ action: e.action, orgId: e.orgId, resource: `${e.resourceKind}:${e.resourceId}` }))).toEqual([
      { action: 'user.create', orgId: 0, resource: `user:${olga.id}` },
      { action: 'org_user.add', orgId: 1, resource: `org_user:1:${olga.id}` },
    ]);
    for (const e of events) expect(e).toMatchObject(who);
    expect(events[0]?.after).toMatchObject({ login: 'olga', isServiceAdmin: true, authModule: 'oauth_generic_oauth' });
    expect(events[1]?.after).toMatchObject({ orgId: 1, userId: olga.id, role: 'Admin' });
  });
});

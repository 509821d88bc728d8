/**
 * LDAP users against a real LDAP server on 127.0.0.1: Basic and /login,
 * sync of name, email, org role and Service Admin flag at every login, bad passwords, unknown
 * users, filter injection, no sign-in into (or rewrite of) another user by login or email (409,
 * external-match.ts), a directory that is down (a generic answer; the address and the
 * network error only in the log), no local password, the status route, the CLI diagnostics.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/index.js';
import { LdapService, REFUSAL } from '../../src/modules/ldap/service.js';
import { createLogger } from '../../src/platform/logger.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { GROUPS, ldapToml, type Person, startLdap, type TestLdap } from './ldap-server.js';

process.env.TEST_LDAP_BIND_PASSWORD = 'bind-secret';
let directory: TestLdap;
let app: TestApp;
const alice: Person = {
  uid: 'alice',
  password: 'alice-pw',
  mail: 'alice@example.org',
  givenName: 'Alice',
  sn: 'Liddell',
  memberOf: [GROUPS.admins],
};
const bob: Person = { uid: 'bob', password: 'bob-pw', mail: 'bob@example.org', givenName: 'Bob', sn: 'B', memberOf: [] };

/** The ldap.toml files this test writes, in one scratch directory removed after the tests. */
const scratch = mkdtempSync(join(tmpdir(), 'portcullis-ldap-'));
let tomlFiles = 0;
function tomlFile(port: number, options: { catchAll?: boolean } = {}): string {
  const file = join(scratch, `ldap-${port}-${++tomlFiles}.toml`);
  writeFileSync(file, ldapToml(port, options));
  return file;
}

/** Runs the CLI against the test directory's configuration `toml`; its exit code, stdout and stderr. */
async function cli(args: string[], toml: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: (t: string) => {
      stdout += t;
    },
    stderr: (t: string) => {
      stderr += t;
    },
    env: {
      DATABASE_URL: `file:${join(app.dir, 'cli.db')}`,
      ADMIN_PASSWORD: 'cli-admin',
      LOG_LEVEL: 'silent',
      AUTH_LDAP_ENABLED: 'true',
      AUTH_LDAP_CONFIG_FILE: toml,
    },
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

async function appWithLdap(port: number): Promise<TestApp> {
  return createTestApp({ env: { AUTH_LDAP_ENABLED: 'true', AUTH_LDAP_CONFIG_FILE: tomlFile(port) } });
}

const me = (login: string, password: string) => app.request('/api/user', { auth: { login, password } });

beforeAll(async () => {
  directory = await startLdap([alice, bob]);
  app = await appWithLdap(directory.port);
});
afterAll(async () => {
  await app.close();
  await directory.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('LDAP', () => {
  it('Basic: a directory user signs in and is synced from the directory', async () => {
    const res = await me('alice', 'alice-pw');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      login: 'alice',
      email: 'alice@example.org',
      name: 'Alice Liddell',
      isServiceAdmin: true,
      isExternal: true,
    });
    const orgs = await (await app.request('/api/user/orgs', { auth: { login: 'alice', password: 'alice-pw' } })).json();
    expect(orgs).toEqual([{ orgId: 1, name: 'Main Org.', role: 'Admin' }]);
  });
  it('/login starts a session for a directory user', async () => {
    const res = await app.request('/login', { method: 'POST', auth: null, json: { user: 'bob', password: 'bob-pw' } });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie().some((c) => c.startsWith('portcullis_session='))).toBe(true);
  });
  it('a group change demotes at the next login', async () => {
    const carol: Person = {
      uid: 'carol',
      password: 'carol-pw',
      mail: 'carol@example.org',
      givenName: 'Carol',
      sn: 'C',
      memberOf: [GROUPS.admins],
    };
    directory.people.set('carol', carol);
    expect(await (await me('carol', 'carol-pw')).json()).toMatchObject({ isServiceAdmin: true });
    carol.memberOf = [GROUPS.editors];
    expect(await (await me('carol', 'carol-pw')).json()).toMatchObject({ isServiceAdmin: false });
    const orgs = await (await app.request('/api/user/orgs', { auth: { login: 'carol', password: 'carol-pw' } })).json();
    expect(orgs).toEqual([{ orgId: 1, name: 'Main Org.', role: 'Editor' }]);
  });
  it('a directory user never signs into nor rewrites another user: its email or login held elsewhere is a 409 conflict', async () => {
    const db = app.database.prisma;
    const local = await db.user.create({ data: { login: 'dina-local', email: 'dina@example.org', name: 'Dina (local)', orgId: 1 } });
    const sameLogin = await db.user.create({ data: { login: 'fred', email: 'fred@corp.test', name: 'Fred (local)', orgId: 1 } });
    await me('bob', 'bob-pw'); // bob, an LDAP user now
    const bobRow = await db.user.findUniqueOrThrow({ where: { login: 'bob' } });
    const people: Person[] = [
      { uid: 'dina', password: 'dina-pw', mail: 'dina@example.org', givenName: 'Dina', sn: 'D', memberOf: [GROUPS.admins] },
      { uid: 'bobby', password: 'bobby-pw', mail: 'bob@example.org', givenName: 'Bobby', sn: 'B', memberOf: [GROUPS.admins] },
    ];
    for (const person of people) {
      directory.people.set(person.uid, person);
      const res = await me(person.uid, person.password);
      expect(res.status).toBe(409);
      expect(await res.json()).toEqual({
        code: 'EXTERNAL_IDENTITY_CONFLICT',
        message: 'Login failed: the login or email of this identity belongs to another user',
      });
      const login = await app.request('/login', { method: 'POST', auth: null, json: { user: person.uid, password: person.password } });
      expect(login.status).toBe(409);
    }
    // The login of a local user is checked against its local password, never the directory's.
    directory.people.set('fred', { uid: 'fred', password: 'fred-pw', mail: 'fred@example.org', givenName: 'F', sn: 'F', memberOf: [] });
    expect((await me('fred', 'fred-pw')).status).toBe(401);
    expect(await db.user.findUniqueOrThrow({ where: { id: local.id } })).toEqual(local);
    expect(await db.user.findUniqueOrThrow({ where: { id: sameLogin.id } })).toEqual(sameLogin);
    expect(await db.user.findUniqueOrThrow({ where: { id: bobRow.id } })).toEqual(bobRow);
    expect(await db.user.count({ where: { login: { in: ['dina', 'bobby'] } } })).toBe(0);
    // A directory user whose mail moves onto another user's is refused too, keeping its own.
    const bob2 = directory.people.get('bob') as Person;
    bob2.mail = 'dina@example.org';
    try {
      expect((await me('bob', 'bob-pw')).status).toBe(409);
    } finally {
      bob2.mail = 'bob@example.org';
    }
    expect((await db.user.findUniqueOrThrow({ where: { id: bobRow.id } })).email).toBe('bob@example.org');
  });
  it('bad password and unknown user answer 401', async () => {
    expect((await me('alice', 'wrong')).status).toBe(401);
    expect((await me('nobody', 'alice-pw')).status).toBe(401);
    expect((await me('alice', '')).status).toBe(401);
  });
  it('filter injection finds nothing: the login is escaped', async () => {
    for (const login of ['*', 'al*', 'alice)(uid=*', '*)(|(uid=*']) {
      expect((await me(login, 'alice-pw')).status).toBe(401);
    }
    expect(directory.filters.some((f) => f.includes('\\2a'))).toBe(true);
    expect(directory.filters.every((f) => !f.includes('(uid=*)'))).toBe(true);
  });
  it('an LDAP user cannot set a local password', async () => {
    const res = await app.request('/api/user/password', {
      method: 'PUT',
      auth: { login: 'bob', password: 'bob-pw' },
      json: { oldPassword: 'bob-pw', newPassword: 'local-one' },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'PASSWORD_MANAGED_EXTERNALLY' });
  });
  it('GET /api/admin/ldap/status for Service Admins', async () => {
    const res = await app.request('/api/admin/ldap/status');
    expect(await res.json()).toEqual([{ host: '127.0.0.1', port: directory.port, available: true, error: '' }]);
    expect((await app.request('/api/admin/ldap/status', { auth: { login: 'bob', password: 'bob-pw' } })).status).toBe(403);
  });
  it('a directory that is down answers 401 quickly, and local users still sign in', async () => {
    const down = await appWithLdap(9);
    try {
      const started = performance.now();
      const res = await down.request('/api/user', { auth: { login: 'alice', password: 'alice-pw' } });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'IDENTITY_PROVIDER_UNAVAILABLE' });
      expect(performance.now() - started).toBeLessThan(2500);
      expect((await down.request('/api/user')).status).toBe(200); // the local admin
    } finally {
      await down.close();
    }
  });
  it('a directory that is down: the caller gets a generic message, the address and error go to the log', async () => {
    const down = await appWithLdap(9);
    try {
      const answers = [
        await down.request('/api/user', { auth: { login: 'anyone', password: 'x' } }),
        await down.request('/login', { method: 'POST', auth: null, json: { user: 'anyone', password: 'x' } }),
      ];
      for (const res of answers) {
        expect(res.status).toBe(401);
        const text = await res.text();
        expect(JSON.parse(text)).toEqual({ message: 'Identity provider unavailable', code: 'IDENTITY_PROVIDER_UNAVAILABLE' });
        expect(text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|:9\b/);
      }
      const lines: string[] = [];
      const sink = new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      });
      const ldap = new LdapService(tomlFile(9), down.services.access, createLogger('info', sink));
      await expect(ldap.authenticate('anyone', 'x')).rejects.toMatchObject({
        code: 'IDENTITY_PROVIDER_UNAVAILABLE',
        message: 'Identity provider unavailable',
      });
      const logged = JSON.parse(lines.join('')) as { msg: string; servers: string[] };
      expect(logged).toMatchObject({ msg: 'LDAP server unavailable', servers: ['127.0.0.1:9 (connect ECONNREFUSED 127.0.0.1:9)'] });
    } finally {
      await down.close();
    }
  });
  it('the CLI shows the status and the mapped identity of a login', async () => {
    const status = await cli(['auth', 'ldap-status'], tomlFile(directory.port));
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual([{ host: '127.0.0.1', port: directory.port, available: true, error: '' }]);
    const test = await cli(['auth', 'ldap-test', '--login', 'alice', '--password', 'alice-pw'], tomlFile(directory.port));
    expect(test.code).toBe(0);
    expect(JSON.parse(test.stdout)).toMatchObject({
      found: true,
      login: 'alice',
      isServiceAdmin: true,
      orgRoles: [{ orgId: 1, role: 'Admin' }],
    });
  });
  it('auth ldap-status exits 1 naming each server when none is available', async () => {
    const status = await cli(['auth', 'ldap-status'], tomlFile(9));
    expect(status.code).toBe(1);
    expect(status.stdout).toBe('');
    expect(status.stderr).toMatch(/IDENTITY_PROVIDER_UNAVAILABLE: no LDAP server is available: 127\.0\.0\.1:9 \(.*ECONNREFUSED/);
  });
  it('auth ldap-test says why a login is refused: wrong password, unknown user, no group mapping', async () => {
    const server = `127.0.0.1:${directory.port}`;
    const reason = async (login: string, password: string, toml = tomlFile(directory.port)) => {
      const out = await cli(['auth', 'ldap-test', '--login', login, '--password', password], toml);
      expect(out.code).toBe(0);
      return JSON.parse(out.stdout) as { found: boolean; reason?: string; server?: string };
    };
    expect(await reason('alice', 'wrong')).toEqual({ found: false, reason: REFUSAL.wrongPassword, server });
    expect(await reason('nobody', 'alice-pw')).toEqual({ found: false, reason: REFUSAL.unknownUser });
    // bob is in no group: without the catch-all "*" mapping, his right password maps to nothing.
    const strict = tomlFile(directory.port, { catchAll: false });
    expect(await reason('bob', 'bob-pw', strict)).toEqual({ found: false, reason: REFUSAL.noGroupMapping, server });
    expect(await reason('alice', 'alice-pw', strict)).toMatchObject({ found: true, login: 'alice' });
    const down = await cli(['auth', 'ldap-test', '--login', 'alice', '--password', 'alice-pw'], tomlFile(9));
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/IDENTITY_PROVIDER_UNAVAILABLE: LDAP server unavailable: 127\.0\.0\.1:9/);
  });
});

/**
 * When users were last seen (Grafana's user.last_seen_at): every authenticated
 * request of a user or service account counts, whatever its credential (Basic, session cookie,
 * service-account token), and shows in the directory's `lastSeenAt` / `lastSeenAtAge`; API keys
 * are not users. Written at most once per 5 minutes per user (Grafana's interval), in the
 * background: requests in between send no SQL for it; the write leaves the user's `updated` alone.
 * The migration that adds the column keeps, for users seen before it, their newest session.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAST_SEEN_INTERVAL_MS } from '../../src/modules/sessions/last-seen.js';
import { MIGRATIONS_DIR } from '../../src/platform/migrations.js';
import { readMigrations } from '../../src/platform/schema-engine.js';
import { createTestApp, type TestApp, TestClock } from '../support/app.js';
import { onPostgres } from '../support/postgres.js';
import { createKey, createServiceAccountViaGraphql, createUser, SUBJECT_PASSWORD } from '../support/subjects.js';

const clock = new TestClock();
let app: TestApp;

beforeAll(async () => {
  app = await createTestApp({ clock });
});
afterAll(() => app.close());

type Hit = { id: number; login: string; lastSeenAt: string; lastSeenAtAge: string };

/** The user's search hit, once every last-seen write has landed. */
async function hit(login: string): Promise<Hit> {
  await app.services.sessions.seenWritesSettled();
  const res = await app.request(`/api/users/search?query=${login}`);
  expect(res.status).toBe(200);
  const found = ((await res.json()) as { users: Hit[] }).users.find((u) => u.login === login);
  expect(found).toBeDefined();
  return found as Hit;
}

/** The last-seen writes among the SQL statements sent since the last reset. */
const seenWrites = () => app.queries.filter((sql) => /UPDATE "User" SET "lastSeenAt"/.test(sql));

describe('last seen', () => {
  it('a user who never made a request shows Grafana\'s "created minus 10 years"; one Basic request makes it "< 1 minute"', async () => {
    const u = await createUser(app, 'seen-basic');
    const before = await app.database.prisma.user.findUniqueOrThrow({ where: { id: u.id } });
    const never = new Date(before.created);
    never.setUTCFullYear(never.getUTCFullYear() - 10);
    expect((await hit(u.login)).lastSeenAt).toBe(never.toISOString());
    expect((await app.request('/api/user', { auth: u.auth })).status).toBe(200);
    const seen = await hit(u.login);
    expect(seen).toMatchObject({ lastSeenAt: clock.now().toISOString(), lastSeenAtAge: '< 1 minute' });
    const after = await app.database.prisma.user.findUniqueOrThrow({ where: { id: u.id } });
    expect(after.updated).toEqual(before.updated); // being seen is not a change of the user
  });

  it('is written at most once per 5 minutes per user; requests in between send no SQL for it', async () => {
    const u = await createUser(app, 'seen-often');
    app.resetQueries();
    expect((await app.request('/api/user', { auth: u.auth })).status).toBe(200);
    await app.services.sessions.seenWritesSettled();
    expect(seenWrites()).toHaveLength(1);
    const first = clock.now().toISOString();
    for (let i = 0; i < 5; i++) {
      clock.advance(50);
      expect((await app.request('/api/user', { auth: u.auth })).status).toBe(200);
    }
    await app.services.sessions.seenWritesSettled();
    expect(seenWrites()).toHaveLength(1);
    expect((await hit(u.login)).lastSeenAt).toBe(first);
    clock.advance(LAST_SEEN_INTERVAL_MS / 1000);
    expect((await app.request('/api/user', { auth: u.auth })).status).toBe(200);
    const later = await hit(u.login);
    expect(later.lastSeenAt).toBe(clock.now().toISOString());
    expect(seenWrites().length).toBeGreaterThanOrEqual(2);
  });

  it('a session cookie counts, from the login on', async () => {
    const u = await createUser(app, 'seen-session');
    const login = await app.request('/login', { method: 'POST', auth: null, json: { user: u.login, password: SUBJECT_PASSWORD } });
    expect(login.status).toBe(200);
    expect((await hit(u.login)).lastSeenAt).toBe(clock.now().toISOString());
    const cookie = (login.headers.get('set-cookie') as string).split(';')[0] as string;
    clock.advance(LAST_SEEN_INTERVAL_MS / 1000 + 1);
    expect((await app.request('/api/user', { auth: null, headers: { cookie } })).status).toBe(200);
    expect((await hit(u.login)).lastSeenAt).toBe(clock.now().toISOString());
  });

  it("a service account's token marks the service account as seen; an API key marks no user", async () => {
    const sa = await createServiceAccountViaGraphql(app, { input: { role: 'Viewer' } });
    const created = await app.request(`/api/serviceaccounts/${sa.id}/tokens`, { method: 'POST', json: { name: 'seen' } });
    expect(created.status).toBe(200);
    const { key } = (await created.json()) as { key: string };
    expect((await app.database.prisma.user.findUniqueOrThrow({ where: { id: sa.id } })).lastSeenAt).toBeNull();
    expect((await app.request('/api/org', { auth: { token: key } })).status).toBe(200);
    await app.services.sessions.seenWritesSettled();
    expect((await app.database.prisma.user.findUniqueOrThrow({ where: { id: sa.id } })).lastSeenAt).toEqual(clock.now());

    const apiKey = await createKey(app, { name: 'seen-key', role: 'Viewer' });
    app.resetQueries();
    expect((await app.request('/api/org', { auth: { token: apiKey.key } })).status).toBe(200);
    await app.services.sessions.seenWritesSettled();
    expect(seenWrites()).toEqual([]);
  });

  // SQLite-specific: replays a SQLite data migration; PostgreSQL databases start from the current schema and seed.
  it.skipIf(onPostgres)('the migration that adds the column starts users at their newest session (or never seen)', async () => {
    const name = readMigrations(MIGRATIONS_DIR).find((m) => m.name.endsWith('_user_last_seen'))?.name as string;
    const sql = readFileSync(join(MIGRATIONS_DIR, name, 'migration.sql'), 'utf8');
    const backfill = sql.slice(sql.indexOf('UPDATE "User"')).trim();
    const [a, b] = [await createUser(app, 'migrated-seen'), await createUser(app, 'migrated-never')];
    await app.services.sessions.start(a.id, 'password', { clientIp: '', userAgent: '' });
    clock.advance(3600);
    await app.services.sessions.start(a.id, 'password', { clientIp: '', userAgent: '' });
    const newest = clock.now();
    await app.services.sessions.seenWritesSettled();
    await app.database.prisma.$executeRawUnsafe('UPDATE "User" SET "lastSeenAt" = NULL');
    await app.database.prisma.$executeRawUnsafe(backfill);
    const rows = await app.database.prisma.user.findMany({ where: { id: { in: [a.id, b.id] } }, orderBy: { id: 'asc' } });
    expect(rows.map((r) => r.lastSeenAt)).toEqual([newest, null]);
  });
});

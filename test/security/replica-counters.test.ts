/**
 * Login counters shared by replicas (`npm run test:postgres` only): two app
 * instances on one PostgreSQL database, as two replicas behind a load balancer. Failed password
 * checks counted by one replica count on the other (src/modules/sign-in/counter-stores.ts:
 * RateLimiterPostgres in the shared database), on REST (Basic and `/login`) and GraphQL (Basic),
 * and 100 wrong passwords sent to both at once check at most the limit. On SQLite the counters
 * stay in each process's memory: SQLite serves one instance (README "PostgreSQL").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { LOGIN_COUNTERS_TABLE } from '../../src/modules/sign-in/counter-stores.js';
import type { Database } from '../../src/platform/database.js';
import { type PasswordVerifier, verifyPassword } from '../../src/platform/passwords.js';
import { authHeader, createTestApp, type TestApp } from '../support/app.js';
import { onPostgres } from '../support/postgres.js';
import { openReplica } from '../support/replica.js';
import { createUser, SUBJECT_PASSWORD } from '../support/subjects.js';

const LIMIT = 3;
let realChecks = 0;
/** Counts the checks of a real hash, on both replicas. */
const counting: PasswordVerifier = async (stored, password) => {
  if (stored !== null) realChecks++;
  return verifyPassword(stored, password);
};

let one: TestApp;
let twoDb: Database;
let two: App;

beforeAll(async () => {
  if (!onPostgres) return;
  one = await createTestApp({ env: { BRUTE_FORCE_LOGIN_PROTECTION_MAX_ATTEMPTS: String(LIMIT) }, verifyPassword: counting });
  ({ db: twoDb, app: two } = await openReplica(one, { deps: { verifyPassword: counting } }));
});
afterAll(async () => {
  await twoDb?.close();
  await one?.close();
});

type Door = 'basic-rest' | 'basic-graphql' | 'login';
/** One password attempt through `replica`'s `door`, from `address`: the status. */
async function attempt(replica: App, door: Door, user: string, password: string, address = '192.0.2.7'): Promise<number> {
  const basic = { authorization: authHeader({ login: user, password }) };
  const init: RequestInit =
    door === 'basic-rest'
      ? { headers: basic }
      : door === 'basic-graphql'
        ? {
            method: 'POST',
            headers: { ...basic, 'content-type': 'application/json' },
            body: JSON.stringify({ query: '{ viewer { login } }' }),
          }
        : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user, password }) };
  const path = door === 'basic-rest' ? '/api/user' : door === 'basic-graphql' ? '/graphql' : '/login';
  const res = await replica.yoga.fetch(`http://test${path}`, init, { req: { socket: { remoteAddress: address } } } as never);
  return res.status;
}

describe.skipIf(!onPostgres)('login counters shared by two replicas on one PostgreSQL database', () => {
  it.each([
    ['REST Basic', 'basic-rest', 'basic-graphql'],
    ['GraphQL Basic', 'basic-graphql', 'basic-rest'],
    ['/login', 'login', 'basic-graphql'],
  ] as const)('failures through one replica on %s lock the name on the other, on both doors', async (_title, failDoor, otherDoor) => {
    const u = await createUser(one, `shared-${failDoor}`);
    for (let i = 0; i < LIMIT; i++) expect(await attempt(i % 2 ? two : one, failDoor, u.login, `wrong-${i}`)).toBe(401);
    // The right password, through the other replica and either door: blocked.
    expect(await attempt(two, failDoor, u.login, SUBJECT_PASSWORD)).toBe(429);
    expect(await attempt(two, otherDoor, u.login, SUBJECT_PASSWORD)).toBe(429);
    expect(await attempt(one, otherDoor, u.login, SUBJECT_PASSWORD)).toBe(429);
  });

  it('a success through one replica clears the name on the other', async () => {
    const u = await createUser(one, 'shared-success');
    for (let i = 0; i < LIMIT - 1; i++) expect(await attempt(two, 'basic-rest', u.login, `wrong-${i}`)).toBe(401);
    expect(await attempt(one, 'basic-graphql', u.login, SUBJECT_PASSWORD)).toBe(200);
    for (let i = 0; i < LIMIT - 1; i++) expect(await attempt(two, 'basic-rest', u.login, `again-${i}`)).toBe(401);
    expect(await attempt(two, 'basic-rest', u.login, SUBJECT_PASSWORD)).toBe(200);
  });

  it('100 wrong passwords at once, split over both replicas: at most the limit of real checks', async () => {
    const u = await createUser(one, 'shared-race');
    realChecks = 0;
    const statuses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        attempt(i % 2 ? two : one, i % 3 ? 'basic-rest' : 'basic-graphql', u.login, `wrong-${i}`, `198.51.100.${i + 1}`),
      ),
    );
    expect(realChecks).toBe(LIMIT);
    expect(statuses.filter((s) => s === 401)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
  });

  it('names and addresses of any length are counted (long ones by their hash), not a 500', async () => {
    const long = `${'x'.repeat(300)}@corp.test`;
    const address = `2001:db8::${'f'.repeat(300)}`;
    for (let i = 0; i < LIMIT; i++) expect(await attempt(i % 2 ? two : one, 'basic-rest', long, `wrong-${i}`, address)).toBe(401);
    expect(await attempt(two, 'basic-graphql', long, 'wrong-again', address)).toBe(429);
    const rows = await one.database.prisma.$queryRawUnsafe<{ key: string }[]>(`SELECT "key" FROM "${LOGIN_COUNTERS_TABLE}"`);
    expect(rows.length).toBeGreaterThan(0);
    expect(Math.max(...rows.map((r) => r.key.length))).toBeLessThanOrEqual(100);
  });
});

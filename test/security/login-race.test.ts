/**
 * The login lock cannot be out-raced, and it is no account oracle.
 * Every password check of the app goes through a counting verifier (createTestApp's
 * `verifyPassword`), which can also hold the checks until the test releases them, so "at once"
 * means at once: all attempts are in flight before any check ends.
 * - 100 wrong passwords at once for one account, on `/login`, Basic (REST and GraphQL), over
 *   its login and its email, from one address or a hundred: at most 5 real checks;
 * - 19 wrong and then the right one while the 5 reserved checks run: not signed in;
 * - 20 wrong old passwords at once on `PUT /api/user/password`: at most 5 checks;
 * - after 5 failures for `e1`, its email answers exactly as an unknown email does (401), and an
 *   unknown email after 5 failures answers exactly as a known one does (429).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type PasswordVerifier, verifyPassword } from '../../src/platform/passwords.js';
import { authHeader, createTestApp, type TestApp } from '../support/app.js';
import { createUser, SUBJECT_PASSWORD } from '../support/subjects.js';

const LIMIT = 5;

/** Counts the checks made against a real hash (a dummy check of an unknown name is none), and can hold them. */
class CountingVerifier {
  real = 0;
  private held: (() => void)[] = [];
  private holding = false;
  private waiters: { count: number; resolve: () => void }[] = [];

  readonly verify: PasswordVerifier = async (stored, password) => {
    if (stored !== null) {
      this.real++;
      for (const w of this.waiters.filter((x) => this.real >= x.count)) w.resolve();
      if (this.holding) await new Promise<void>((resolve) => this.held.push(resolve));
    }
    return verifyPassword(stored, password);
  };

  /** From now on real checks wait for release(). */
  hold(): void {
    this.holding = true;
  }
  release(): void {
    this.holding = false;
    for (const resume of this.held.splice(0)) resume();
  }
  /** Resolves once `count` real checks have started. */
  started(count: number): Promise<void> {
    if (this.real >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }
  reset(): void {
    this.real = 0;
    this.waiters = [];
  }
}

const verifier = new CountingVerifier();
let app: TestApp;

beforeAll(async () => {
  app = await createTestApp({ env: { BRUTE_FORCE_LOGIN_PROTECTION_MAX_ATTEMPTS: String(LIMIT) }, verifyPassword: verifier.verify });
});
afterAll(() => app.close());
beforeEach(() => {
  verifier.release();
  verifier.reset();
});

/** Sends from `address` (the socket's remote address: no proxy is trusted). */
function from(address: string, path: string, init: RequestInit): Promise<Response> {
  return Promise.resolve(app.yoga.fetch(`http://test${path}`, init, { req: { socket: { remoteAddress: address } } } as never));
}

const login = (user: string, password: string, address = '192.0.2.1') =>
  from(address, '/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user, password }) });

const basicRest = (user: string, password: string, address = '192.0.2.1') =>
  from(address, '/api/user', { headers: { authorization: authHeader({ login: user, password }) } });

const basicGraphql = (user: string, password: string, address = '192.0.2.1') =>
  from(address, '/graphql', {
    method: 'POST',
    headers: { authorization: authHeader({ login: user, password }), 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ viewer { login } }' }),
  });

function tally(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
}

/**
 * Fires every attempt while checks are held, releases them once each attempt answered (refused
 * before any check), holds a real check or joined one already running (SignInService.checkOnce:
 * identical Basic credentials share a check), and returns the statuses and the joins.
 */
async function atOnceCounted(attempts: (() => Promise<Response>)[]): Promise<{ statuses: number[]; joined: number }> {
  const joinedBefore = app.services.signIn.joinedChecks;
  const joined = () => app.services.signIn.joinedChecks - joinedBefore;
  verifier.hold();
  let answered = 0;
  const pending = attempts.map((a) =>
    a().then((res) => {
      answered++;
      return res.status;
    }),
  );
  // Then nothing is left to race.
  await new Promise<void>((resolve) => {
    const poll = () => (answered + verifier.real + joined() >= attempts.length ? resolve() : setImmediate(poll));
    poll();
  });
  verifier.release();
  return { statuses: await Promise.all(pending), joined: joined() };
}

/** atOnceCounted's statuses. */
async function atOnce(attempts: (() => Promise<Response>)[]): Promise<number[]> {
  return (await atOnceCounted(attempts)).statuses;
}

describe('the lock holds whatever the concurrency', () => {
  it('100 wrong passwords at once on /login: 5 real checks, the rest 429', async () => {
    const u = await createUser(app, 'race-login');
    const statuses = await atOnce(Array.from({ length: 100 }, (_, i) => () => login(u.login, `wrong-${i}`)));
    expect(verifier.real).toBe(LIMIT);
    expect(tally(statuses)).toEqual({ 401: LIMIT, 429: 100 - LIMIT });
    expect((await login(u.login, SUBJECT_PASSWORD, '203.0.113.1')).status).toBe(429);
  });

  it('100 wrong passwords at once from 100 addresses, on Basic over REST and GraphQL: 5 real checks', async () => {
    const u = await createUser(app, 'race-basic');
    const statuses = await atOnce(
      Array.from({ length: 100 }, (_, i) => () => (i % 2 ? basicRest : basicGraphql)(u.login, `wrong-${i}`, `198.51.100.${i + 1}`)),
    );
    expect(verifier.real).toBe(LIMIT);
    expect(statuses.filter((s) => s === 401)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 200)).toEqual([]);
  });

  it('guesses spread over the login and the email at once still check at most 5 passwords of the account', async () => {
    const u = await createUser(app, 'race-two-names');
    const statuses = await atOnce(
      Array.from({ length: 100 }, (_, i) => () => login(i % 2 ? u.login : u.email, `wrong-${i}`, `198.51.100.${i + 1}`)),
    );
    expect(verifier.real).toBe(LIMIT);
    expect(statuses.filter((s) => s === 200)).toEqual([]);
    // Neither name signs in with the right password now: blocked (429) or, its own count not spent, refused as a wrong password.
    for (const [name, address] of [
      [u.login, '203.0.113.2'],
      [u.email, '203.0.113.3'],
    ] as const) {
      expect([401, 429]).toContain((await login(name, SUBJECT_PASSWORD, address)).status);
    }
    expect(verifier.real).toBe(LIMIT);
  });

  it('19 wrong then the right one while the 5 reserved checks run: not signed in', async () => {
    const u = await createUser(app, 'race-right-last');
    verifier.hold();
    const wrong = Array.from({ length: 19 }, (_, i) => login(u.login, `wrong-${i}`, `198.51.100.${i + 1}`));
    await verifier.started(LIMIT); // the lock is reached: 5 checks hold its 5 points
    const right = await login(u.login, SUBJECT_PASSWORD, '203.0.113.4');
    verifier.release();
    const statuses = await Promise.all(wrong.map((r) => r.then((res) => res.status)));
    expect(right.status).toBe(429);
    expect(right.headers.get('set-cookie')).toBeNull();
    expect(tally(statuses)).toEqual({ 401: LIMIT, 429: 19 - LIMIT });
    expect(verifier.real).toBe(LIMIT);
    expect(await app.database.prisma.session.count({ where: { userId: u.id } })).toBe(0);
  });

  it('19 wrong and the right one all at once: the right one signs in only if it was one of the 5 checks', async () => {
    const u = await createUser(app, 'race-mixed');
    const attempts = Array.from({ length: 20 }, (_, i) => () => basicRest(u.login, i === 19 ? SUBJECT_PASSWORD : `wrong-${i}`));
    const statuses = await atOnce(attempts);
    expect(verifier.real).toBeLessThanOrEqual(LIMIT);
    const checked = statuses.filter((s) => s !== 429).length;
    expect(checked).toBe(verifier.real);
    expect(statuses.slice(0, 19).every((s) => s === 401 || s === 429)).toBe(true);
    expect([200, 429]).toContain(statuses[19]);
  });

  it('20 wrong old passwords at once on PUT /api/user/password: 5 real checks', async () => {
    const u = await createUser(app, 'race-password-change');
    const signedIn = await login(u.login, SUBJECT_PASSWORD, '192.0.2.77');
    const cookie = (signedIn.headers.get('set-cookie') as string).split(';')[0] as string;
    verifier.reset();
    const change = (oldPassword: string) =>
      from('192.0.2.77', '/api/user/password', {
        method: 'PUT',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ oldPassword, newPassword: 'new-password-1' }),
      });
    const statuses = await atOnce(Array.from({ length: 20 }, (_, i) => () => change(`wrong-${i}`)));
    expect(verifier.real).toBe(LIMIT);
    expect(tally(statuses)).toEqual({ 401: LIMIT, 429: 20 - LIMIT });
  });
});

describe('locked answers tell no email from another', () => {
  const answer = async (res: Response) => ({ status: res.status, body: (await res.json()) as { code?: string; message?: string } });

  it('after 5 failures for a login, its email answers as an unknown email does, even with the right password', async () => {
    const e1 = await createUser(app, 'e1');
    for (let i = 0; i < LIMIT; i++) expect((await login(e1.login, `guess-${i}`, `192.0.2.${100 + i}`)).status).toBe(401);
    expect((await login(e1.login, SUBJECT_PASSWORD, '192.0.2.120')).status).toBe(429);
    verifier.reset();
    const known = await answer(await login(e1.email, 'guess', '203.0.113.10'));
    const unknown = await answer(await login('nobody-at-all@corp.test', 'guess', '203.0.113.11'));
    expect(known).toEqual(unknown);
    expect(known.status).toBe(401);
    // The right password through the email checks nothing and signs nothing in.
    const right = await login(e1.email, SUBJECT_PASSWORD, '203.0.113.12');
    expect(await answer(right)).toEqual(unknown);
    expect(verifier.real).toBe(0);
    // On Basic too.
    const basicKnown = await answer(await basicRest(e1.email, SUBJECT_PASSWORD, '203.0.113.13'));
    const basicUnknown = await answer(await basicRest('nobody-either@corp.test', 'guess', '203.0.113.14'));
    expect(basicKnown).toEqual(basicUnknown);
  });

  it('an unknown email after 5 failures answers as a known one does: 429 by its own count', async () => {
    const e2 = await createUser(app, 'e2');
    const lockOut = async (name: string, base: number) => {
      for (let i = 0; i < LIMIT; i++) expect((await login(name, `guess-${i}`, `192.0.2.${base + i}`)).status).toBe(401);
      const res = await answer(await login(name, 'guess', `192.0.2.${base + LIMIT}`));
      return { status: res.status, code: res.body.code };
    };
    const known = await lockOut(e2.email, 130);
    const unknown = await lockOut('ghost@corp.test', 140);
    expect(known).toEqual({ status: 429, code: 'LOGIN_BLOCKED' });
    expect(unknown).toEqual(known);
  });
});

describe('a client with the right password is not refused for its own concurrency', () => {
  const N = 4 * LIMIT;

  it('20 Basic requests at once right after a write (REST and GraphQL) share one check and all answer 200', async () => {
    const u = await createUser(app, 'race-right-parallel');
    await createUser(app, 'race-right-parallel-write'); // a write: no remembered credential survives it
    verifier.reset();
    const { statuses, joined } = await atOnceCounted(
      Array.from({ length: N }, (_, i) => () => (i % 2 ? basicRest : basicGraphql)(u.login, SUBJECT_PASSWORD)),
    );
    expect(tally(statuses)).toEqual({ 200: N });
    expect(verifier.real).toBe(1);
    expect(joined).toBe(N - 1);
  });

  it('the same wrong password 20 times at once is one failed check: the account is not locked by it', async () => {
    const u = await createUser(app, 'race-same-wrong');
    verifier.reset();
    const { statuses } = await atOnceCounted(Array.from({ length: N }, () => () => basicRest(u.login, 'the-same-wrong')));
    expect(tally(statuses)).toEqual({ 401: N });
    expect(verifier.real).toBe(1);
    expect((await basicRest(u.login, SUBJECT_PASSWORD)).status).toBe(200);
  });

  it('different wrong passwords do not share: still at most 5 checks', async () => {
    const u = await createUser(app, 'race-different-wrong');
    verifier.reset();
    const { statuses, joined } = await atOnceCounted(Array.from({ length: N }, (_, i) => () => basicRest(u.login, `wrong-${i}`)));
    expect(joined).toBe(0);
    expect(verifier.real).toBe(LIMIT);
    expect(tally(statuses)).toEqual({ 401: LIMIT, 429: N - LIMIT });
  });
});

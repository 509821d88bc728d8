/**
 * LoginThrottle's arithmetic (throttle.ts): points reserved before a check, kept by a failure,
 * refunded by a success, a cancel or a refusal; 429 only from the typed name's or the address's
 * counter, the account's answering `accountLocked`. The doors and their concurrency are proven in
 * test/security/login-race.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { type LoginAttempt, LoginThrottle } from './throttle.js';

const settings = { maxAttempts: 3, windowSeconds: 300 };
const alice = { typed: 'Alice', userId: 1 };

/** The outcome of one reservation: 'blocked' (429), 'locked' (account spent) or 'ok'. */
async function outcome(throttle: LoginThrottle, subject: { typed: string; userId: number | null }, address = 'a1') {
  try {
    const attempt = await throttle.reserve(subject, address);
    return { kind: attempt.accountLocked ? 'locked' : 'ok', attempt };
  } catch (error) {
    expect(error).toMatchObject({ code: 'LOGIN_BLOCKED', details: { retryAfterSeconds: expect.any(Number) } });
    return { kind: 'blocked', attempt: null };
  }
}

async function kinds(throttle: LoginThrottle, subjects: { typed: string; userId: number | null }[], address = 'a1') {
  const out: string[] = [];
  for (const s of subjects) out.push((await outcome(throttle, s, address)).kind);
  return out;
}

describe('LoginThrottle.reserve', () => {
  it.each([
    ['failures keep their points: the 4th attempt of a name is blocked', [alice, alice, alice, alice], ['ok', 'ok', 'ok', 'blocked']],
    [
      'case and width variants are one name',
      [alice, { typed: ' ALICE ', userId: 1 }, { typed: 'ａｌｉｃｅ', userId: 1 }, alice],
      ['ok', 'ok', 'ok', 'blocked'],
    ],
    [
      "another name of a spent account answers 'locked', not blocked",
      [alice, alice, alice, { typed: 'alice@corp.test', userId: 1 }],
      ['ok', 'ok', 'ok', 'locked'],
    ],
    [
      'an unknown name is counted like a known one',
      [
        { typed: 'ghost', userId: null },
        { typed: 'ghost', userId: null },
        { typed: 'ghost', userId: null },
        { typed: 'ghost', userId: null },
      ],
      ['ok', 'ok', 'ok', 'blocked'],
    ],
  ])('%s', async (_title, subjects, expected) => {
    expect(await kinds(new LoginThrottle(settings), subjects)).toEqual(expected);
  });

  it('a blocked attempt takes no point: blocked names do not use up the address', async () => {
    const throttle = new LoginThrottle(settings);
    await kinds(throttle, [alice, alice, alice]);
    // 20 refused attempts later, the address still has its 15 - 3 = 12 points for other names.
    for (let i = 0; i < 20; i++) expect((await outcome(throttle, alice)).kind).toBe('blocked');
    const others = Array.from({ length: 12 }, (_, i) => ({ typed: `n${i}`, userId: null }));
    expect(await kinds(throttle, others)).toEqual(others.map(() => 'ok'));
    expect((await outcome(throttle, { typed: 'n99', userId: null })).kind).toBe('blocked');
  });

  it('a success clears the name and the account and refunds the address', async () => {
    const throttle = new LoginThrottle(settings);
    await kinds(throttle, [alice, alice]);
    const last = (await outcome(throttle, alice)).attempt as LoginAttempt;
    await last.succeeded(1);
    expect(await kinds(throttle, [alice, alice, alice, alice])).toEqual(['ok', 'ok', 'ok', 'blocked']);
  });

  it('a cancelled attempt gives every point back', async () => {
    const throttle = new LoginThrottle(settings);
    for (let i = 0; i < 10; i++) await ((await outcome(throttle, alice)).attempt as LoginAttempt).cancel();
    expect(await kinds(throttle, [alice, alice, alice, alice])).toEqual(['ok', 'ok', 'ok', 'blocked']);
  });

  it('concurrent reservations: exactly maxAttempts get a check', async () => {
    const throttle = new LoginThrottle(settings);
    const all = await Promise.all(Array.from({ length: 50 }, (_, i) => outcome(throttle, alice, `a${i}`)));
    expect(all.filter((o) => o.kind === 'ok')).toHaveLength(3);
  });

  it('without settings nothing is ever blocked', async () => {
    const throttle = new LoginThrottle(null);
    expect(
      await kinds(
        throttle,
        Array.from({ length: 20 }, () => alice),
      ),
    ).toEqual(Array.from({ length: 20 }, () => 'ok'));
  });
});

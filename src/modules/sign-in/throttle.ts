/**
 * Brute-force protection for password checks (SECURITY.md "Sign-in"), on
 * `rate-limiter-flexible`.
 *
 * Grafana's rule (`brute_force_login_protection_max_attempts`, default 5): after 5 failed
 * attempts for one login within the window (5 minutes) the login is blocked until the window
 * ends and answers 429 even with the right password. Failures are also counted per client
 * address, with a limit LOGINS_PER_ADDRESS times higher, so one address cannot spray guesses over
 * many logins. Both doors, `/login` and the old password of a password change use the same
 * counters.
 *
 * Reserved before the check: an attempt first consumes a point of each of its
 * counters, one after the other in a fixed order (rate-limiter-flexible's `consume`, atomic per
 * key in every store; why in order: `reserve`), and only an attempt that got all its points may
 * check a password. A failed check keeps its points; a
 * passed check refunds the address's point and clears the login's counters (Grafana resets them
 * on success); a refused attempt, or one that never reached a check (directory unreachable),
 * gives every point back (`reward`). So however many attempts run at once, at most `maxAttempts`
 * passwords of one account are checked per window.
 *
 * Counters per login: the name as typed (NFKC, trimmed, lower-cased, so case variants share one)
 * whether or not it names anyone, as Grafana counts, and the account it resolves to (by login or
 * email), so guesses spread over a user's login and email still stop after `maxAttempts` checks.
 * Only the typed name's counter (and the address's) answers 429: when the account's counter is
 * spent but the typed name's is not, the attempt is refused as a wrong password would be, with
 * the same 401 and a dummy hash check's cost (`accountLocked`). Otherwise "5 failures for `e1`,
 * then `e1@corp.test` answers 429 while an unknown email answers 401" would tell which email
 * belongs to which login: now each name answers by its own count only.
 */
import { createHash } from 'node:crypto';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { DomainError } from '../../kernel/errors.js';

/** The per-address limit is this many times the per-login one. */
const LOGINS_PER_ADDRESS = 5;

export interface ThrottleSettings {
  maxAttempts: number;
  windowSeconds: number;
}

/**
 * Where the counters live: makes one rate-limiter-flexible limiter of `points` per
 * `durationSeconds` for keys under `keyPrefix`, resolved once it can count (a database store's
 * table exists). In memory by default (one process, like Grafana's default store); on PostgreSQL
 * the database's (counter-stores.ts), whose consume / reward / delete are atomic per key as well,
 * so a lock earned through one replica holds on all.
 * @throws (the promise) the store's error when it cannot be readied; LoginThrottle asks again at
 *   the next attempt.
 */
export interface CounterStore {
  /** True when every process on the database counts in this store (PostgreSQL), false for one process's memory. */
  readonly shared: boolean;
  limiter(options: { keyPrefix: string; points: number; durationSeconds: number }): Promise<RateLimiterAbstract>;
}

/** Counters in this process's memory: right for one process (SQLite's one instance). */
export const memoryCounters: CounterStore = {
  shared: false,
  limiter: async ({ keyPrefix, points, durationSeconds }) => new RateLimiterMemory({ keyPrefix, points, duration: durationSeconds }),
};

/** Values longer than this are keyed by their SHA-256 (a database store's key column holds 255 characters). */
const MAX_KEY_VALUE = 64;

/** `<kind>:<value>`, or `<kind>-sha256:<hex>` for a long value: one value, one key, in a bounded length. */
function counterKey(kind: string, value: string): string {
  return value.length > MAX_KEY_VALUE ? `${kind}-sha256:${createHash('sha256').update(value).digest('hex')}` : `${kind}:${value}`;
}

/**
 * The 429 of a login out of attempts: when the lock ends, in seconds and as a moment (ISO 8601,
 * `details.retryAt`), and how an operator lifts it sooner (`portcullis user unlock <login>`,
 * `POST /api/admin/users/:id/unlock`). The same text for every name, known or not, so it tells
 * nobody which logins exist. `retryAt` is read on the clock the counters' windows run on
 * (rate-limiter-flexible's `Date.now()`).
 */
export function loginBlocked(retryAfterSeconds: number, retryAt = new Date(Date.now() + retryAfterSeconds * 1000)): DomainError {
  const at = new Date(Math.ceil(retryAt.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  return new DomainError(
    'LOGIN_BLOCKED',
    `Too many consecutive incorrect login attempts - login temporarily blocked for ${retryAfterSeconds} s, until ${at}; ` +
      'an administrator can lift the lock now with `portcullis user unlock <login>` or POST /api/admin/users/<id>/unlock',
    { retryAfterSeconds, retryAt: at },
  );
}

const seconds = (res: RateLimiterRes) => Math.max(1, Math.ceil(res.msBeforeNext / 1000));

/**
 * Who an attempt is for: the name as typed and the id of the user it resolves to (by login or
 * email), null when it names nobody.
 */
export interface LoginSubject {
  typed: string;
  userId: number | null;
}

/** One reserved password check (LoginThrottle.reserve). A failed check needs no call: its points stay spent. */
export interface LoginAttempt {
  /**
   * Set when the account's counter is spent while the typed name's is not: the caller checks no
   * real password and answers as for a wrong one (module comment); seconds until the window ends.
   */
  readonly accountLocked: { retryAfterSeconds: number } | null;
  /** The check passed for user `userId`: refunds the address's point, clears the typed name's and the user's counters. */
  succeeded(userId: number): Promise<void>;
  /** No password was checked after all (the directory could not be asked): every point goes back. */
  cancel(): Promise<void>;
}

interface Counter {
  limiter: RateLimiterAbstract;
  key: string;
}

/** Consumes one point of `counter`: the result, or the refusal when it is spent. @throws the store's own errors. */
async function consume(counter: Counter): Promise<{ ok: boolean; res: RateLimiterRes }> {
  try {
    return { ok: true, res: await counter.limiter.consume(counter.key) };
  } catch (error) {
    if (error instanceof RateLimiterRes) return { ok: false, res: error };
    throw error;
  }
}

/** Gives back the point consumed on `counter`; a window that ended meanwhile is not credited into the next one. */
async function refund(counter: Counter): Promise<void> {
  const res = await counter.limiter.reward(counter.key);
  if (res.consumedPoints < 0) await counter.limiter.delete(counter.key);
}

/** The typed name's counter key: NFKC, trimmed, lower-cased, so case variants share one. */
function nameKey(typed: string): string {
  return counterKey('name', typed.normalize('NFKC').trim().toLowerCase());
}

const UNLIMITED: LoginAttempt = { accountLocked: null, succeeded: async () => undefined, cancel: async () => undefined };

/** Password-check counters per login and per client address. `null` settings: never blocks. */
export class LoginThrottle {
  /** The per-login and per-address limiters, once the store readied them; dropped after a failure to be asked again. */
  private limiters: Promise<[RateLimiterAbstract, RateLimiterAbstract]> | undefined;

  constructor(
    private readonly settings: ThrottleSettings | null,
    private readonly store: CounterStore = memoryCounters,
  ) {}

  /** True when the counters are shared by every process on the database (PostgreSQL), so any of them can lift a lock. */
  get shared(): boolean {
    return this.store.shared;
  }

  /**
   * Lifts the lock of user `userId` (an operator's unlock): clears the counters of each name it
   * signs in with (`names`: its login and email, as typed names are keyed) and of the account.
   * The client addresses' counters stay: they are not one user's (they lapse with their window).
   * In a memory store this clears this process's counters only (`shared`).
   * @throws the store's own errors.
   */
  /**
   * The most failed checks counted in the current window on the names `names` or the account
   * `userId` (0 when none, or without brute-force protection): what `unlock` would clear.
   * @throws the store's own errors.
   */
  async failures(names: readonly string[], userId: number): Promise<number> {
    if (!this.settings) return 0;
    const [byLogin] = await this.counters(this.settings);
    const counted = await Promise.all([...names.map(nameKey), `user:${userId}`].map((key) => byLogin.get(key)));
    return Math.max(0, ...counted.map((res) => res?.consumedPoints ?? 0));
  }

  async unlock(names: readonly string[], userId: number): Promise<void> {
    if (!this.settings) return;
    const [byLogin] = await this.counters(this.settings);
    await Promise.all([...names.map((name) => byLogin.delete(nameKey(name))), byLogin.delete(`user:${userId}`)]);
  }

  private counters(settings: ThrottleSettings): Promise<[RateLimiterAbstract, RateLimiterAbstract]> {
    if (!this.limiters) {
      const durationSeconds = settings.windowSeconds;
      const pending = Promise.all([
        this.store.limiter({ keyPrefix: 'login', points: settings.maxAttempts, durationSeconds }),
        this.store.limiter({ keyPrefix: 'address', points: settings.maxAttempts * LOGINS_PER_ADDRESS, durationSeconds }),
      ]);
      this.limiters = pending;
      pending.catch(() => {
        if (this.limiters === pending) this.limiters = undefined;
      });
    }
    return this.limiters;
  }

  /**
   * True when an attempt for `subject` from `address` would now be refused or answered as locked:
   * the address's, the typed name's or the account's counter has no point left. Consumes
   * nothing. Asked before a remembered credential is honoured (verified-passwords.ts), so a
   * locked name or account never signs in from that memory: it takes the full path, which
   * answers 429 or 401 exactly as `reserve` decides.
   * @throws the store's own errors.
   */
  async blocked(subject: LoginSubject, address: string): Promise<boolean> {
    if (!this.settings) return false;
    const [byLogin, byAddress] = await this.counters(this.settings);
    const spent = async (limiter: RateLimiterAbstract, key: string) => {
      const res = await limiter.get(key);
      return res !== null && res.remainingPoints <= 0;
    };
    const checks = [spent(byAddress, counterKey('ip', address)), spent(byLogin, nameKey(subject.typed))];
    if (subject.userId !== null) checks.push(spent(byLogin, `user:${subject.userId}`));
    return (await Promise.all(checks)).some(Boolean);
  }

  /**
   * Reserves one password check for `subject` from `address` (module comment): consumes a point
   * of the typed name's, then the address's, then the account's counter, one after the other,
   * stopping at the first refusal. The caller then checks the password and reports a success
   * with `succeeded`, or `cancel`s when nothing was checked.
   *
   * One after the other, not at once: in a shared store (PostgreSQL) the consumes of concurrent
   * attempts reach each key in a different order, so an attempt could hold the 3rd point of the
   * name and the 30th of the address; refused by the address, it gives the name's point back,
   * but only after the name's 6th to 100th takers were refused for it. 100 wrong passwords at
   * once then checked 3 of them, not 5, and left the name unlocked. In a fixed order an attempt
   * refused by one counter never touches the next, so a counter is only raced by attempts all
   * earlier counters accepted, and the limits hold exactly (test/security/login-race.test.ts,
   * replica-counters.test.ts). The typed name comes first: its limit is the smallest.
   * @throws DomainError LOGIN_BLOCKED (429, details.retryAfterSeconds) when the typed name or the
   *   address has no point left; every point taken is given back first.
   * @throws the store's own errors, after giving back the points taken.
   */
  async reserve(subject: LoginSubject, address: string): Promise<LoginAttempt> {
    if (!this.settings) return UNLIMITED;
    const [byLogin, byAddress] = await this.counters(this.settings);
    const name: Counter = { limiter: byLogin, key: nameKey(subject.typed) };
    const answering: Counter[] = [name, { limiter: byAddress, key: counterKey('ip', address) }];
    const taken: Counter[] = [];
    const giveBack = (extra: Counter[] = []) => Promise.all([...taken, ...extra].map(refund));
    for (const counter of answering) {
      const answer = await consume(counter).catch(async (error: unknown) => {
        await giveBack();
        throw error;
      });
      // A refused consume counted too (rate-limiter-flexible adds before it compares): it is given back.
      if (!answer.ok) {
        await giveBack([counter]);
        throw loginBlocked(seconds(answer.res));
      }
      taken.push(counter);
    }
    let accountLocked: { retryAfterSeconds: number } | null = null;
    if (subject.userId !== null) {
      const account: Counter = { limiter: byLogin, key: `user:${subject.userId}` };
      const answer = await consume(account).catch(async (error: unknown) => {
        await giveBack();
        throw error;
      });
      // The account's point of a locked attempt goes back: no password of it is checked.
      if (answer.ok) taken.push(account);
      else {
        accountLocked = { retryAfterSeconds: seconds(answer.res) };
        await refund(account);
      }
    }
    return {
      accountLocked,
      succeeded: async (userId) => {
        await Promise.all([refund(answering[1] as Counter), byLogin.delete(name.key), byLogin.delete(`user:${userId}`)]);
      },
      cancel: async () => {
        await giveBack();
      },
    };
  }
}

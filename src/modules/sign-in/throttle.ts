/**
 * Brute-force protection for password checks (issue #10 item 4), on `rate-limiter-flexible`.
 *
 * Grafana's rule (`brute_force_login_protection_max_attempts`, default 5): after 5 failed
 * attempts for one login within 5 minutes the login is blocked for the rest of the window and
 * answers 429 even with the right password. Failures are also counted per client address, with
 * a limit LOGINS_PER_ADDRESS times higher, so one address cannot spray guesses over many logins.
 * Only failures are counted; a success clears the login's counters. Both doors and `/login` use
 * the same counters (one process; they are in memory, like Grafana's default store).
 *
 * "One login" is the account, not the text typed: an attempt counts against the user the typed
 * name resolves to (by login or email), so guesses made with the login also block the email and
 * the other way round, and against the typed name itself (NFKC, trimmed, lower-cased), so case
 * variants and names that resolve to nobody (yet: a directory user before its first sign-in)
 * share a counter too.
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { DomainError } from '../../kernel/errors.js';

/** The per-address limit is this many times the per-login one. */
const LOGINS_PER_ADDRESS = 5;

export interface ThrottleSettings {
  maxAttempts: number;
  windowSeconds: number;
}

function blocked(retryAfterSeconds: number): DomainError {
  return new DomainError(
    'LOGIN_BLOCKED',
    `Too many consecutive incorrect login attempts - login temporarily blocked, retry in ${retryAfterSeconds} s`,
    { retryAfterSeconds },
  );
}

/**
 * Who an attempt is for: the name as typed and the id of the user it resolves to (by login or
 * email), null when it names nobody.
 */
export interface LoginSubject {
  typed: string;
  userId: number | null;
}

/** The per-login counters of `subject`: its normalized typed name and, when known, its user. */
function keysOf(subject: LoginSubject): string[] {
  const name = `name:${subject.typed.normalize('NFKC').trim().toLowerCase()}`;
  return subject.userId === null ? [name] : [name, `user:${subject.userId}`];
}

/** Failed-login counters per login and per client address. `null` settings: never blocks. */
export class LoginThrottle {
  private readonly byLogin: RateLimiterMemory | null;
  private readonly byAddress: RateLimiterMemory | null;

  constructor(private readonly settings: ThrottleSettings | null) {
    this.byLogin = settings && new RateLimiterMemory({ points: settings.maxAttempts, duration: settings.windowSeconds });
    this.byAddress =
      settings && new RateLimiterMemory({ points: settings.maxAttempts * LOGINS_PER_ADDRESS, duration: settings.windowSeconds });
  }

  /**
   * Refuses an attempt for `subject` from `address` while its user, its typed name or the
   * address is blocked (module comment).
   * @throws DomainError LOGIN_BLOCKED (429) with details.retryAfterSeconds.
   */
  async check(subject: LoginSubject, address: string): Promise<void> {
    if (!this.settings || !this.byLogin || !this.byAddress) return;
    const byLogin = this.byLogin;
    const max = this.settings.maxAttempts;
    const [perAddress, ...perLogin] = await Promise.all([this.byAddress.get(address), ...keysOf(subject).map((k) => byLogin.get(k))]);
    const counted: [RateLimiterRes | null, number][] = [
      [perAddress ?? null, max * LOGINS_PER_ADDRESS],
      ...perLogin.map((r) => [r, max] as [RateLimiterRes | null, number]),
    ];
    for (const [res, limit] of counted) {
      if (res && res.consumedPoints >= limit) throw blocked(Math.max(1, Math.ceil(res.msBeforeNext / 1000)));
    }
  }

  /** Counts a failed attempt for `subject` (its user and its typed name) and `address`. */
  async fail(subject: LoginSubject, address: string): Promise<void> {
    if (!this.byLogin || !this.byAddress) return;
    const byLogin = this.byLogin;
    await Promise.all([this.byAddress.penalty(address), ...keysOf(subject).map((k) => byLogin.penalty(k))]).catch((error: unknown) => {
      if (!(error instanceof RateLimiterRes)) throw error;
    });
  }

  /** Clears the per-login counters of `subject` after a success (the address keeps its count). */
  async succeed(subject: LoginSubject): Promise<void> {
    const byLogin = this.byLogin;
    if (!byLogin) return;
    await Promise.all(keysOf(subject).map((k) => byLogin.delete(k)));
  }
}

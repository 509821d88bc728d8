/**
 * Brute-force protection for password checks (issue #10 item 4), on `rate-limiter-flexible`.
 *
 * Grafana's rule (`brute_force_login_protection_max_attempts`, default 5): after 5 failed
 * attempts for one login within 5 minutes the login is blocked for the rest of the window and
 * answers 429 even with the right password. Failures are also counted per client address, with
 * a limit LOGINS_PER_ADDRESS times higher, so one address cannot spray guesses over many logins.
 * Only failures are counted; a success clears the login's counter. Both doors and `/login` use
 * the same counters (one process; they are in memory, like Grafana's default store).
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
   * Refuses an attempt for `login` from `address` while either is blocked. Logins are compared
   * lower-cased, so case variants share one counter.
   * @throws DomainError LOGIN_BLOCKED (429) with details.retryAfterSeconds.
   */
  async check(login: string, address: string): Promise<void> {
    if (!this.settings || !this.byLogin || !this.byAddress) return;
    const [perLogin, perAddress] = await Promise.all([this.byLogin.get(key(login)), this.byAddress.get(address)]);
    const max = this.settings.maxAttempts;
    for (const [res, limit] of [
      [perLogin, max],
      [perAddress, max * LOGINS_PER_ADDRESS],
    ] as const) {
      if (res && res.consumedPoints >= limit) throw blocked(Math.max(1, Math.ceil(res.msBeforeNext / 1000)));
    }
  }

  /** Counts a failed attempt for `login` and `address`. */
  async fail(login: string, address: string): Promise<void> {
    if (!this.byLogin || !this.byAddress) return;
    await Promise.all([this.byLogin.penalty(key(login)), this.byAddress.penalty(address)]).catch((error: unknown) => {
      if (!(error instanceof RateLimiterRes)) throw error;
    });
  }

  /** Clears the login's counter after a success (the address keeps its count). */
  async succeed(login: string): Promise<void> {
    await this.byLogin?.delete(key(login));
  }
}

function key(login: string): string {
  return login.trim().toLowerCase();
}

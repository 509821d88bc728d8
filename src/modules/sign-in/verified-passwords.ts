/**
 * Short-lived memory of Basic-auth credentials that passed a password check (issue 20 item 2:
 * "a short-lived verified-credential cache keyed by a keyed hash, dropped by a password change,
 * a disable, a logout or a lock; never a plaintext or fast unkeyed hash of the password kept").
 *
 * - Key: HMAC-SHA256 of the typed login and the password under a random key drawn once per
 *   process and never stored or logged, so neither the password nor a hash anyone could test
 *   guesses against offline is kept (the key dies with the process).
 * - Entry: the user id, the access generation read before the check (AccessService
 *   .currentGeneration: moved by every write of the one write path, which every password change,
 *   disable, deletion, rename, membership change and logout goes through, and by every other
 *   connection's commit), the user's row with its memberships read after the check (so under
 *   that generation, holding the argon2 hash that was verified), and when. An entry is served
 *   only while the generation is unchanged and less than `ttlMs` old (the injected clock): the
 *   row cannot have changed meanwhile, so it is not read again (issue 20: Basic cost two
 *   statements per request), as the API-key cache (api-keys/verifier.ts) serves its principal.
 * - Only successes are kept, and only local (argon2) users: a directory (LDAP) password may
 *   change outside this service. A failure is never cached: every wrong password is a full,
 *   throttled check. The lock (throttle.ts) is asked on every hit: failed attempts write no row,
 *   so a lock does not move the generation (on PostgreSQL another replica may have earned it).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** Bounds of the cache; `ttlSeconds` 0 turns it off (BASIC_AUTH_CACHE_SECONDS). */
export interface VerifiedPasswordLimits {
  ttlSeconds: number;
  maxEntries: number;
}

/** 60 s, 10,000 credentials. */
export const DEFAULT_VERIFIED_PASSWORD_LIMITS: VerifiedPasswordLimits = { ttlSeconds: 60, maxEntries: 10_000 };

/** A credential that passed a password check; `U` is the user's row (SignInService's UserWithOrgs). */
export interface VerifiedPassword<U> {
  userId: number;
  /** Access generation read before the check. */
  generation: number;
  /** The user's row and memberships, read after the check under `generation`; its hash is the one verified. */
  user: U;
  /** When the check passed, ms since the epoch (the service's clock). */
  verifiedAt: number;
}

/** The cache itself (module comment): keyed hash in, entry out; it decides nothing else. */
export class VerifiedPasswords<U> {
  /** Per-process HMAC key: 256 random bits, never leaves this object. */
  private readonly secret = randomBytes(32);
  private readonly entries: LRUCache<string, VerifiedPassword<U>> | null;
  private readonly ttlMs: number;

  constructor(limits: VerifiedPasswordLimits = DEFAULT_VERIFIED_PASSWORD_LIMITS) {
    this.ttlMs = limits.ttlSeconds * 1000;
    this.entries = this.ttlMs > 0 ? new LRUCache({ max: limits.maxEntries, ttl: this.ttlMs }) : null;
  }

  /** True when the cache is on. */
  get enabled(): boolean {
    return this.entries !== null;
  }

  /** HMAC-SHA256 of `login` and `password`, length-prefixed so no two pairs share an input. */
  keyOf(login: string, password: string): string {
    return createHmac('sha256', this.secret).update(`${login.length}:${login}\u0000${password}`, 'utf8').digest('base64url');
  }

  /** The entry of `key` when it was stored under `generation` less than the TTL before `now` (ms). */
  get(key: string, generation: number, now: number): VerifiedPassword<U> | undefined {
    const entry = this.entries?.get(key);
    if (!entry) return undefined;
    if (entry.generation !== generation || now - entry.verifiedAt >= this.ttlMs || now < entry.verifiedAt) {
      this.entries?.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Remembers a passed check. */
  set(key: string, entry: VerifiedPassword<U>): void {
    this.entries?.set(key, entry);
  }

  /** Forgets `key` (its row no longer matches). */
  delete(key: string): void {
    this.entries?.delete(key);
  }

  /** Number of credentials held (tests). */
  get size(): number {
    return this.entries?.size ?? 0;
  }
}

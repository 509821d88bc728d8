/**
 * Short-lived memory of Basic-auth credentials that passed a password check, so a Basic request
 * costs neither an argon2 check nor a row read when the same credential passed moments ago; it is
 * dropped by a password change, a disable, a logout or a lock, and never keeps a plaintext or a
 * fast unkeyed hash of the password.
 *
 * - Key: a keyed hash (SHA3-256, `keyOf`) of the typed login and the password under a random key
 *   drawn once per process and never stored or logged, so neither the password nor a hash anyone
 *   could test guesses against offline is kept (the key dies with the process).
 * - Entry: the user id, the user's row with its memberships read after the check (holding the
 *   argon2 hash that was verified), and when; in a RevisionCache (kernel/revision-cache.ts)
 *   stamped with the access revision read before the check. Every password change, disable,
 *   deletion, rename, membership change and logout goes through the one write path, which applies
 *   a change to everyone, as does every other connection's commit: an entry is served only while
 *   none was applied since its check, and less than `ttlMs` old (the injected clock), so the row
 *   cannot have changed meanwhile and is not read again, as the API-key cache
 *   (api-keys/verifier.ts) serves its principal.
 * - Only successes are kept, and only local (argon2) users: a directory (LDAP) password may
 *   change outside this service. A failure is never cached: every wrong password is a full,
 *   throttled check. The lock (throttle.ts) is asked on every hit: failed attempts write no row,
 *   so a lock is no change (on PostgreSQL another replica may have earned it).
 */
import { hash, randomBytes } from 'node:crypto';
import type { Freshness } from '../../kernel/freshness.js';
import { RevisionCache } from '../../kernel/revision-cache.js';

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
  /** The user's row and memberships, read after the check; its hash is the one verified. */
  user: U;
  /** When the check passed, ms since the epoch (the service's clock). */
  verifiedAt: number;
}

/** The cache itself (module comment): keyed hash in, entry out; it decides nothing else. */
export class VerifiedPasswords<U> {
  /** The per-process key as text (64 hex digits, 256 bits); it never leaves this object. */
  private readonly secret: string;
  private readonly entries: RevisionCache<string, VerifiedPassword<U>>;
  private readonly ttlMs: number;

  /**
   * @param freshness the access revisions entries are stamped with (AccessService.freshness).
   * @param secret the key: 256 random bits drawn for this process unless a test names one.
   */
  constructor(freshness: Freshness, limits: VerifiedPasswordLimits = DEFAULT_VERIFIED_PASSWORD_LIMITS, secret = randomBytes(32)) {
    this.secret = secret.toString('hex');
    this.ttlMs = limits.ttlSeconds * 1000;
    this.entries = new RevisionCache(freshness, { maxEntries: this.ttlMs > 0 ? limits.maxEntries : 0, ttlMs: Math.max(this.ttlMs, 1) });
  }

  /** True when the cache is on. */
  get enabled(): boolean {
    return this.entries.enabled;
  }

  /** The access revision now: read it before a check whose success `set` will store. */
  stamp(): number {
    return this.entries.stamp();
  }

  /**
   * The keyed hash of `login` and `password` (base64url, 43 characters): SHA3-256 of the secret
   * followed by the pair, length-prefixed so no two pairs share an input. SHA-3 has no length
   * extension (FIPS 202), so a secret prefix makes it a MAC, the construction NIST's KMAC
   * (SP 800-185) is built on; one call of Node's one-shot `crypto.hash` per Basic request.
   */
  keyOf(login: string, password: string): string {
    return hash('sha3-256', `${this.secret}${login.length}:${login}\u0000${password}`, 'base64url');
  }

  /** The entry of `key` when it was stored at the current revision less than the TTL before `now` (ms). */
  get(key: string, now: number): VerifiedPassword<U> | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (now - entry.verifiedAt >= this.ttlMs || now < entry.verifiedAt) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Remembers a passed check made at `revision` (`stamp`, read before the check); a no-op once a change was applied since. */
  set(key: string, entry: VerifiedPassword<U>, revision: number): void {
    this.entries.set(key, entry, revision);
  }

  /** Forgets `key` (its row no longer matches). */
  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Number of credentials held (tests). */
  get size(): number {
    return this.entries.size;
  }
}

/**
 * Verifying a presented API key or service-account token (authentication), with a cache of
 * verified keys so the hot path reads no row for a key it verified moments ago.
 *
 * The cache: keyed by the SHA-256 of the key, the digest the lookup computes anyway (never the
 * key itself), a RevisionCache (kernel/revision-cache.ts) whose entries are served only while no
 * change to everyone was applied since their row was read (every write of the one write path and
 * every commit of another connection applies one). So a deleted key, a deleted or disabled
 * service account, or a changed org role fails or changes at the very next request, exactly as
 * without the cache. Expiry is checked against the Clock on every use. Bounded in entries and in
 * time. Failures are never cached.
 *
 * `lastUsedAt` is written at most once per key per LAST_USED_INTERVAL_MS (an in-memory throttle,
 * seeded from the stored value), on hits and misses alike, never once per request.
 */
import { timingSafeEqual } from 'node:crypto';
import { DomainError } from '../../kernel/errors.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { type ApiKeyPrincipal, isOrgRole, principalOf, type UserPrincipal } from '../../kernel/principal.js';
import { RevisionCache } from '../../kernel/revision-cache.js';
import type { Clock } from '../../platform/clock.js';
import { hashApiKey, isWellFormedApiKey } from './secrets.js';

/** At most one `lastUsedAt` write per key in this many milliseconds. */
export const LAST_USED_INTERVAL_MS = 60_000;
/** Keys whose last write time is remembered; the oldest entry is dropped past this. */
const LAST_USED_CACHE_LIMIT = 10_000;

/** Bounds of the verified-key cache. */
export interface VerifiedKeyCacheLimits {
  /** Keys kept at most (each entry is a few hundred bytes). 0 turns the cache off. */
  maxEntries: number;
  /** Milliseconds an entry may be served; a safety net, changes drop entries at once. */
  ttlMs: number;
}

/** 10,000 keys, 5 minutes (the permission cache's TTL). */
export const DEFAULT_VERIFIED_KEY_LIMITS: VerifiedKeyCacheLimits = { maxEntries: 10_000, ttlMs: 5 * 60_000 };

/** What a verified key authenticates as, and what each later hit must check again. */
interface VerifiedKey {
  keyId: number;
  /** Expiry in ms since the epoch; null: never. */
  expires: number | null;
  /** `lastUsedAt` as read from the row (the throttle's seed). */
  lastUsedAt: Date | null;
  principal: ApiKeyPrincipal | UserPrincipal;
}

export interface ApiKeyVerifierDeps extends FeatureDeps {
  clock: Clock;
}

const invalidKey = () => new DomainError('INVALID_API_KEY', 'Invalid API key');
const expiredKey = () => new DomainError('EXPIRED_API_KEY', 'Expired API key');

/** Verifies keys and tokens, caching verified ones (module comment). */
export class ApiKeyVerifier {
  /** Key id -> time (ms) of its last `lastUsedAt` write, or of the stored value seen. */
  private readonly lastUsedWrites = new Map<number, number>();
  private readonly verified: RevisionCache<string, VerifiedKey>;

  constructor(
    private readonly deps: ApiKeyVerifierDeps,
    limits: VerifiedKeyCacheLimits = DEFAULT_VERIFIED_KEY_LIMITS,
  ) {
    this.verified = new RevisionCache(deps.access.freshness, { maxEntries: limits.maxEntries, ttlMs: limits.ttlMs });
  }

  /**
   * Authenticates a presented key: the principal of a live key, acting in the key's organization
   * with the key's role; for a service-account token, the principal of its service account, with
   * the account's own org role and roles (a disabled or deleted account's tokens stop at once).
   * The row is found by the SHA-256 of the key and the digests compared in constant time; a key
   * verified at the current access revision is served from the cache (module comment).
   * A malformed key (shape or checksum) is refused before any SQL.
   * @throws DomainError INVALID_API_KEY (401: malformed, unknown or deleted),
   *   EXPIRED_API_KEY (401: expiry at or before the clock's now).
   */
  async verify(key: string): Promise<ApiKeyPrincipal | UserPrincipal> {
    if (!isWellFormedApiKey(key)) throw invalidKey();
    const hex = hashApiKey(key);
    const now = this.deps.clock.now();
    const { value: found } = await this.verified.load(hex, () => this.load(hex, now));
    if (found.expires !== null && found.expires <= now.getTime()) throw expiredKey();
    await this.recordUse(found.keyId, found.lastUsedAt, now);
    return { ...found.principal };
  }

  /** Forgets the `lastUsedAt` throttle of a deleted key (its cache entry dies with the write's revision). */
  forget(keyId: number): void {
    this.lastUsedWrites.delete(keyId);
  }

  /** Reads and checks the row of `hex` (and its service account). @throws as `verify`. */
  private async load(hex: string, now: Date): Promise<VerifiedKey> {
    const { db } = this.deps;
    const row = await db.apiKey.findUnique({
      where: { hash: hex },
      // The account by its id, not as a relation: Prisma loads a relation with queries of its
      // own, which a plain key (most requests) would pay for nothing.
      select: { id: true, name: true, orgId: true, role: true, hash: true, expires: true, lastUsedAt: true, serviceAccountId: true },
    });
    if (!row) throw invalidKey();
    const stored = Buffer.from(row.hash, 'latin1');
    const presented = Buffer.from(hex, 'latin1');
    if (stored.length !== presented.length || !timingSafeEqual(stored, presented)) throw invalidKey();
    const expires = row.expires?.getTime() ?? null;
    if (expires !== null && expires <= now.getTime()) throw expiredKey();
    const facts = { keyId: row.id, expires, lastUsedAt: row.lastUsedAt };
    if (row.serviceAccountId !== null) {
      const account = await db.user.findUnique({
        where: { id: row.serviceAccountId },
        select: {
          id: true,
          login: true,
          isServiceAccount: true,
          isServiceAdmin: true,
          isDisabled: true,
          orgs: { where: { orgId: row.orgId }, select: { role: true } },
        },
      });
      if (!account || account.isDisabled) throw invalidKey();
      return { ...facts, principal: principalOf(account, row.orgId, account.orgs[0]?.role ?? 'None', 'api_key') };
    }
    if (!isOrgRole(row.role) || row.role === 'None') throw invalidKey();
    const principal: ApiKeyPrincipal = {
      kind: 'apiKey',
      id: row.id,
      name: row.name,
      orgId: row.orgId,
      orgRole: row.role,
      isServiceAdmin: false,
      authMethod: 'api_key',
    };
    return { ...facts, principal };
  }

  /**
   * Writes `lastUsedAt = now` unless this key was written (or seen stored) less than
   * LAST_USED_INTERVAL_MS ago. A failed write never fails the request; the next use retries.
   */
  private async recordUse(id: number, stored: Date | null, now: Date): Promise<void> {
    const last = Math.max(this.lastUsedWrites.get(id) ?? Number.NEGATIVE_INFINITY, stored?.getTime() ?? Number.NEGATIVE_INFINITY);
    if (now.getTime() - last < LAST_USED_INTERVAL_MS) return;
    // Claimed before the write, so concurrent requests of the same key do not write as well.
    this.lastUsedWrites.delete(id);
    this.lastUsedWrites.set(id, now.getTime());
    if (this.lastUsedWrites.size > LAST_USED_CACHE_LIMIT) {
      const oldest = this.lastUsedWrites.keys().next().value;
      if (oldest !== undefined) this.lastUsedWrites.delete(oldest);
    }
    try {
      await this.deps.db.apiKey.updateMany({ where: { id }, data: { lastUsedAt: now } });
    } catch {
      this.lastUsedWrites.delete(id);
    }
  }
}

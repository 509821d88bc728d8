/**
 * API keys: create, list and delete them, and verify a presented key (authentication).
 * The key format and its storage are described in secrets.ts.
 *
 * Verification reads one row per request and caches nothing, so deleting a key revokes it on
 * the very next request. Expiry is checked on every use against the injected Clock. `lastUsedAt`
 * is written at most once per key per LAST_USED_INTERVAL_MS (an in-memory throttle, seeded
 * from the stored value), never once per request.
 *
 * Rules: service-interface.md "API key", "List/Create/Delete API key", "Required permissions",
 * "Limits"; upstream-behaviour.md "API keys" (role ceiling 403, duplicate name 409, TTL messages,
 * `{"message": "API key deleted"}`, keys act in their own org with their role's basic role).
 * Editions (issue #4): `enterprise` checks apikey:read on apikey:* / apikey:create /
 * apikey:delete on apikey:id:<id>; `oss` requires the org role Admin, as Grafana OSS does.
 */
import { timingSafeEqual } from 'node:crypto';
import type { ApiKey, Prisma } from '../../generated/prisma/client.js';
import type { FeatureDeps } from '../../kernel/access.js';
import { recordAudit } from '../../kernel/audit.js';
import { Action, Scope } from '../../kernel/catalogue.js';
import { authorizeGrant } from '../../kernel/delegation.js';
import { accessDenied, DomainError, notFound } from '../../kernel/errors.js';
import { type Evaluator, permission } from '../../kernel/evaluator.js';
import { PRINCIPAL_GRANT_ACTION as action, orgRoleGain } from '../../kernel/gains.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput } from '../../kernel/inputs.js';
import {
  type ApiKeyPrincipal,
  isOrgRole,
  orgRoleIncludes,
  type Principal,
  principalOf,
  type UserPrincipal,
} from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import type { Clock } from '../../platform/clock.js';
import { isUniqueViolation } from '../../platform/database.js';
import { createApiKeyInput } from './inputs.js';
import { generateApiKey, hashApiKey, isWellFormedApiKey } from './secrets.js';

/** Service-account tokens share the key format and storage (service-account-tokens module). */
export { generateApiKey, hashApiKey, SERVICE_ACCOUNT_TOKEN_PREFIX } from './secrets.js';

/** At most one `lastUsedAt` write per key in this many milliseconds. */
export const LAST_USED_INTERVAL_MS = 60_000;
/** Keys whose last write time is remembered; the oldest entry is dropped past this. */
const LAST_USED_CACHE_LIMIT = 10_000;

/** What each key operation needs in the enterprise edition (oss: org role Admin). */
export const apiKeyRequirements = {
  read: requirement([], () => permission(Action.ApiKeyRead, Scope.ApiKeysAll)),
  create: requirement(
    [],
    () => permission(Action.ApiKeyCreate),
    'and an org role at least the key role, whose permissions you hold (delegation)',
  ),
  delete: requirement(['id'], ({ id }) => permission(Action.ApiKeyDelete, Scope.apiKey(id))),
};

/** The create response: the only time the key value is shown. */
export interface NewApiKey {
  id: number;
  name: string;
  key: string;
}

/** What a Pothos `query` (or any caller) may ask Prisma to load with each key. */
export type ApiKeyQuery = { include?: Prisma.ApiKeyInclude; select?: Prisma.ApiKeySelect };

export interface ApiKeyServiceDeps extends FeatureDeps {
  clock: Clock;
  /** `API_KEY_MAX_SECONDS_TO_LIVE`: when set, every key must expire within it. */
  maxSecondsToLive: number | undefined;
}

/** The fields of a key or token the audit log keeps: never `hash` (and the key itself is never stored). */
export const AUDITED_KEY_FIELDS = { id: true, orgId: true, name: true, role: true, expires: true, serviceAccountId: true } as const;

const invalidKey = () => new DomainError('INVALID_API_KEY', 'Invalid API key');
const expiredKey = () => new DomainError('EXPIRED_API_KEY', 'Expired API key');

/**
 * When a key or service-account token created at `now` expires: `secondsToLive` > 0 later;
 * never for 0, negative or absent, unless `maxSecondsToLive` (API_KEY_MAX_SECONDS_TO_LIVE) is
 * set, which makes it required and bounded (upstream-behaviour.md "API keys").
 * @throws DomainError API_KEY_TTL_REQUIRED (400: "Number of seconds before expiration should be
 *   set"), API_KEY_TTL_TOO_LONG (400: "... is greater than the global limit").
 */
export function keyExpiry(secondsToLive: number | null | undefined, maxSecondsToLive: number | undefined, now: Date): Date | null {
  const seconds = secondsToLive ?? 0;
  if (maxSecondsToLive !== undefined) {
    if (seconds <= 0) throw new DomainError('API_KEY_TTL_REQUIRED', 'Number of seconds before expiration should be set');
    if (seconds > maxSecondsToLive) {
      throw new DomainError('API_KEY_TTL_TOO_LONG', 'Number of seconds before expiration is greater than the global limit');
    }
  }
  return seconds > 0 ? new Date(now.getTime() + seconds * 1000) : null;
}

export class ApiKeyService {
  /** Key id -> time (ms) of its last `lastUsedAt` write, or of the stored value seen. */
  private readonly lastUsedWrites = new Map<number, number>();

  constructor(private readonly deps: ApiKeyServiceDeps) {}

  /**
   * Keys of the caller's organization ordered by name; expired ones (expiry at or before now)
   * only with includeExpired. Needs apikey:read on apikey:* (enterprise) or org Admin (oss).
   * @throws DomainError UNAUTHENTICATED (401), ACCESS_DENIED (403).
   */
  async list(caller: Principal, options: { includeExpired?: boolean | null }, query: ApiKeyQuery = {}): Promise<ApiKey[]> {
    await this.authorize(caller, apiKeyRequirements.read.for({}));
    const now = this.deps.clock.now();
    return this.deps.db.apiKey.findMany({
      ...query,
      where: {
        orgId: caller.orgId,
        serviceAccountId: null,
        ...(options.includeExpired ? {} : { OR: [{ expires: null }, { expires: { gt: now } }] }),
      },
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
    });
  }

  /**
   * Creates a key in the caller's organization (the X-Service-Org-Id one, else its default) and
   * returns it with its value, the only time the value is shown. `secondsToLive` > 0 sets an
   * expiry; 0, negative or absent means none, unless `apiKeyMaxSecondsToLive` is set, then it is
   * required and bounded. Needs apikey:create (enterprise) or org Admin (oss), an org role at
   * least the key's role, and every permission of that role's basic role (the one delegation rule,
   * kernel/delegation.ts; or users.roles:add on permissions:type:escalate).
   * @throws DomainError VALIDATION_FAILED (400: name, role, secondsToLive),
   *   API_KEY_TTL_REQUIRED (400: "Number of seconds before expiration should be set"),
   *   API_KEY_TTL_TOO_LONG (400: "Number of seconds before expiration is greater than the global
   *   limit"), ACCESS_DENIED (403: permission or role above the caller's), UNAUTHENTICATED (401),
   *   API_KEY_ALREADY_EXISTS (409: the name is taken in this organization).
   */
  async create(caller: Principal, rawInput: unknown): Promise<NewApiKey> {
    await this.authorize(caller, apiKeyRequirements.create.for({}));
    const input = parseInput(createApiKeyInput, rawInput);
    if (!orgRoleIncludes(caller.orgRole, input.role)) {
      throw new DomainError('ACCESS_DENIED', `cannot create an API key with role ${input.role}, above your org role ${caller.orgRole}`, {
        needed: `org role ${input.role}`,
      });
    }
    const expires = keyExpiry(input.secondsToLive, this.deps.maxSecondsToLive, this.deps.clock.now());

    const key = generateApiKey();
    requireSignedIn(caller); // authorize() did; this tells the compiler
    const index = await this.deps.access.permissionsOf(caller);
    try {
      const row = await this.deps.access.write(
        async (tx) => {
          const gains = [await orgRoleGain(tx, caller.orgId, input.role)];
          await authorizeGrant(tx, caller, index, { what: `create an API key with role ${input.role}`, action, gains });
          const created = await tx.apiKey.create({
            data: { orgId: caller.orgId, name: input.name, role: input.role, hash: hashApiKey(key).toString('hex'), expires },
            select: AUDITED_KEY_FIELDS,
          });
          // The row without its hash; the key itself never reaches the log.
          await recordAudit(tx, caller, {
            action: 'api_key.create',
            orgId: caller.orgId,
            resource: { kind: 'api_key', id: created.id },
            after: created,
          });
          return created;
        },
        { grantsNothing: true },
      );
      return { id: row.id, name: row.name, key };
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new DomainError('API_KEY_ALREADY_EXISTS', `an API key named "${input.name}" already exists in this organization`, {
          name: input.name,
        });
      }
      throw error;
    }
  }

  /**
   * Deletes a key of the caller's organization; it stops authenticating at once.
   * `rawId` is a number or a string of digits. Needs apikey:delete on apikey:id:<id> (apikey:*
   * covers it) in enterprise, org Admin in oss.
   * @throws DomainError VALIDATION_FAILED (400: id), UNAUTHENTICATED (401), ACCESS_DENIED (403),
   *   API_KEY_NOT_FOUND (404: unknown id or a key of another organization).
   */
  async delete(caller: Principal, rawId: unknown): Promise<{ message: string }> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    await this.authorize(caller, apiKeyRequirements.delete.for({ id }));
    // Through the one write path: the key's cached permission index must not outlive it.
    await this.deps.access.write(async (tx) => {
      const where = { id, orgId: caller.orgId, serviceAccountId: null };
      const before = await tx.apiKey.findFirst({ where, select: AUDITED_KEY_FIELDS });
      if (!before) throw notFound('API_KEY_NOT_FOUND', 'API key', id);
      await tx.apiKey.deleteMany({ where });
      await recordAudit(tx, caller, { action: 'api_key.delete', orgId: caller.orgId, resource: { kind: 'api_key', id }, before });
    });
    this.lastUsedWrites.delete(id);
    return { message: 'API key deleted' };
  }

  /**
   * Authenticates a presented key: the principal of a live key, acting in the key's organization
   * with the key's role; for a service-account token, the principal of its service account, with
   * the account's own org role and roles (a disabled or deleted account's tokens stop at once).
   * The row is found by the SHA-256 of the key and the digests compared in constant time.
   * A malformed key (shape or checksum) is refused before any SQL.
   * Implements the `ApiKeyVerifier` seam of src/auth/authenticate.ts.
   * @throws DomainError INVALID_API_KEY (401: malformed, unknown or deleted),
   *   EXPIRED_API_KEY (401: expiry at or before the clock's now).
   */
  async verify(key: string): Promise<ApiKeyPrincipal | UserPrincipal> {
    if (!isWellFormedApiKey(key)) throw invalidKey();
    const digest = hashApiKey(key);
    const { db } = this.deps;
    const row = await db.apiKey.findUnique({
      where: { hash: digest.toString('hex') },
      // The account by its id, not as a relation: Prisma loads a relation with queries of its
      // own, which a plain key (most requests) would pay for nothing.
      select: { id: true, name: true, orgId: true, role: true, hash: true, expires: true, lastUsedAt: true, serviceAccountId: true },
    });
    if (!row) throw invalidKey();
    const stored = Buffer.from(row.hash, 'hex');
    if (stored.length !== digest.length || !timingSafeEqual(stored, digest)) throw invalidKey();
    const now = this.deps.clock.now();
    if (row.expires && row.expires.getTime() <= now.getTime()) throw expiredKey();
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
      await this.recordUse(row.id, row.lastUsedAt, now);
      return principalOf(account, row.orgId, account.orgs[0]?.role ?? 'None', 'api_key');
    }
    if (!isOrgRole(row.role) || row.role === 'None') throw invalidKey();
    await this.recordUse(row.id, row.lastUsedAt, now);
    return {
      kind: 'apiKey',
      id: row.id,
      name: row.name,
      orgId: row.orgId,
      orgRole: row.role,
      isServiceAdmin: false,
      authMethod: 'api_key',
    };
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

  /**
   * enterprise: the permission check; oss: org role Admin (Grafana OSS guards these routes with
   * reqOrgAdmin). @throws DomainError UNAUTHENTICATED (401), ACCESS_DENIED (403).
   */
  private async authorize(caller: Principal, evaluator: Evaluator): Promise<void> {
    requireSignedIn(caller);
    if (this.deps.edition.edition === 'enterprise') {
      await this.deps.access.check(caller, evaluator);
    } else if (caller.orgRole !== 'Admin') {
      throw accessDenied('org role Admin');
    }
  }
}

import type { ApiKey, Prisma } from '../../generated/prisma/client.js';
import { recordAudit } from '../../kernel/audit.js';
import { Action, Scope } from '../../kernel/catalogue.js';
import { authorizeGrant } from '../../kernel/delegation.js';
import { accessDenied, DomainError, notFound } from '../../kernel/errors.js';
import { type Evaluator, permission } from '../../kernel/evaluator.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { PRINCIPAL_GRANT_ACTION as action, orgRoleGain } from '../../kernel/gains.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput } from '../../kernel/inputs.js';
import { type ApiKeyPrincipal, orgRoleIncludes, type Principal, type UserPrincipal } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import type { Clock } from '../../platform/clock.js';
import { isUniqueViolation } from '../../platform/database.js';
import { createApiKeyInput } from './inputs.js';
import { generateApiKey, hashApiKey } from './secrets.js';
import { ApiKeyVerifier, type VerifiedKeyCacheLimits } from './verifier.js';

/** Service-account tokens share the key format and storage (service-account-tokens module). */
export { generateApiKey, hashApiKey, SERVICE_ACCOUNT_TOKEN_PREFIX } from './secrets.js';

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
  /** Bounds of the verified-key cache (verifier.ts); default DEFAULT_VERIFIED_KEY_LIMITS. */
  verifiedKeys?: VerifiedKeyCacheLimits;
}

/** The fields of a key or token the audit log keeps: never `hash` (and the key itself is never stored). */
export const AUDITED_KEY_FIELDS = { id: true, orgId: true, name: true, role: true, expires: true, serviceAccountId: true } as const;

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
  private readonly verifier: ApiKeyVerifier;

  constructor(private readonly deps: ApiKeyServiceDeps) {
    this.verifier = new ApiKeyVerifier(deps, deps.verifiedKeys);
  }

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
          await authorizeGrant(
            tx,
            caller,
            index,
            { what: `create an API key with role ${input.role}`, action, gains },
            this.deps.clock.now(),
          );
          const created = await tx.apiKey.create({
            data: { orgId: caller.orgId, name: input.name, role: input.role, hash: hashApiKey(key), expires },
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
    this.verifier.forget(id);
    return { message: 'API key deleted' };
  }

  /**
   * Authenticates a presented key or service-account token (ApiKeyVerifier.verify: the row by
   * the key's SHA-256, or a verified key of the current access revision from the cache).
   * Implements the `ApiKeyVerifier` seam of src/http/authenticate.ts.
   * @throws DomainError INVALID_API_KEY (401: malformed, unknown or deleted),
   *   EXPIRED_API_KEY (401: expiry at or before the clock's now).
   */
  verify(key: string): Promise<ApiKeyPrincipal | UserPrincipal> {
    return this.verifier.verify(key);
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

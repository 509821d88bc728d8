/**
 * Service-account tokens, Grafana's replacement for API keys: stored in the
 * API key table with `serviceAccountId` set (as Grafana's api_key.service_account_id), shown once,
 * only their SHA-256 kept, recognisable by the `pcsa_` prefix (api-keys/secrets.ts). A token
 * authenticates as its account (ApiKeyService.verify).
 *
 * Permissions (Grafana): serviceaccounts:read / serviceaccounts:write on serviceaccounts:id:<id>;
 * a token acts as its account, so minting one passes the one delegation rule on the account
 * (kernel/gains.ts authorizeAccountControl): the caller could give the account
 * its org role and every role it holds, or holds users.roles:add on permissions:type:escalate;
 * migrating API keys needs serviceaccounts:create and apikey:delete on apikey:* (the keys stop
 * being keys). Accounts are looked up in the caller's organization only (the wall).
 */

import { recordAudit } from '../../kernel/audit.js';
import { Action, Scope } from '../../kernel/catalogue.js';
import { DomainError, notFound } from '../../kernel/errors.js';
import { all, permission } from '../../kernel/evaluator.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { authorizeAccountControl, DELEGATION_NOTES } from '../../kernel/gains.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput } from '../../kernel/inputs.js';
import type { Principal } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import type { Clock } from '../../platform/clock.js';
import { isUniqueViolation, type Tx } from '../../platform/database.js';
import { AUDITED_KEY_FIELDS, generateApiKey, hashApiKey, keyExpiry, SERVICE_ACCOUNT_TOKEN_PREFIX } from '../api-keys/service.js';
import { serviceAccountLogin } from '../service-accounts/service.js';
import { createTokenInput } from './inputs.js';

export const tokenRequirements = {
  read: requirement(['id'], ({ id }) => permission(Action.ServiceAccountsRead, Scope.serviceAccount(id))),
  write: requirement(['id'], ({ id }) => permission(Action.ServiceAccountsWrite, Scope.serviceAccount(id))),
  /** A token acts as its account: the one delegation rule on the account (module comment). */
  create: requirement(['id'], ({ id }) => permission(Action.ServiceAccountsWrite, Scope.serviceAccount(id)), DELEGATION_NOTES.account),
  migrate: requirement([], () => all(permission(Action.ServiceAccountsCreate), permission(Action.ApiKeyDelete, Scope.ApiKeysAll))),
};

/** A token as listed (Grafana's TokenDTO). */
export interface TokenJson {
  id: number;
  name: string;
  created: string;
  expiration: string | null;
  secondsUntilExpiration: number | null;
  hasExpired: boolean;
  lastUsedAt: string | null;
}

export interface TokenServiceDeps extends FeatureDeps {
  clock: Clock;
  /** API_KEY_MAX_SECONDS_TO_LIVE applies to tokens as well. */
  maxSecondsToLive: number | undefined;
}

async function accountInOrg(tx: Tx, caller: Principal, id: number): Promise<{ id: number; role: string }> {
  const account = await tx.user.findFirst({
    where: { id, isServiceAccount: true, orgId: caller.orgId },
    select: { id: true, orgs: { where: { orgId: caller.orgId }, select: { role: true } } },
  });
  if (!account) throw notFound('SERVICE_ACCOUNT_NOT_FOUND', 'service account', id);
  return { id: account.id, role: account.orgs[0]?.role ?? 'None' };
}

export class ServiceAccountTokenService {
  constructor(private readonly deps: TokenServiceDeps) {}

  /**
   * Tokens of a service account, by name.
   * @throws DomainError 400, 401, 403, SERVICE_ACCOUNT_NOT_FOUND (404).
   */
  async list(caller: Principal, rawId: unknown): Promise<TokenJson[]> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    await this.deps.access.check(caller, tokenRequirements.read.for({ id }));
    await accountInOrg(this.deps.db, caller, id);
    const now = this.deps.clock.now().getTime();
    const rows = await this.deps.db.apiKey.findMany({ where: { serviceAccountId: id }, orderBy: [{ name: 'asc' }, { id: 'asc' }] });
    return rows.map((t) => ({
      id: t.id,
      name: t.name,
      created: t.created.toISOString(),
      expiration: t.expires?.toISOString() ?? null,
      secondsUntilExpiration: t.expires ? Math.max(0, Math.floor((t.expires.getTime() - now) / 1000)) : null,
      hasExpired: t.expires !== null && t.expires.getTime() <= now,
      lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
    }));
  }

  /**
   * Adds a token; returns `{id, name, key}`, the only time the key is shown. `secondsToLive` > 0
   * sets an expiry (required and bounded when API_KEY_MAX_SECONDS_TO_LIVE is set). Needs
   * serviceaccounts:write on the account and the one delegation rule on it (module comment).
   * @throws DomainError VALIDATION_FAILED, API_KEY_TTL_REQUIRED, API_KEY_TTL_TOO_LONG (400), 401, 403
   *   (permission, or delegation naming what the caller lacks),
   *   SERVICE_ACCOUNT_NOT_FOUND (404), API_KEY_ALREADY_EXISTS (409: name taken in the organization).
   */
  async create(caller: Principal, rawId: unknown, rawInput: unknown): Promise<{ id: number; name: string; key: string }> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    const index = await this.deps.access.check(caller, tokenRequirements.create.for({ id }));
    const input = parseInput(createTokenInput, rawInput);
    const expires = keyExpiry(input.secondsToLive, this.deps.maxSecondsToLive, this.deps.clock.now());
    const key = generateApiKey(SERVICE_ACCOUNT_TOKEN_PREFIX);
    try {
      const row = await this.deps.access.write(
        async (tx) => {
          const account = await accountInOrg(tx, caller, id);
          await authorizeAccountControl(tx, caller, index, id, `create a token for service account ${id}`, this.deps.clock.now());
          const token = await tx.apiKey.create({
            data: {
              orgId: caller.orgId,
              name: input.name,
              role: account.role,
              hash: hashApiKey(key),
              expires,
              serviceAccountId: id,
            },
            select: AUDITED_KEY_FIELDS,
          });
          await recordAudit(tx, caller, {
            action: 'service_account_token.create',
            orgId: caller.orgId,
            resource: { kind: 'service_account_token', id: token.id },
            after: token,
          });
          return token;
        },
        { grantsNothing: true },
      );
      return { id: row.id, name: row.name, key };
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new DomainError('API_KEY_ALREADY_EXISTS', `a token or API key named "${input.name}" already exists in this organization`);
      }
      throw error;
    }
  }

  /**
   * Deletes a token; it stops authenticating on the next request.
   * @throws DomainError 400, 401, 403, SERVICE_ACCOUNT_NOT_FOUND / TOKEN_NOT_FOUND (404).
   */
  async delete(caller: Principal, rawId: unknown, rawTokenId: unknown): Promise<{ message: string }> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    const tokenId = parseId('tokenId', rawTokenId);
    await this.deps.access.check(caller, tokenRequirements.write.for({ id }));
    await this.deps.access.write(async (tx) => {
      await accountInOrg(tx, caller, id);
      const before = await tx.apiKey.findFirst({ where: { id: tokenId, serviceAccountId: id }, select: AUDITED_KEY_FIELDS });
      if (!before) throw notFound('TOKEN_NOT_FOUND', 'service account token', tokenId);
      await tx.apiKey.deleteMany({ where: { id: tokenId, serviceAccountId: id } });
      await recordAudit(tx, caller, {
        action: 'service_account_token.delete',
        orgId: caller.orgId,
        resource: { kind: 'service_account_token', id: tokenId },
        before,
      });
    });
    return { message: 'Service account token deleted' };
  }

  /**
   * `POST /api/serviceaccounts/migrate`: every API key of the caller's organization becomes a
   * service account (`sa-autogen-<key name>`, the key's role) holding one token with the same
   * secret, so clients keep working; expiry and last use are kept. Grafana's answer shape.
   * @throws DomainError 401, 403.
   */
  async migrate(caller: Principal): Promise<{ total: number; migrated: number; failed: number; failedApikeyIDs: number[] }> {
    requireSignedIn(caller);
    await this.deps.access.check(caller, tokenRequirements.migrate.for({}));
    const keys = await this.deps.db.apiKey.findMany({ where: { orgId: caller.orgId, serviceAccountId: null }, orderBy: { id: 'asc' } });
    const failed: number[] = [];
    for (const key of keys) {
      const name = `sa-autogen-${key.name}`.slice(0, 190);
      try {
        await this.deps.access.write(async (tx) => {
          const login = serviceAccountLogin(caller.orgId, `${name}-${key.id}`);
          const account = await tx.user.create({
            data: {
              login,
              email: login,
              name,
              isServiceAccount: true,
              orgId: caller.orgId,
              orgs: { create: { orgId: caller.orgId, role: key.role } },
            },
          });
          const after = await tx.apiKey.update({
            where: { id: key.id },
            data: { serviceAccountId: account.id },
            select: AUDITED_KEY_FIELDS,
          });
          const { orgId } = caller;
          await recordAudit(tx, caller, {
            action: 'service_account.create',
            orgId,
            resource: { kind: 'service_account', id: account.id },
            after: { id: account.id, login, name, orgId, role: key.role, isServiceAccount: true },
          });
          const before = { id: key.id, orgId: key.orgId, name: key.name, role: key.role, expires: key.expires, serviceAccountId: null };
          await recordAudit(tx, caller, { action: 'api_key.migrate', orgId, resource: { kind: 'api_key', id: key.id }, before, after });
        });
      } catch {
        failed.push(key.id);
      }
    }
    return { total: keys.length, migrated: keys.length - failed.length, failed: failed.length, failedApikeyIDs: failed };
  }
}

/**
 * Authentication, once per request: turns the request's credentials into one Principal.
 *
 * Accepted (service-interface.md "Authentication"):
 * - `Authorization: Basic base64(login:password)` against stored users (login or email);
 * - `Authorization: Basic base64(api_key:<key>)` and `Authorization: Bearer <key>` for API keys;
 * - no credentials: the anonymous principal (protected operations then answer 401).
 * `X-Service-Org-Id: <id>` chooses the organization; a user must belong to it (a Service Admin
 * may act in any existing one), an API key only ever acts in its own. Otherwise 401.
 */

import { DomainError } from '../kernel/errors.js';
import { ANONYMOUS, type ApiKeyPrincipal, type Principal, principalOf } from '../kernel/principal.js';
import type { Db } from '../platform/database.js';
import { verifyPassword } from '../platform/passwords.js';

/** Name of the header that selects the organization. */
export const ORG_HEADER = 'x-service-org-id';

/** Verifies an API key secret; implemented by the API key service. */
export interface ApiKeyVerifier {
  /**
   * @throws DomainError INVALID_API_KEY or EXPIRED_API_KEY (401).
   */
  verify(secret: string): Promise<ApiKeyPrincipal>;
}

export interface AuthenticatorDeps {
  db: Db;
  apiKeys: ApiKeyVerifier;
}

/** Turns a request into its principal. @throws DomainError with a 400 or 401 code. */
export type Authenticator = (request: Request) => Promise<Principal>;

const unauthorized = () => new DomainError('INVALID_CREDENTIALS', 'Unauthorized');

/** Parses X-Service-Org-Id. @throws DomainError VALIDATION_FAILED (400) when not a positive id. */
export function parseOrgHeader(value: string | null): number | null {
  if (value === null || value.trim() === '') return null;
  const trimmed = value.trim();
  if (!/^\d{1,15}$/.test(trimmed) || Number(trimmed) <= 0) {
    throw new DomainError('VALIDATION_FAILED', 'X-Service-Org-Id must be a positive organization id');
  }
  return Number(trimmed);
}

function decodeBasic(token: string): { login: string; password: string } | null {
  let decoded: string;
  try {
    decoded = Buffer.from(token, 'base64').toString('utf8');
  } catch {
    return null;
  }
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Builds the authenticator the app calls once per request. */
export function createAuthenticator(deps: AuthenticatorDeps): Authenticator {
  const { db, apiKeys } = deps;

  async function withKey(secret: string, orgHeader: number | null): Promise<Principal> {
    const principal = await apiKeys.verify(secret);
    if (orgHeader !== null && orgHeader !== principal.orgId) {
      throw new DomainError('ORG_NOT_ACCESSIBLE', 'API key cannot act in another organization');
    }
    return principal;
  }

  async function withPassword(login: string, password: string, orgHeader: number | null): Promise<Principal> {
    const user = await db.user.findFirst({
      where: { OR: [{ login }, { email: login }], isServiceAccount: false },
      include: { orgs: { select: { orgId: true, role: true } } },
    });
    if (!user?.passwordHash || user.isDisabled || !(await verifyPassword(user.passwordHash, password))) {
      throw unauthorized();
    }
    const orgId = orgHeader ?? user.orgId;
    const membership = user.orgs.find((m) => m.orgId === orgId);
    if (!membership && !(user.isServiceAdmin && (await db.org.count({ where: { id: orgId } })) > 0)) {
      throw new DomainError('ORG_NOT_ACCESSIBLE', `user is not a member of organization ${orgId}`);
    }
    return principalOf(user, orgId, membership?.role ?? 'None', 'basic');
  }

  return async (request) => {
    const orgHeader = parseOrgHeader(request.headers.get(ORG_HEADER));
    const header = request.headers.get('authorization');
    if (!header) return ANONYMOUS;
    const space = header.indexOf(' ');
    const scheme = (space === -1 ? header : header.slice(0, space)).toLowerCase();
    const token = space === -1 ? '' : header.slice(space + 1).trim();
    if (scheme === 'bearer') {
      if (!token) throw new DomainError('INVALID_API_KEY', 'Invalid API key');
      return withKey(token, orgHeader);
    }
    if (scheme === 'basic') {
      const credentials = decodeBasic(token);
      if (!credentials) throw unauthorized();
      if (credentials.login === 'api_key') return withKey(credentials.password, orgHeader);
      return withPassword(credentials.login, credentials.password, orgHeader);
    }
    throw unauthorized();
  };
}

/**
 * Authentication, once per request: turns the request's credentials into one Principal.
 *
 * Accepted (service-interface.md "Authentication"):
 * - `Authorization: Bearer <key>` and `Authorization: Basic base64(api_key:<key>)`: an API key,
 *   or a service-account token (it acts as its service account);
 * - `Authorization: Basic base64(login:password)`: a local user (login or email) or, with LDAP
 *   on, a directory user; throttled like `/login` (SignInService.basicPrincipal: a local
 *   credential that passed moments ago is not checked with argon2 again, verified-passwords.ts);
 * - the session cookie (LOGIN_COOKIE_NAME) set by `/login` or the OAuth callback, when no
 *   Authorization header is sent; a rotated token is queued for the response (cookies.ts), an
 *   ended one answers 401 and is cleared;
 * - no credentials: the anonymous principal (protected operations then answer 401).
 * `X-Service-Org-Id: <id>` chooses the organization; a user must belong to it (a Service Admin
 * may act in any existing one), an API key only ever acts in its own. Otherwise 401. Grafana's
 * clients send `X-Grafana-Org-Id` instead: it is the same header under another name.
 * Every user or service account authenticated is marked as seen (Grafana's last_seen_at,
 * sessions/last-seen.ts: at most one background write per 5 minutes each).
 */

import { DomainError } from '../kernel/errors.js';
import { idFromText } from '../kernel/inputs.js';
import { ANONYMOUS, type Principal } from '../kernel/principal.js';
import type { Services } from '../modules/services.js';
import { type CookieSettings, clearedCookie, clientAddress, cookieFor, queueCookie, readCookie, sessionCookie } from './auth/cookies.js';
import { requestIdOf } from './request-id.js';

/** Name of the header that selects the organization. */
export const ORG_HEADER = 'x-service-org-id';
/** Grafana's name for it (grafana-client's `organization_id`, Grafana's own frontend). */
const GRAFANA_ORG_HEADER = 'x-grafana-org-id';

export interface AuthenticatorDeps {
  services: Pick<Services, 'apiKeys' | 'signIn' | 'sessions'>;
  cookie: CookieSettings;
  /** Told of every refused authentication (metrics), with the method the request tried. */
  onFailure?: (method: AttemptedMethod, error: unknown) => void;
}

/** How a request tries to authenticate, read as the authenticator reads it. */
export type AttemptedMethod = 'basic' | 'api_key' | 'session' | 'other';

function attemptedMethod(request: Request): AttemptedMethod {
  const header = request.headers.get('authorization');
  if (!header) return 'session';
  const [scheme = '', token = ''] = header.trim().split(/\s+/, 2);
  if (scheme.toLowerCase() === 'bearer') return 'api_key';
  if (scheme.toLowerCase() !== 'basic') return 'other';
  return decodeBasic(token)?.login === 'api_key' ? 'api_key' : 'basic';
}

/** Turns a request into its principal. @throws DomainError with a 400, 401 or 429 code. */
export type Authenticator = (request: Request) => Promise<Principal>;

const unauthorized = () => new DomainError('INVALID_CREDENTIALS', 'Unauthorized');

/**
 * Parses an organization header (`name` is shown in the error).
 * @throws DomainError VALIDATION_FAILED (400) when not a positive id.
 */
export function parseOrgHeader(value: string | null, name = 'X-Service-Org-Id'): number | null {
  if (value === null || value.trim() === '') return null;
  const trimmed = value.trim();
  const id = idFromText(trimmed);
  if (id === null) throw new DomainError('VALIDATION_FAILED', `${name} must be a positive organization id`);
  return id;
}

/**
 * The organization a request names: X-Service-Org-Id or its alias X-Grafana-Org-Id, or null.
 * @throws DomainError VALIDATION_FAILED (400) for a bad id, or when both are sent and name
 *   different organizations (which one the caller meant is unknowable).
 */
function requestedOrg(headers: Headers): number | null {
  const own = parseOrgHeader(headers.get(ORG_HEADER));
  const grafana = parseOrgHeader(headers.get(GRAFANA_ORG_HEADER), 'X-Grafana-Org-Id');
  if (own !== null && grafana !== null && own !== grafana) {
    throw new DomainError('VALIDATION_FAILED', 'X-Service-Org-Id and X-Grafana-Org-Id name different organizations');
  }
  return own ?? grafana;
}

function decodeBasic(token: string): { login: string; password: string } | null {
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Builds the authenticator the app calls once per request. */
export function createAuthenticator(deps: AuthenticatorDeps): Authenticator {
  const { apiKeys, signIn, sessions } = deps.services;

  async function withKey(secret: string, orgHeader: number | null): Promise<Principal> {
    const principal = await apiKeys.verify(secret);
    if (orgHeader !== null && orgHeader !== principal.orgId) {
      throw new DomainError('ORG_NOT_ACCESSIBLE', 'API key cannot act in another organization');
    }
    return principal;
  }

  async function withSession(request: Request, token: string, orgHeader: number | null): Promise<Principal> {
    try {
      const { session, rotatedToken } = await sessions.resolve(token);
      if (rotatedToken) queueCookie(request, sessionCookie(cookieFor(request, deps.cookie), rotatedToken));
      return await signIn.principalFor(session.userId, {
        orgHeader,
        preferredOrgId: session.orgId,
        authMethod: 'session',
        sessionId: session.id,
      });
    } catch (error) {
      if (error instanceof DomainError && error.status === 401)
        queueCookie(request, clearedCookie(deps.cookie.name, cookieFor(request, deps.cookie).secure));
      throw error;
    }
  }

  /** The principal of the request's credentials (module comment). */
  async function principalOf(request: Request): Promise<Principal> {
    const orgHeader = requestedOrg(request.headers);
    const header = request.headers.get('authorization');
    if (!header) {
      const token = readCookie(request, deps.cookie.name);
      return token ? withSession(request, token, orgHeader) : ANONYMOUS;
    }
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
      const origin = { clientAddress: clientAddress(request), requestId: requestIdOf(request) };
      // A credential verified moments ago skips argon2 (SignInService.basicPrincipal, verified-passwords.ts).
      return signIn.basicPrincipal(credentials.login, credentials.password, { orgHeader, origin }).catch((error: unknown) => {
        // Basic answers keep their historical text; the code says what happened.
        throw error instanceof DomainError && error.code === 'INVALID_CREDENTIALS' ? unauthorized() : error;
      });
    }
    throw unauthorized();
  }
  // One step: the principal, marked as seen; a refusal told to onFailure with the method tried.
  return async (request) => {
    try {
      const principal = await principalOf(request);
      sessions.markSeen(principal);
      return principal;
    } catch (error) {
      deps.onFailure?.(attemptedMethod(request), error);
      throw error;
    }
  };
}

/**
 * OAuth 2 / OpenID Connect login, Grafana's `generic_oauth`,
 * on the certified `openid-client`: authorization code flow with `state`, PKCE (S256) and
 * `nonce`.
 *
 * Where the claims come from, and why they can be trusted:
 * - With an issuer (AUTH_GENERIC_OAUTH_ISSUER), discovery gives the endpoints and keys, and
 *   openid-client checks the state, the code exchange and the ID token's signature, issuer,
 *   audience, expiry and nonce. The signature is checked against the provider's JWKS
 *   (`enableNonRepudiationChecks`): openid-client skips it by default for tokens fetched from the
 *   token endpoint over TLS (OIDC Core 3.1.3.7), but a wrongly signed ID token has
 *   to be refused, and a provider reached over plain HTTP on loopback has no TLS to rely on. The
 *   ID token is required (OAUTH_ID_TOKEN_MISSING without one); its claims are merged with the
 *   discovered user-info endpoint's, whose `sub` must be the same.
 * - Without an issuer (AUTH_URL and TOKEN_URL), an ID token is read only when verified with the
 *   configured keys (AUTH_GENERIC_OAUTH_JWK_SET_URL, token-answer.ts); the user-info endpoint
 *   (API_URL, Grafana's `api_url`, any JSON user API) adds or gives the claims. Configuration
 *   refuses to start with neither (config-auth.ts).
 * login, email, name and role come from JMESPath expressions, the subject from `sub` (claims.ts).
 *
 * Pending logins (state -> verifier, nonce, where to return) live in memory for PENDING_TTL_MS,
 * used once, so a replayed callback finds nothing; the browser also carries the state in a
 * cookie, so a callback is only accepted from the browser that started it.
 */
import { LRUCache } from 'lru-cache';
import type * as oidc from 'openid-client';
import { DomainError } from '../../kernel/errors.js';
import type { ExternalIdentity } from '../sign-in/service.js';
import { type ClaimPaths, identityOf, oauthFailed } from './claims.js';
import { IdTokenVerifier, idTokenMissing, type TokenAnswer, watchTokenAnswer } from './token-answer.js';

/** Generic OAuth settings (AUTH_GENERIC_OAUTH_*). */
export interface OAuthSettings extends ClaimPaths {
  name: string;
  clientId: string;
  clientSecret: string | undefined;
  scopes: string[];
  issuer: string | undefined;
  authUrl: string | undefined;
  tokenUrl: string | undefined;
  apiUrl: string | undefined;
  /** The provider's JWKS, without an issuer: ID tokens are then required and verified with it. */
  jwkSetUrl: string | undefined;
  allowSignUp: boolean;
  usePkce: boolean;
  /** `<ROOT_URL>login/generic_oauth`. */
  redirectUri: string;
}

/** A completed login: who signed in and the path (`next`, already checked) to return to. */
export interface OAuthLogin {
  identity: ExternalIdentity;
  next: string;
}

/** A login started by the browser has this long to come back. */
const PENDING_TTL_MS = 10 * 60_000;
/** Seconds for each request to the provider. */
const PROVIDER_TIMEOUT_S = 5;

interface Pending {
  verifier: string;
  nonce: string;
  next: string;
}

/**
 * The error of a failed code exchange: IDENTITY_PROVIDER_UNAVAILABLE when the provider could not
 * be reached (network error or timeout), else OAUTH_LOGIN_FAILED with openid-client's reason (its
 * generic "invalid response encountered" wraps the precise check that failed, e.g. "JWT
 * signature verification failed"). Messages only: no stack reaches the redirect.
 */
function explain(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  const e = error as Error & { cause?: unknown };
  if (e.message === 'fetch failed' || e.name === 'AbortError' || e.name === 'TimeoutError') {
    return new DomainError('IDENTITY_PROVIDER_UNAVAILABLE', 'OAuth provider unavailable, please try again');
  }
  const cause = e.cause instanceof Error ? e.cause.message : undefined;
  return oauthFailed(cause ?? e.message);
}

function isLoopbackHttp(url: string): boolean {
  const u = new URL(url);
  return u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
}

/** A JSON object, or a coded refusal naming the endpoint. */
async function jsonObject(response: Response, what: string): Promise<Record<string, unknown>> {
  if (response.status !== 200) throw oauthFailed(`the ${what} answered HTTP ${response.status}`);
  const body: unknown = await response.json().catch(() => null);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw oauthFailed(`the ${what} did not answer a JSON object`);
  return body as Record<string, unknown>;
}

/**
 * openid-client (with jose beneath it), loaded by the first login or discovery: most services
 * configure no OAuth. Every path to the provider starts with serverMetadata(),
 * which loads it, so the methods after it use it as loaded.
 */
let openid: typeof oidc;
let openidLoading: Promise<void> | undefined;
function loadOpenid(): Promise<void> {
  openidLoading ??= import('openid-client').then((module) => {
    openid = module;
  });
  return openidLoading;
}

export class OAuthService {
  private metadata: Promise<oidc.ServerMetadata> | null = null;
  /** Signature keys openid-client fetched, kept from one login's configuration to the next. */
  private jwksCache: ReturnType<typeof oidc.getJwksCache>;
  private readonly pending = new LRUCache<string, Pending>({ max: 10_000, ttl: PENDING_TTL_MS });
  private readonly idTokens: IdTokenVerifier | null;

  constructor(private readonly settings: OAuthSettings | null) {
    const s = settings;
    this.idTokens = s?.jwkSetUrl && !s.issuer ? new IdTokenVerifier(s.jwkSetUrl, s.clientId, PROVIDER_TIMEOUT_S) : null;
  }

  /** The button label (AUTH_GENERIC_OAUTH_NAME), or null when OAuth is off. */
  get name(): string | null {
    return this.settings?.name ?? null;
  }

  /**
   * Starts a login: the provider URL to redirect to and the state to bind to the browser. `next`
   * is where the browser returns after the login, a same-origin path the caller checked
   * (web/next-path.ts safeNextPath).
   * @throws DomainError OAUTH_NOT_ENABLED (404), IDENTITY_PROVIDER_UNAVAILABLE (401).
   */
  async begin(next = '/'): Promise<{ url: string; state: string }> {
    const settings = this.require();
    const config = this.configuration(await this.serverMetadata());
    const state = openid.randomState();
    const nonce = openid.randomNonce();
    const verifier = openid.randomPKCECodeVerifier();
    const params: Record<string, string> = { redirect_uri: settings.redirectUri, scope: settings.scopes.join(' '), state, nonce };
    if (settings.usePkce) {
      params.code_challenge = await openid.calculatePKCECodeChallenge(verifier);
      params.code_challenge_method = 'S256';
    }
    this.pending.set(state, { verifier, nonce, next });
    return { url: openid.buildAuthorizationUrl(config, params).href, state };
  }

  /**
   * Completes a login from the provider's redirect to `callbackUrl`; `browserState` is the state
   * cookie of the browser. Each state is usable once. Claims: module comment.
   * @throws DomainError OAUTH_NOT_ENABLED (404), OAUTH_LOGIN_FAILED (401: provider error, wrong
   *   or replayed state, bad code, invalid ID token or nonce, no subject), OAUTH_ID_TOKEN_MISSING
   *   (401), IDENTITY_PROVIDER_UNAVAILABLE (401).
   */
  async finish(callbackUrl: URL, browserState: string | undefined): Promise<OAuthLogin> {
    const settings = this.require();
    const error = callbackUrl.searchParams.get('error');
    if (error) throw oauthFailed(callbackUrl.searchParams.get('error_description') ?? error);
    const state = callbackUrl.searchParams.get('state') ?? '';
    const pending = this.pending.get(state);
    this.pending.delete(state);
    if (!pending || !browserState || browserState !== state) throw oauthFailed('invalid or expired state, please try again');
    const meta = await this.serverMetadata();
    const answer: TokenAnswer = { answered: false, idToken: undefined, hadIdToken: false };
    const config = this.configuration(meta, answer);
    const redirect = new URL(settings.redirectUri);
    const current = new URL(`${redirect.origin}${redirect.pathname}${callbackUrl.search}`);
    try {
      const discovered = settings.issuer !== undefined;
      const tokens = await openid
        .authorizationCodeGrant(config, current, {
          expectedState: state,
          ...(discovered && { expectedNonce: pending.nonce, idTokenExpected: true }),
          ...(settings.usePkce && { pkceCodeVerifier: pending.verifier }),
        })
        .catch((e: unknown) => {
          throw answer.answered && !answer.hadIdToken && discovered ? idTokenMissing() : e;
        })
        .finally(() => this.keepKeys(config));
      const claims = discovered
        ? await this.discoveredClaims(config, tokens)
        : await this.undiscoveredClaims(config, tokens, answer, pending);
      return { identity: identityOf(claims, settings), next: pending.next };
    } catch (e) {
      throw explain(e);
    }
  }

  /** Discovery summary for diagnostics (CLI). @throws DomainError 404, 401 when unreachable. */
  async describe(): Promise<Record<string, string | undefined>> {
    const settings = this.require();
    const meta = await this.serverMetadata();
    return {
      name: settings.name,
      issuer: meta.issuer,
      authorizationEndpoint: meta.authorization_endpoint,
      tokenEndpoint: meta.token_endpoint,
      userinfoEndpoint: meta.userinfo_endpoint,
      jwksUri: meta.jwks_uri ?? settings.jwkSetUrl,
      redirectUri: settings.redirectUri,
    };
  }

  /** With discovery: the verified ID token's claims and the user-info endpoint's (same `sub`). */
  private async discoveredClaims(
    config: oidc.Configuration,
    tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers,
  ): Promise<Record<string, unknown>> {
    const claims: Record<string, unknown> = { ...(tokens.claims() ?? {}) };
    if (!config.serverMetadata().userinfo_endpoint) return claims;
    return { ...claims, ...(await openid.fetchUserInfo(config, tokens.access_token, String(claims.sub))), sub: claims.sub };
  }

  /** Without discovery: the ID token only when verified with the configured keys, then API_URL's answer. */
  private async undiscoveredClaims(
    config: oidc.Configuration,
    tokens: oidc.TokenEndpointResponse,
    answer: TokenAnswer,
    pending: Pending,
  ): Promise<Record<string, unknown>> {
    const s = this.require();
    let claims: Record<string, unknown> = {};
    if (this.idTokens) {
      if (!answer.idToken) throw idTokenMissing();
      claims = await this.idTokens.verify(answer.idToken, pending.nonce);
    }
    if (!s.apiUrl) return claims;
    const response = await openid.fetchProtectedResource(config, tokens.access_token, new URL(s.apiUrl), 'GET');
    const info = await jsonObject(response, 'user-info endpoint');
    // A verified ID token names the person: user info about someone else is refused.
    if (claims.sub !== undefined && info.sub !== undefined && info.sub !== claims.sub) {
      throw oauthFailed('the user-info endpoint answered for another subject');
    }
    return { ...info, ...claims };
  }

  private require(): OAuthSettings {
    if (!this.settings) throw new DomainError('OAUTH_NOT_ENABLED', 'OAuth login is not enabled');
    return this.settings;
  }

  /** The provider's metadata: discovered once (again after a failure), or built from the settings. */
  private serverMetadata(): Promise<oidc.ServerMetadata> {
    const s = this.require();
    this.metadata ??= loadOpenid()
      .then(() => this.discover(s))
      .catch((error: unknown) => {
        this.metadata = null; // try again on the next login
        throw new DomainError('IDENTITY_PROVIDER_UNAVAILABLE', `OAuth provider unavailable: ${(error as Error).message}`);
      });
    return this.metadata;
  }

  private async discover(s: OAuthSettings): Promise<oidc.ServerMetadata> {
    if (!s.issuer) {
      return {
        issuer: new URL(s.authUrl as string).origin,
        authorization_endpoint: s.authUrl as string,
        token_endpoint: s.tokenUrl as string,
      };
    }
    const execute = isLoopbackHttp(s.issuer) ? [openid.allowInsecureRequests] : [];
    const config = await openid.discovery(new URL(s.issuer), s.clientId, undefined, undefined, { execute, timeout: PROVIDER_TIMEOUT_S });
    return config.serverMetadata();
  }

  /**
   * The client of one login on `meta`: a configuration per login, so the token answer it watches
   * (`answer`, token-answer.ts) is this login's; the signature keys carry over between logins.
   */
  private configuration(meta: oidc.ServerMetadata, answer?: TokenAnswer): oidc.Configuration {
    const s = this.require();
    const auth = s.clientSecret ? openid.ClientSecretPost(s.clientSecret) : openid.None();
    const config = new openid.Configuration(meta, s.clientId, undefined, auth);
    if (isLoopbackHttp(meta.token_endpoint as string)) openid.allowInsecureRequests(config);
    config.timeout = PROVIDER_TIMEOUT_S;
    if (s.issuer) {
      openid.enableNonRepudiationChecks(config);
      if (this.jwksCache) openid.setJwksCache(config, this.jwksCache);
    }
    if (answer) config[openid.customFetch] = watchTokenAnswer(meta.token_endpoint as string, answer, !s.issuer);
    return config;
  }

  /** Keeps the keys one login fetched for the next (called after a code exchange). */
  private keepKeys(config: oidc.Configuration): void {
    this.jwksCache = openid.getJwksCache(config) ?? this.jwksCache;
  }
}

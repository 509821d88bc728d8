/**
 * What the provider's token endpoint answered, seen before openid-client reads it (its
 * `customFetch` hook), and the ID token checks of a provider without discovery.
 *
 * - With an issuer, openid-client requires and verifies the ID token; when the answer has none,
 *   its error names an internal property, so the caller answers OAUTH_ID_TOKEN_MISSING instead,
 *   knowing from here that none came.
 * - Without an issuer nothing tells openid-client which issuer or keys to trust, and it would
 *   read an ID token it cannot verify. So the ID token is taken out of the answer here; it is
 *   used only when verified with the configured keys (AUTH_GENERIC_OAUTH_JWK_SET_URL: signature,
 *   audience = the client id, expiry, nonce), and ignored otherwise (the claims then come from the
 *   user-info endpoint).
 */
import type { createRemoteJWKSet } from 'jose';
import type * as oidc from 'openid-client';
import { DomainError } from '../../kernel/errors.js';
import { oauthFailed } from './claims.js';

/** The token endpoint's answer to one code exchange, as far as the ID token goes. */
export interface TokenAnswer {
  /** True once the endpoint answered 200 with a JSON object. */
  answered: boolean;
  /** The ID token, when the answer had one and `takeIdToken` removed it. */
  idToken: string | undefined;
  /** Whether the answer held an ID token. */
  hadIdToken: boolean;
}

/** The one answer for a token answer without the ID token that was required. */
export const idTokenMissing = () =>
  new DomainError('OAUTH_ID_TOKEN_MISSING', 'OAuth login failed: the provider returned no ID token (id_token), which this setup requires');

/**
 * A fetch for `config[oidc.customFetch]` that records the token endpoint's answer in `answer`
 * and, with `takeIdToken`, removes the ID token from what openid-client reads (module comment).
 * Other requests pass through untouched.
 */
export function watchTokenAnswer(tokenEndpoint: string, answer: TokenAnswer, takeIdToken: boolean): oidc.CustomFetch {
  return async (url, options) => {
    const response = await fetch(url, options as RequestInit);
    if (url !== tokenEndpoint || response.status !== 200) return response;
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
    const headers = new Headers(response.headers);
    headers.delete('content-length'); // the text is already decoded, and may shrink
    headers.delete('content-encoding');
    const rebuilt = (content: string) => new Response(content, { status: response.status, headers });
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return rebuilt(text);
    const json = body as Record<string, unknown>;
    answer.answered = true;
    answer.hadIdToken = typeof json.id_token === 'string';
    if (!takeIdToken || !answer.hadIdToken) return rebuilt(text);
    answer.idToken = json.id_token as string;
    delete json.id_token;
    return rebuilt(JSON.stringify(json));
  };
}

/** Asymmetric algorithms only: a key set never holds the client's shared secret. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** The ID token verifier of a provider without discovery: its key set, fetched and cached by jose. */
export class IdTokenVerifier {
  /** The key set, made by the first verification: jose is loaded only when a login needs it. */
  private keys: ReturnType<typeof createRemoteJWKSet> | undefined;

  constructor(
    private readonly jwkSetUrl: string,
    private readonly clientId: string,
    private readonly timeoutSeconds: number,
  ) {}

  /**
   * The claims of `idToken` once its signature (a key of the set), audience (the client id),
   * expiry (30 s tolerance, as openid-client) and `nonce` hold.
   * @throws DomainError OAUTH_LOGIN_FAILED (401) saying which check failed,
   *   IDENTITY_PROVIDER_UNAVAILABLE (401) when the keys cannot be fetched.
   */
  async verify(idToken: string, nonce: string): Promise<Record<string, unknown>> {
    const { createRemoteJWKSet, errors: joseErrors, jwtVerify } = await import('jose');
    this.keys ??= createRemoteJWKSet(new URL(this.jwkSetUrl), { timeoutDuration: this.timeoutSeconds * 1000 });
    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await jwtVerify(idToken, this.keys, {
        audience: this.clientId,
        algorithms: ALGORITHMS,
        clockTolerance: 30,
        requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWKSTimeout || (error as Error).message === 'fetch failed') {
        throw new DomainError('IDENTITY_PROVIDER_UNAVAILABLE', 'OAuth provider unavailable, please try again');
      }
      throw oauthFailed(`the ID token is not valid: ${error instanceof joseErrors.JOSEError ? error.message : 'unreadable'}`);
    }
    if (claims.nonce !== nonce) throw oauthFailed('the ID token was not issued for this login (nonce)');
    return claims;
  }
}

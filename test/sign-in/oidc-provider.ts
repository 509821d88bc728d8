/**
 * A real OpenID provider for the tests (`oidc-provider`, certified), on 127.0.0.1 and a free
 * port, with one confidential client, an RS256 signing key the test knows, and accounts the test
 * chooses. `browse` plays a fresh browser (no provider session left from an earlier login, so
 * the provider always asks who logs in): it follows redirects with a cookie jar and completes
 * the provider's interaction by logging in `account.next` and granting the requested scopes.
 *
 * The issuer's address is a small real HTTP proxy in front of the provider: it passes everything
 * through, except that it can rewrite the `id_token` of token-endpoint answers in transit
 * (`idTokenFilter`, with `resign`; or remove it) or drop token requests (`tokenEndpointDown`), so
 * the service meets a forged, expired or missing ID token, or a provider gone mid-login, over real
 * HTTP.
 */
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export const CLIENT = { id: 'portcullis', secret: 'portcullis-client-secret' };
export const ROOT_URL = 'http://portcullis.test/';

export interface TestProvider {
  issuer: string;
  /** Claims of the account the next interaction logs in. */
  account: { next: Record<string, unknown> & { sub: string } };
  /** Follows `url` through the provider until it redirects outside it; returns that location. */
  browse(url: string): Promise<URL>;
  /** Rewrites the `id_token` of token-endpoint answers on their way to the service (null from it: removed); null: untouched. */
  idTokenFilter: ((idToken: string) => string | null) | null;
  /** When true the proxy drops token-endpoint requests (connection reset): the provider went down. */
  tokenEndpointDown: boolean;
  /**
   * `idToken` with its claims changed by `change`, signed RS256 with `key` (default: the
   * provider's own key, so only the changed claims are wrong) and the same `kid`.
   */
  resign(idToken: string, change: (claims: Record<string, unknown>) => void, key?: KeyObject): string;
  close(): Promise<void>;
}

const KID = 'test-signing-key';

/** A fresh RSA private key (2048 bits), e.g. one the service does not trust. */
export function newSigningKey(): KeyObject {
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

export async function startProvider(): Promise<TestProvider> {
  const account: TestProvider['account'] = { next: { sub: 'nobody' } };
  const accounts = new Map<string, Record<string, unknown>>();
  const signingKey = newSigningKey();
  const server: Server = createServer();
  const providerPort = await listen(server);
  const proxy: Server = createServer();
  const issuer = `http://127.0.0.1:${await listen(proxy)}`;
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...signingKey.export({ format: 'jwk' }), kid: KID, alg: 'RS256', use: 'sig' }] },
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        redirect_uris: [`${ROOT_URL}login/generic_oauth`],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username', 'groups', 'role'] },
    conformIdTokenClaims: false,
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub, ...(accounts.get(sub) ?? {}) }) }),
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
  });
  provider.use(async (ctx, next) => {
    if (!ctx.path.startsWith('/interaction/')) return next();
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const { sub } = account.next;
    accounts.set(sub, account.next);
    const grant = new provider.Grant({ accountId: sub, clientId: CLIENT.id });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    await provider.interactionFinished(
      ctx.req,
      ctx.res,
      { login: { accountId: sub }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  });
  server.on('request', provider.callback());

  const control = { idTokenFilter: null as TestProvider['idTokenFilter'], tokenEndpointDown: false };
  proxy.on('request', (req, res) => {
    const isToken = req.method === 'POST' && req.url === '/token';
    if (isToken && control.tokenEndpointDown) {
      req.socket.destroy();
      return;
    }
    const upstream = request(
      { host: '127.0.0.1', port: providerPort, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const filter = isToken && answer.statusCode === 200 ? control.idTokenFilter : null;
        if (!filter) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        void readAll(answer).then((bytes) => {
          const body = JSON.parse(bytes.toString('utf8')) as { id_token?: string };
          if (typeof body.id_token === 'string') {
            const rewritten = filter(body.id_token);
            if (rewritten === null) delete body.id_token;
            else body.id_token = rewritten;
          }
          const text = JSON.stringify(body);
          const { 'transfer-encoding': _chunked, ...headers } = answer.headers;
          res.writeHead(200, { ...headers, 'content-length': String(Buffer.byteLength(text)) });
          res.end(text);
        });
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });

  function resign(idToken: string, change: (claims: Record<string, unknown>) => void, key: KeyObject = signingKey): string {
    const [header, payload] = idToken.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    change(claims);
    const input = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
  }

  async function browse(start: string): Promise<URL> {
    const jar = new Map<string, string>();
    accounts.set(account.next.sub, account.next);
    let url = new URL(start);
    for (let hops = 0; hops < 10; hops++) {
      if (url.origin !== issuer) return url;
      const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const eq = (pair as string).indexOf('=');
        jar.set((pair as string).slice(0, eq), (pair as string).slice(eq + 1));
      }
      const location = res.headers.get('location');
      if (!location) throw new Error(`provider answered ${res.status} at ${url.pathname}: ${(await res.text()).slice(0, 300)}`);
      url = new URL(location, url);
    }
    throw new Error('too many redirects');
  }
  return {
    issuer,
    account,
    browse,
    get idTokenFilter() {
      return control.idTokenFilter;
    },
    set idTokenFilter(filter) {
      control.idTokenFilter = filter;
    },
    get tokenEndpointDown() {
      return control.tokenEndpointDown;
    },
    set tokenEndpointDown(down) {
      control.tokenEndpointDown = down;
    },
    resign,
    close: async () => {
      proxy.closeAllConnections();
      server.closeAllConnections();
      await Promise.all([
        new Promise<void>((resolve) => proxy.close(() => resolve())),
        new Promise<void>((resolve) => server.close(() => resolve())),
      ]);
    },
  };
}

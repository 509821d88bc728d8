/**
 * A real OpenID provider for the tests (`oidc-provider`, certified), on 127.0.0.1 and a free
 * port, with one confidential client and accounts the test chooses. `browse` plays the browser:
 * it follows redirects with a cookie jar per host and completes the provider's interaction by
 * logging in `account.next` and granting the requested scopes.
 */
import { createServer, type Server } from 'node:http';
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
  close(): Promise<void>;
}

export async function startProvider(): Promise<TestProvider> {
  const account: TestProvider['account'] = { next: { sub: 'nobody' } };
  const accounts = new Map<string, Record<string, unknown>>();
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        redirect_uris: [`${ROOT_URL}login/generic_oauth`],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    claims: { openid: ['sub'], email: ['email'], profile: ['name', 'preferred_username', 'groups', 'role'] },
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

  const jar = new Map<string, string>();
  async function browse(start: string): Promise<URL> {
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
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

import { describe, expect, it } from 'vitest';
import { ANONYMOUS, type Principal } from '../kernel/principal.js';
import { graphiqlOptions, renderGraphiQL } from './use-graphiql-auth.js';

/** Counts the authentications graphiqlOptions asks for; every caller is anonymous here. */
function optionsFor(headers: Record<string, string>) {
  let authentications = 0;
  const auth = async (): Promise<Principal> => {
    authentications++;
    return ANONYMOUS;
  };
  const request = new Request('http://test/graphql', { headers: { accept: 'text/html', ...headers } });
  return { options: graphiqlOptions(auth)(request), authentications: () => authentications };
}

describe('GraphiQL rendered only for requests with credentials', () => {
  it('a request without credentials gets a placeholder: no bundle loaded, nothing authenticated', async () => {
    const { options, authentications } = optionsFor({});
    const html = await renderGraphiQL(await options);
    expect(html.length).toBeLessThan(100);
    expect(html).not.toContain('viewer');
    expect(authentications()).toBe(0);
  });

  it.each([
    ['an Authorization header', { authorization: 'Basic YWRtaW46eA==' }],
    ['a cookie', { cookie: 'grafana_session=abc' }],
  ])('a request with %s gets the page with its starting query', async (_name, headers) => {
    const { options, authentications } = optionsFor(headers);
    const html = await renderGraphiQL(await options);
    expect(html).toContain('portcullis GraphiQL');
    expect(html).toMatch(/<script src="\/graphql\/assets\/graphiql-[\w-]+\.js">/);
    expect(html).toContain('viewer');
    expect(authentications()).toBe(1);
  });
});

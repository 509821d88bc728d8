import { describe, expect, it } from 'vitest';
import { graphiqlFor, renderGraphiQL } from './use-graphiql-auth.js';

const options = { title: 'portcullis GraphiQL', defaultQuery: '{ viewer { login } }' };
const page = (headers: Record<string, string>) =>
  graphiqlFor(options)(new Request('http://test/graphql', { headers: { accept: 'text/html', ...headers } }));

describe('GraphiQL rendered only for requests with credentials', () => {
  it('a request without credentials gets a placeholder: the bundle is not loaded for it', async () => {
    const html = await renderGraphiQL(page({}));
    expect(html.length).toBeLessThan(100);
    expect(html).not.toContain('defaultQuery');
  });

  it.each([
    ['an Authorization header', { authorization: 'Basic YWRtaW46eA==' }],
    ['a cookie', { cookie: 'grafana_session=abc' }],
  ])('a request with %s gets the page with its options', async (_name, headers) => {
    const html = await renderGraphiQL(page(headers));
    expect(html.length).toBeGreaterThan(100_000);
    expect(html).toContain('portcullis GraphiQL');
    expect(html).toContain('viewer { login }');
  });
});

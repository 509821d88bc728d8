/**
 * The cross-site rule of the doors outside GraphQL (src/http/body.ts refuseCrossSite), case by
 * case: which Origin / Sec-Fetch-Site pairs may send a write, with the trusted origins that
 * ROOT_URL and CORS_ALLOWED_ORIGINS add. The doors themselves are exercised in doors.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { refuseCrossSite, trustedOrigins } from '../../src/http/body.js';

const trusted = trustedOrigins({ rootUrl: 'https://grafana.example.com/sub/', allowedOrigins: ['https://console.example'] });

/** True when a POST to `url` with these headers may go on. */
function allowed(headers: Record<string, string>, url = 'http://svc.internal:3000/api/admin/users/2/disable'): boolean {
  try {
    refuseCrossSite(new Request(url, { method: 'POST', headers }), trusted);
    return true;
  } catch (error) {
    expect(error).toMatchObject({ code: 'ACCESS_DENIED', message: expect.stringMatching(/^origin not allowed/) });
    return false;
  }
}

describe('refuseCrossSite', () => {
  it.each([
    ['an API client: no Origin, no Sec-Fetch-Site', {}],
    ['the address bar or a bookmark', { 'sec-fetch-site': 'none' }],
    ['a page of the service itself', { origin: 'http://svc.internal:3000', 'sec-fetch-site': 'same-origin' }],
    ['the same host behind a TLS proxy (scheme differs, no fetch metadata)', { origin: 'https://svc.internal:3000' }],
    [
      'ROOT_URL’s origin, which the proxy forwards under another Host',
      { origin: 'https://grafana.example.com', 'sec-fetch-site': 'cross-site' },
    ],
    ['an origin in CORS_ALLOWED_ORIGINS', { origin: 'https://console.example', 'sec-fetch-site': 'cross-site' }],
  ])('lets through %s', (_label, headers) => {
    expect(allowed(headers)).toBe(true);
  });

  it.each([
    ['a foreign Origin', { origin: 'https://evil.example' }],
    ['a foreign Origin the browser calls cross-site', { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }],
    ['another port of the same host', { origin: 'http://svc.internal:8080' }],
    ['a sibling subdomain (same-site)', { origin: 'https://evil.example.com', 'sec-fetch-site': 'same-site' }],
    ['our own host named by a page the browser calls cross-site', { origin: 'http://svc.internal:3000', 'sec-fetch-site': 'cross-site' }],
    ['an opaque origin (sandboxed frame)', { origin: 'null' }],
    ['an unparsable Origin', { origin: '::::' }],
    ['a cross-site navigation without Origin', { 'sec-fetch-site': 'cross-site' }],
    ['a same-site navigation without Origin', { 'sec-fetch-site': 'same-site' }],
    ['a prefix of an allowed origin', { origin: 'https://console.example.evil.test' }],
  ])('refuses %s', (_label, headers) => {
    expect(allowed(headers)).toBe(false);
  });

  it('trusts nothing more than its own host when neither ROOT_URL nor CORS_ALLOWED_ORIGINS is set', () => {
    const none = trustedOrigins({});
    expect(none.size).toBe(0);
    const request = new Request('http://svc.internal:3000/login', { method: 'POST', headers: { origin: 'https://console.example' } });
    expect(() => refuseCrossSite(request, none)).toThrow(/^origin not allowed/);
  });
});

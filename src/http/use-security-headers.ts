/**
 * Security headers on every answer of both doors: `nosniff`, no framing
 * (`X-Frame-Options: DENY` and CSP `frame-ancestors 'none'`), no referrer, and
 * `Cache-Control: no-store`, since almost every answer carries a key, a session or permissions.
 * JSON answers get `default-src 'none'`; the GraphiQL page gets a policy that allows exactly its
 * inline scripts (by SHA-256, computed from the page the renderer produced) and scripts of this
 * origin (its files), its inline styles, data: images and fonts, workers of this origin (the
 * editor's) and requests to this origin. The web console's pages get CONSOLE_POLICY; its
 * content-hashed assets and GraphiQL's get a year of caching. Every answer also varies by
 * `Accept-Encoding` (added to a `Vary` already set, as CORS's `Origin`): the same URL may be
 * answered compressed to another client (compression.ts), so no cache may serve one for the other.
 */
import { createHash } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';

const COMMON: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** `Accept-Encoding` among a `Vary` header's names (case-insensitive, RFC 9110 12.5.5). */
const ACCEPT_ENCODING = /(^|,)\s*accept-encoding\s*(,|$)/i;

const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * CSP of the web console's pages: scripts, styles, images and requests from this
 * origin only; no inline script or style, no eval, no framing, no form posts (its forms send JSON
 * through fetch).
 */
export const CONSOLE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** Content-hashed console assets never change under their name: cached a year by any cache. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** A page's own policy, or `asset` for a content-addressed file. */
const marked = new WeakMap<Request, { policy: string } | 'asset'>();

/**
 * Marks the answer to `request` as a page of ours (`policy`, CONSOLE_POLICY by default, instead
 * of a policy computed from inline scripts, still `no-store`) or as a file named by its version
 * or content (`asset`: cached a year when 200); called by the routes that serve the console
 * (console-routes.ts), GraphiQL's files (graphiql-assets.ts) and the API reference
 * (openapi-routes.ts).
 */
export function markConsoleAnswer(request: Request, kind: 'page' | 'asset', policy = CONSOLE_POLICY): void {
  marked.set(request, kind === 'page' ? { policy } : 'asset');
}

/**
 * CSP of an HTML page (GraphiQL's) whose inline scripts are `scripts` (their text, exactly as
 * served): those by hash, scripts of this origin (GraphiQL's files, graphiql-assets.ts) by URL.
 */
export function graphiqlPolicy(scripts: readonly string[]): string {
  const hashes = scripts.map((s) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`);
  return [
    "default-src 'none'",
    `script-src 'self' ${hashes.join(' ')}`.trimEnd(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self'",
    "manifest-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** Text of every inline `<script>` of `html` (a script with `src` is a file, allowed by origin). */
function inlineScripts(html: string): string[] {
  return [...html.matchAll(/<script(\s[^>]*)?>([\s\S]*?)<\/script>/g)].filter((m) => !/\ssrc=/.test(m[1] ?? '')).map((m) => m[2] ?? '');
}

/** Yoga plugin: the headers above on every response, the page policy on HTML ones. */
export function useSecurityHeaders(): Plugin {
  // The GraphiQL page is the same for every request: hash it once per distinct page.
  const pagePolicies = new Map<string, string>();
  const common = Object.entries(COMMON);
  /** An HTML page (GraphiQL): its policy names the hashes of its inline scripts. */
  async function pagePolicy(response: Response, setResponse: (response: Response) => void): Promise<void> {
    const html = await response.text();
    const key = createHash('sha256').update(html).digest('base64');
    let policy = pagePolicies.get(key);
    if (!policy) {
      policy = graphiqlPolicy(inlineScripts(html));
      if (pagePolicies.size > 16) pagePolicies.clear();
      pagePolicies.set(key, policy);
    }
    const headers = new Headers(response.headers);
    headers.set('content-security-policy', policy);
    headers.delete('content-length');
    setResponse(new Response(html, { status: response.status, statusText: response.statusText, headers }));
  }
  return {
    // Not async: only an HTML page has a body to read; every API answer passes without a promise.
    onResponse({ request, response, setResponse }) {
      for (const [name, value] of common) response.headers.set(name, value);
      const vary = response.headers.get('vary');
      if (vary === null) response.headers.set('vary', 'Accept-Encoding');
      else if (!ACCEPT_ENCODING.test(vary)) response.headers.set('vary', `${vary}, Accept-Encoding`);
      const mark = marked.get(request);
      if (mark !== undefined && mark !== 'asset') {
        response.headers.set('content-security-policy', mark.policy);
        return;
      }
      if (mark === 'asset' && response.status === 200) response.headers.set('cache-control', IMMUTABLE);
      if (!(response.headers.get('content-type') ?? '').startsWith('text/html')) {
        response.headers.set('content-security-policy', API_CSP);
        return;
      }
      return pagePolicy(response, setResponse);
    },
  };
}

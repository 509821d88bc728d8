/**
 * GraphiQL is a small page and content-addressed files: the page (`no-store`, like every answer
 * that names a principal) names GraphiQL's script, stylesheet and editor workers by URLs that
 * carry the SHA-256 of their content, and those files answer without credentials with a year of
 * caching, so a browser downloads the 9 MB bundle once per version instead of at every opening.
 * The page's policy allows its inline scripts by hash and the files by origin.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { app, useSeededApp } from '../support/scene.js';

useSeededApp();

const IMMUTABLE = 'public, max-age=31536000, immutable';
const HASHED = /^\/graphql\/assets\/[a-z-]+-([A-Za-z0-9_-]{16})\.(js|css|ico)$/;

/** The GraphiQL page as the admin gets it: its answer, its HTML, and the file paths it names. */
async function graphiqlPage() {
  const res = await app.request('/graphql', { headers: { accept: 'text/html' } });
  expect(res.status).toBe(200);
  const html = await res.text();
  const paths = [...new Set(html.match(/\/graphql\/assets\/[^"'\s]+/g) ?? [])];
  return { res, html, paths };
}

describe("GraphiQL's files", () => {
  it('the page is small, not cached, and names its script, stylesheet, three workers and icon by hashed URLs', async () => {
    const { res, html, paths } = await graphiqlPage();
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(new TextEncoder().encode(html).byteLength).toBeLessThan(16 * 1024);
    expect(paths).toHaveLength(6);
    for (const path of paths) expect(path).toMatch(HASHED);
    expect(html).toMatch(/<link rel="stylesheet" href="\/graphql\/assets\/graphiql-[^"]+\.css">/);
    expect(html).toMatch(/<script src="\/graphql\/assets\/graphiql-[^"]+\.js"><\/script>/);
    for (const worker of ['editor-worker', 'json-worker', 'graphql-worker']) expect(html).toContain(`/graphql/assets/${worker}-`);
  });

  it('answer without credentials, under their content hash, cached a year, with the security headers', async () => {
    const { paths } = await graphiqlPage();
    let bytes = 0;
    for (const path of paths) {
      const res = await app.request(path, { auth: null });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('cache-control'), path).toBe(IMMUTABLE);
      const type = { css: /^text\/css/, js: /^text\/javascript/, ico: /^image\/x-icon/ }[HASHED.exec(path)?.[2] as 'css' | 'js' | 'ico'];
      expect(res.headers.get('content-type'), path).toMatch(type);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      const body = new Uint8Array(await res.arrayBuffer());
      bytes += body.byteLength;
      const hash = createHash('sha256').update(body).digest('base64url').slice(0, 16);
      expect(HASHED.exec(path)?.[1], path).toBe(hash);
    }
    expect(bytes).toBeGreaterThan(1_000_000); // the bundle itself, no longer in the page
    const unknown = await app.request('/graphql/assets/graphiql-AAAAAAAAAAAAAAAA.js', { auth: null });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('cache-control')).toBe('no-store');
  });

  it("the page's policy allows its inline scripts by hash and its files and workers by origin, nothing else", async () => {
    const { res, html } = await graphiqlPage();
    const policy = res.headers.get('content-security-policy') ?? '';
    const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '');
    expect(inline).toHaveLength(2);
    const hashes = inline.map((s) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`);
    expect(policy).toContain(`script-src 'self' ${hashes.join(' ')};`);
    expect(policy).toContain("worker-src 'self';");
    expect(policy).not.toMatch(/unsafe-eval|blob:/);
  });
});

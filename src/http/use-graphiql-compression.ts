/**
 * GraphiQL's files compressed once, not on every download: its script is about 9 MB of text and
 * the `compression` middleware (compression.ts) brotli'd it anew on every download, 110-130 ms of
 * CPU each. This plugin answers GraphiQL's files (use-graphiql-assets.ts) with a copy compressed
 * once per (content, encoding) and kept in a small cache keyed by the content's SHA-256, the way
 * the web console sends its build-time precompressed assets (use-console.ts). The choice of
 * encoding is the console's (accept-encoding.ts: q-values, `q=0` refuses, brotli first on a tie),
 * which is the middleware's rule; an answer without an acceptable encoding passes unchanged (the
 * middleware then adds its `Vary`). The middleware leaves an answer that already has a
 * `Content-Encoding` alone, so nothing is compressed twice. The page itself is small and differs
 * by its greeting: the middleware compresses it.
 *
 * Runs after the security headers: the headers they set are kept as they are; only the body,
 * `Content-Encoding`, `Content-Length` and `Vary` change. The decoded body is the file byte for
 * byte.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'graphql-yoga';
import { negotiateEncoding } from './accept-encoding.js';
import { pathOf } from './url-path.js';
import { GRAPHIQL_ASSET_PREFIX } from './use-graphiql-assets.js';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Most compressed copies kept (files x encodings: five files x two encodings fill ten, and a
 * library upgrade's new files push the old ones out); the oldest goes first. At most a few tens
 * of MB.
 */
export const MAX_CACHED_COPIES = 12;

/** Counters for tests and diagnostics: compressions done, answers served from the cache. */
export interface AssetCompressionStats {
  compressed: number;
  reused: number;
}

/** The counters of every plugin made without its own (the app's): per process. */
export const assetCompressionStats: AssetCompressionStats = { compressed: 0, reused: 0 };

/**
 * One compression per encoding: brotli at quality 5 (done once per file, so a notch above the
 * middleware's 4 costs nothing per request), gzip at level 6 (the middleware's). Both run in
 * libuv's thread pool.
 */
function compress(body: Uint8Array, encoding: 'br' | 'gzip'): Promise<Buffer> {
  if (encoding === 'gzip') return gzipAsync(body, { level: 6 });
  return brotli(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 5,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
    },
  });
}

/** `vary` with `Accept-Encoding` added unless it is already named. */
function withVary(vary: string | null): string {
  if (!vary) return 'Accept-Encoding';
  return /(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary) ? vary : `${vary}, Accept-Encoding`;
}

/**
 * Yoga plugin: GraphiQL's files (GET under GRAPHIQL_ASSET_PREFIX, 200) answered from the cache of
 * compressed copies. `stats`, when given, counts compressions and reuses (tests assert that a
 * second download compresses nothing). Place it after the security headers plugin.
 */
export function useGraphiQLCompression(stats: AssetCompressionStats = assetCompressionStats): Plugin {
  // Promises, so two loads at once share one compression; a failed one is dropped, not kept.
  const cache = new Map<string, Promise<Buffer>>();
  function compressed(body: Uint8Array, encoding: 'br' | 'gzip'): Promise<Buffer> {
    const key = `${encoding}:${createHash('sha256').update(body).digest('base64')}`;
    const hit = cache.get(key);
    if (hit) {
      stats.reused++;
      // Most recently used last: the oldest entry is the first evicted.
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    stats.compressed++;
    const pending = compress(body, encoding);
    pending.catch(() => cache.delete(key));
    if (cache.size >= MAX_CACHED_COPIES) cache.delete(cache.keys().next().value as string);
    cache.set(key, pending);
    return pending;
  }
  return {
    onResponse({ request, response, setResponse }) {
      if (request.method !== 'GET' || response.status !== 200 || response.headers.has('content-encoding')) return;
      if (!pathOf(request.url).startsWith(GRAPHIQL_ASSET_PREFIX)) return;
      const encoding = negotiateEncoding(request.headers.get('accept-encoding'));
      if (!encoding) return;
      return response.arrayBuffer().then(async (buffer) => {
        const file = new Uint8Array(buffer);
        const headers = new Headers(response.headers);
        const init = { status: response.status, statusText: response.statusText, headers };
        let body: Buffer;
        try {
          body = await compressed(file, encoding);
        } catch {
          // The body was read: answer the file as it is (the middleware may still compress it).
          setResponse(new Response(file, init));
          return;
        }
        headers.set('content-encoding', encoding);
        headers.set('content-length', String(body.byteLength));
        headers.set('vary', withVary(headers.get('vary')));
        // zlib answers Buffers over plain ArrayBuffers (never shared memory), which Response takes.
        setResponse(new Response(body as Uint8Array<ArrayBuffer>, init));
      });
    },
  };
}

/**
 * Response compression (issue #12: the GraphiQL page is 9 MB uncompressed): brotli or gzip from
 * node:zlib, as the request's `Accept-Encoding` allows (q-values honoured, `q=0` refuses; brotli
 * preferred at equal weight), for text-like answers (JSON, GraphQL responses, HTML, JavaScript,
 * CSS, SVG, Prometheus text) of at least MIN_BYTES. Every such answer says `Vary:
 * Accept-Encoding`, compressed or not, so no cache serves one encoding to a client that asked for
 * another. Answers already encoded (the web console's precompressed assets), streams
 * (`text/event-stream`, `multipart/*`), HEAD, 204 and 304 are left alone.
 *
 * Compression runs in libuv's thread pool (async zlib), not on the event loop. Large bodies (the
 * GraphiQL page: the same bytes for every request) are compressed once per encoding and kept in a
 * small cache keyed by their SHA-256.
 *
 * List it after the plugins that rewrite bodies (security headers read the HTML page) and before
 * the request log, which then records the answer as sent.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'graphql-yoga';

/** Bodies shorter than this are sent as they are: compressing them saves less than it costs. */
export const MIN_BYTES = 1024;
/** Bodies at least this large are cached compressed (only a few distinct ones exist: GraphiQL). */
const CACHE_FROM_BYTES = 256 * 1024;
const CACHE_ENTRIES = 8;

const COMPRESSIBLE = /^(text\/(?!event-stream)|application\/(json|graphql-response\+json|javascript|xml|problem\+json)|image\/svg\+xml)/i;

type Encoding = 'br' | 'gzip';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

function compress(body: Buffer, encoding: Encoding): Promise<Buffer> {
  if (encoding === 'gzip') return gzipAsync(body, { level: 6 });
  // Quality 5: most of brotli's gain at a fraction of the time of its maximum (11).
  return brotli(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 5,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    },
  });
}

/**
 * The encoding to answer `accept` (an Accept-Encoding header) with: the acceptable one (br or
 * gzip, directly or through `*`) of highest weight, brotli first on a tie; null for none.
 */
export function negotiateEncoding(accept: string | null): Encoding | null {
  if (!accept) return null;
  const weights = new Map<string, number>();
  for (const part of accept.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    const weight = q === undefined ? 1 : Number(q);
    weights.set(name.trim(), Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (encoding: Encoding) => weights.get(encoding) ?? weights.get('*') ?? 0;
  const [best] = (['br', 'gzip'] as const).filter((e) => weightOf(e) > 0).sort((a, b) => weightOf(b) - weightOf(a));
  return best ?? null;
}

function addVary(headers: Headers): void {
  const vary = headers.get('vary');
  if (!vary) headers.set('vary', 'Accept-Encoding');
  else if (!vary.split(',').some((v) => ['accept-encoding', '*'].includes(v.trim().toLowerCase())))
    headers.set('vary', `${vary}, Accept-Encoding`);
}

/**
 * Adds `Vary` to the answer's own headers; answers a copy of the response with it when those
 * are immutable (Response.redirect(), Response.error()).
 */
function withVary(response: Response, setResponse: (response: Response) => void): void {
  try {
    addVary(response.headers);
  } catch {
    const headers = new Headers(response.headers);
    addVary(headers);
    setResponse(new Response(response.body, { status: response.status, statusText: response.statusText, headers }));
  }
}

/** Yoga plugin: the compression above. */
export function useCompression(): Plugin {
  const cache = new Map<string, Buffer>();

  async function compressed(response: Response, encoding: Encoding, setResponse: (response: Response) => void): Promise<void> {
    const headers = new Headers(response.headers);
    addVary(headers);
    const body: Buffer = Buffer.from(await response.arrayBuffer());
    let sent = body;
    if (body.byteLength >= MIN_BYTES) {
      const key = body.byteLength >= CACHE_FROM_BYTES ? `${encoding}:${createHash('sha256').update(body).digest('base64')}` : undefined;
      let compressed = key ? cache.get(key) : undefined;
      if (!compressed) {
        compressed = await compress(body, encoding);
        if (key) {
          if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
          cache.set(key, compressed);
        }
      }
      sent = compressed;
      headers.set('content-encoding', encoding);
    }
    headers.set('content-length', String(sent.byteLength));
    // zlib's and Buffer.from's buffers are plain ArrayBuffers; the types only cannot say so.
    setResponse(new Response(sent as Buffer<ArrayBuffer>, { status: response.status, statusText: response.statusText, headers }));
  }

  return {
    // Not async, and the answer is kept (only its Vary header added) when nothing is compressed:
    // requests without Accept-Encoding and short answers pass without a copy or a promise. Its
    // `body` is not read then either: reading it turns a string body into a stream, which yoga's
    // server adapter then pipes instead of writing the string at once.
    onResponse({ request, response, setResponse }) {
      if (!COMPRESSIBLE.test(response.headers.get('content-type') ?? '')) return;
      if (request.method === 'HEAD' || response.status === 204 || response.status === 304) return;
      if (response.headers.has('content-encoding')) return;
      const encoding = negotiateEncoding(request.headers.get('accept-encoding'));
      const declared = Number(response.headers.get('content-length') ?? Number.NaN);
      if (!encoding || declared < MIN_BYTES) {
        withVary(response, setResponse);
        return;
      }
      if (!response.body) return;
      return compressed(response, encoding, setResponse);
    },
  };
}

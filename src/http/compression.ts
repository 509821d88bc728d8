/**
 * Response compression (the GraphiQL page is megabytes uncompressed; from a
 * well-kept library): expressjs's `compression` middleware around the app's Node request
 * listener. It answers brotli or gzip as `Accept-Encoding` allows (q-values honoured by
 * `negotiator`, `q=0` refuses, brotli preferred at equal weight), for compressible types
 * (mime-db: JSON, GraphQL responses, HTML, JavaScript, CSS, SVG, Prometheus text) of at least
 * MIN_BYTES, adds `Vary: Accept-Encoding` to every compressible answer, compressed or not, and
 * leaves alone answers already encoded (the web console's precompressed assets), HEAD, and what
 * `Cache-Control: no-transform` marks. Our filter also leaves streams (`text/event-stream`,
 * `multipart/*`: compressing them would hold parts back) and 204/304 answers (no body).
 * Yoga's Node adapter writes the headers before the body, so the middleware reads the size from
 * `Content-Length`: an answer without one is compressed whatever its size (responses.ts `json`,
 * the console's page and the sign-in page say theirs; yoga's GraphQL results do).
 *
 * Why not @whatwg-node/server's `useContentEncoding` (yoga's own, read in 0.11.0): it also
 * inflates request bodies (`Content-Encoding` of a request) before our body limits see them, a
 * decompression bomb; it matches the header's comma-separated items as exact strings (no
 * q-values, no spaces: `gzip, br` answers gzip, `br;q=1` nothing); it adds no `Vary`, and
 * compresses tiny answers, answers already encoded, streams and HEAD. Wrapping it in enough
 * checks to be safe would be the hand-written plugin again. Node's zlib streams run in libuv's
 * thread pool.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import compression from 'compression';

/** Bodies shorter than this are sent as they are: compressing them saves less than it costs. */
export const MIN_BYTES = 1024;

/** A Node request listener (node:http). */
export type Listener = (request: IncomingMessage, response: ServerResponse) => void;

const STREAMS = /^\s*(text\/event-stream|multipart\/)/i;

function shouldCompress(request: IncomingMessage, response: ServerResponse): boolean {
  if (response.statusCode === 204 || response.statusCode === 304) return false;
  if (STREAMS.test(String(response.getHeader('content-type') ?? ''))) return false;
  // The library's own test (a compressible type, by mime-db); its types name Express's request and response.
  return compression.filter(request as never, response as never);
}

/**
 * `listener` with the compression above. A request without `Accept-Encoding` accepts only the
 * identity (RFC 9110 12.5.3; the library negotiates `identity` for it and never compresses), so
 * it goes to `listener` directly, without the middleware's hooks on the response; the
 * `Vary: Accept-Encoding` the middleware would have added comes from the app on every answer
 * (use-security-headers.ts).
 */
export function withCompression(listener: Listener): Listener {
  const middleware = compression({
    threshold: MIN_BYTES,
    filter: shouldCompress,
    // The library's brotli quality 4 and gzip level 6: most of the gain at a fraction of the
    // time of brotli's maximum (11). Answers made of precompressed copies (accept-encoding.ts)
    // arrive with their Content-Encoding and pass untouched.
  });
  return (request, response) => {
    if (request.headers['accept-encoding'] === undefined) listener(request, response);
    else middleware(request as never, response as never, () => listener(request, response));
  };
}

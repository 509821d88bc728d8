/**
 * Answers made of precompressed copies (the console's files, brotli'd and gzipped at build time,
 * console-routes.ts; GraphiQL's, compressed once, graphiql-assets.ts; shared JSON answers,
 * answer-cache.ts): which copy to send, by the `Accept-Encoding` rule of RFC 9110 section
 * 12.5.3 as the `compression` middleware's `negotiator` applies it to every other answer
 * (http/compression.ts), so both choose alike. An answer sent with a `Content-Encoding` is left
 * alone by the middleware, so each request's header is negotiated once.
 */

import Negotiator from 'negotiator';

export type Encoding = 'br' | 'gzip';

/** A file and its compressed copies, when it has them. */
export interface EncodedFile {
  type: string;
  body: Uint8Array;
  br?: Uint8Array | undefined;
  gzip?: Uint8Array | undefined;
}

/**
 * The 200 answer for `file`: the copy `encoding` names when the file has it (with its
 * `Content-Encoding`), else the file itself; `Vary: Accept-Encoding` and `Content-Length` always,
 * no body for HEAD.
 */
export function fileResponse(request: Request, file: EncodedFile, encoding: Encoding | null): Response {
  const copy = encoding ? file[encoding] : undefined;
  const body = copy ?? file.body;
  const headers = new Headers({ 'content-type': file.type, vary: 'Accept-Encoding', 'content-length': String(body.byteLength) });
  if (copy && encoding) headers.set('content-encoding', encoding);
  return new Response(request.method === 'HEAD' ? null : (body as BodyInit), { status: 200, headers });
}

/** The encodings we hold copies in, brotli first: the `compression` middleware's order. */
const OFFERED = ['br', 'gzip', 'identity'];
const PREFERRED = ['br', 'gzip'];

/**
 * The encoding to answer `accept` (an Accept-Encoding header) with: br or gzip as `negotiator`
 * (the library the `compression` middleware negotiates with) chooses it, by weight, brotli
 * first on a tie; null for none (`identity`, absent, or every weight 0).
 */
export function negotiateEncoding(accept: string | null): Encoding | null {
  if (!accept) return null;
  const known = chosenFor.get(accept);
  if (known !== undefined) return known;
  const chosen = negotiate(accept);
  if (chosenFor.size >= MAX_REMEMBERED) chosenFor.clear();
  chosenFor.set(accept, chosen);
  return chosen;
}

/**
 * The choice for each header value seen lately (clients send a handful of distinct values);
 * at most MAX_REMEMBERED, forgotten all at once past it, so a caller varying it grows nothing.
 */
const chosenFor = new Map<string, Encoding | null>();
const MAX_REMEMBERED = 64;

function negotiate(accept: string): Encoding | null {
  const negotiator = new Negotiator({ headers: { 'accept-encoding': accept } });
  // negotiator 0.6.4 takes the preferred order as its second argument; its types predate it.
  const choose = negotiator.encoding.bind(negotiator) as (available: string[], preferred: string[]) => string | undefined;
  const chosen = choose(OFFERED, PREFERRED);
  return chosen === 'br' || chosen === 'gzip' ? chosen : null;
}

/**
 * Answers made of precompressed copies (the console's files, brotli'd and gzipped at build time,
 * console-routes.ts; GraphiQL's, compressed once, graphiql-assets.ts; shared JSON answers,
 * answer-cache.ts): which copy to send, by the `Accept-Encoding` rule of RFC 9110 section
 * 12.5.3 as the `compression` middleware's `negotiator` applies it to every other answer
 * (http/compression.ts), so both choose alike. An answer sent with a `Content-Encoding` is left
 * alone by the middleware, so each request's header is negotiated once.
 */

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

/**
 * The encoding to answer `accept` (an Accept-Encoding header) with: the acceptable one (br or
 * gzip, directly or through `*`) of highest weight, brotli first on a tie; null for none
 * (`identity`, absent, or every weight 0).
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

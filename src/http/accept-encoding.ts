/**
 * Which precompressed copy of a console asset to send (use-console.ts; the assets are brotli'd
 * and gzipped at build time, so nothing is compressed per request): the `Accept-Encoding` rule of
 * RFC 9110 section 12.5.3, as the `compression` middleware's `negotiator` applies it to every
 * other answer (http/compression.ts), so both choose alike.
 */

type Encoding = 'br' | 'gzip';

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

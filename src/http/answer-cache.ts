/**
 * The bytes of REST answers that are shared, immutable values (the warm permission
 * listing, the role listing): a handler answering a frozen value (PermissionIndex.pairs /
 * scopeMap, a cached index's own; the JSON rows of a cached role listing, roles/rest.ts) answers
 * the same object for every request while that index or listing is cached, so its
 * JSON text, and its brotli or gzip form, are made once per object instead of once per request.
 * Measured on the scale database (bench/scale.ts, a 50-role user's listing, 13.8 kB of JSON):
 * compressing it anew on each request cost about 1 ms of the warm request, serializing it 0.1 ms.
 *
 * Freshness: entries are keyed by the identity of the value the handler returned for this very
 * request, after its checks (a WeakMap, no key of ours): a write that changes permissions drops
 * the cached index (access.ts, permission-cache.ts), the next request gets a new object and so new
 * bytes. Nothing here can answer what the handler did not return. Bounds: an entry lives as long
 * as its value does, i.e. while the permission cache holds that index (bounded in bytes; its
 * estimate counts these bytes too, permission-cache.ts estimateBytes) or the role listing cache
 * that listing (bounded in entries and bytes, roles/listing-cache.ts).
 *
 * The encoding is chosen by negotiateEncoding, the rule of the compression middleware
 * (compression.ts), with its threshold (MIN_BYTES) and its levels (brotli quality 4, gzip 6), and
 * the answer says `Content-Encoding` and `Vary: Accept-Encoding`; the middleware leaves answers
 * already encoded alone. A frozen value is a promise of its handler that it is deeply immutable.
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { negotiateEncoding } from './accept-encoding.js';
import { MIN_BYTES } from './compression.js';

/** Brotli quality of the compression middleware (`compression`'s default). */
const BROTLI_QUALITY = 4;
/** Gzip level of the compression middleware (zlib's default). */
const GZIP_LEVEL = 6;

interface Serialized {
  /** The UTF-8 bytes of the JSON text with its final newline, as every REST answer (rest-door.ts jsonAnswer). */
  bytes: Buffer<ArrayBuffer>;
  br?: Buffer<ArrayBuffer>;
  gzip?: Buffer<ArrayBuffer>;
}

const answers = new WeakMap<object, Serialized>();

/** The JSON of `value`, made once per object (module comment). */
function serialized(value: object): Serialized {
  let entry = answers.get(value);
  if (!entry) {
    entry = { bytes: Buffer.from(`${JSON.stringify(value)}\n`) };
    answers.set(value, entry);
  }
  return entry;
}

/** Whether `value` is an answer of this cache: a frozen object or array. */
export function isSharedAnswer(value: unknown): value is object {
  return typeof value === 'object' && value !== null && Object.isFrozen(value);
}

/**
 * The body and headers answering `value` (a frozen value, isSharedAnswer) to a request sending
 * `acceptEncoding`: its JSON, compressed once per encoding when at least MIN_BYTES and the
 * request accepts brotli or gzip.
 */
export function sharedAnswer(
  value: object,
  acceptEncoding: string | null,
): { body: Uint8Array<ArrayBuffer>; headers: Record<string, string> } {
  const entry = serialized(value);
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  // Bytes, not the text: Node would encode a string body again for every request.
  if (entry.bytes.length < MIN_BYTES) return { body: entry.bytes, headers };
  headers.vary = 'Accept-Encoding';
  const encoding = negotiateEncoding(acceptEncoding);
  if (encoding === null) return { body: entry.bytes, headers };
  let body = entry[encoding];
  if (!body) {
    body =
      encoding === 'br'
        ? brotliCompressSync(entry.bytes, {
            params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: entry.bytes.length },
          })
        : gzipSync(entry.bytes, { level: GZIP_LEVEL });
    entry[encoding] = body;
  }
  headers['content-encoding'] = encoding;
  return { body, headers };
}

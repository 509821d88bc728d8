/**
 * What the doors outside GraphQL (REST under /api/, POST /login, GET /logout) accept of a request
 * that changes state (SECURITY.md "Request bodies" and "Cross-site
 * requests"):
 *
 * - where it comes from: never from another site. An HTML form or a `no-cors` fetch on another
 *   site makes the browser send its Basic credentials (or, for a top-level navigation, the Lax
 *   session cookie) without any preflight, so a write carrying a foreign `Origin`, or marked
 *   `Sec-Fetch-Site: cross-site` / `same-site` by the browser, is refused with 403 "origin not
 *   allowed" (Grafana's pkg/middleware/csrf answer) unless that origin is trusted: the service's
 *   own (the request's host, or ROOT_URL) or one in CORS_ALLOWED_ORIGINS. API clients (Grafana's
 *   and curl) send neither header and are unaffected;
 * - its type: `application/json` only, even with an empty body, because a form always declares
 *   its own form type (400 `UNSUPPORTED_CONTENT_TYPE`, checked before anything is read);
 * - its size: read as a stream and refused with 413 on a `Content-Length` over the limit, or as
 *   soon as the streamed bytes pass it (chunked bodies included); the rest is never read;
 * - its completeness: a body the client stops sending (closed connection, malformed chunked
 *   encoding) is a 400 `BAD_REQUEST`, never an unexpected error (the request log counts it as
 *   aborted, use-request-log.ts).
 */
import { DomainError } from '../kernel/errors.js';

const JSON_TYPE = 'application/json';
const LONE_SURROGATE = /\p{Cs}/u;

/** The media type of the request's Content-Type, lower case without parameters; '' when absent. */
function mediaType(request: Request): string {
  return (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

const unsupportedType = () => new DomainError('UNSUPPORTED_CONTENT_TYPE', 'bad request data: Content-Type must be application/json');

const tooLarge = (limit: number) => new DomainError('REQUEST_TOO_LARGE', `request body is larger than ${limit} bytes`);

/**
 * Origins trusted to send writes: ROOT_URL's origin (the service's public address, which may
 * differ from the Host a proxy forwards) and CORS_ALLOWED_ORIGINS. Built once per door.
 */
export function trustedOrigins(options: { rootUrl?: string | undefined; allowedOrigins?: readonly string[] | undefined }): Set<string> {
  const trusted = new Set(options.allowedOrigins ?? []);
  if (options.rootUrl) {
    try {
      trusted.add(new URL(options.rootUrl).origin);
    } catch {
      // config.ts validates ROOT_URL; an unparsable one simply trusts nothing more.
    }
  }
  return trusted;
}

/**
 * Refuses a state-changing request sent from another site (module comment): with an `Origin`,
 * it must be trusted or name the request's own host and port (not its scheme, which a TLS proxy
 * in front changes; Grafana's check compares the host name alone); without one,
 * `Sec-Fetch-Site` must not say `cross-site` or `same-site` (browsers send an Origin with every
 * POST, PUT, PATCH and DELETE, so those values without one come from a GET navigation).
 * @throws DomainError ACCESS_DENIED (403 "origin not allowed").
 */
export function refuseCrossSite(request: Request, trusted: ReadonlySet<string>): void {
  const origin = request.headers.get('origin');
  const site = request.headers.get('sec-fetch-site')?.trim().toLowerCase();
  if (origin !== null) {
    if (trusted.has(origin)) return;
    // A cross-site request naming our host can only come from the same host on another scheme.
    if (site !== 'cross-site' && site !== 'same-site' && hostOf(origin) === new URL(request.url).host) return;
  } else if (site !== 'cross-site' && site !== 'same-site') return;
  throw new DomainError(
    'ACCESS_DENIED',
    'origin not allowed: requests that change state must come from this service or an origin in CORS_ALLOWED_ORIGINS',
  );
}

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host || null; // "null" (sandboxed frames, opaque origins) has no host
  } catch {
    return null;
  }
}

/**
 * Refuses a Content-Type other than application/json (parameters such as charset allowed) before
 * the body is read; with `required`, a missing one too.
 * @throws DomainError UNSUPPORTED_CONTENT_TYPE (400).
 */
export function requireJsonType(request: Request, required = false): void {
  const type = mediaType(request);
  if (type === JSON_TYPE || (type === '' && !required)) return;
  throw unsupportedType();
}

/**
 * Refuses a request whose Content-Length is not one whole number, or is over `limit` (bytes),
 * before a byte of its body is read. True when a Content-Length is declared (and within the
 * limit), false when there is none.
 * @throws DomainError BAD_REQUEST (400: an invalid Content-Length), REQUEST_TOO_LARGE (413).
 */
export function refuseDeclaredLength(request: Request, limit: number): boolean {
  const declared = request.headers.get('content-length');
  if (declared === null) return false;
  if (!/^\d+$/.test(declared)) throw new DomainError('BAD_REQUEST', 'Content-Length is invalid');
  if (Number(declared) > limit) throw tooLarge(limit);
  return true;
}

/**
 * The body's bytes, refused with 413 on a Content-Length over `limit` (bytes) before reading, or
 * as soon as the streamed bytes pass it (the stream is cancelled, the rest is never read).
 * @throws DomainError REQUEST_TOO_LARGE (413), BAD_REQUEST (400: an invalid Content-Length, or a
 *   body that ended early: the client closed the connection or sent malformed chunked data).
 */
export async function readBody(request: Request, limit: number): Promise<Uint8Array> {
  refuseDeclaredLength(request, limit);
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let step: ReadableStreamReadResult<Uint8Array>;
    try {
      step = await reader.read();
    } catch {
      // Node's "aborted" (ECONNRESET): the socket closed or its HTTP parser gave up mid-body.
      throw new DomainError('BAD_REQUEST', 'the request body ended before it was complete');
    }
    if (step.done) break;
    size += step.value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(step.value);
  }
  return Buffer.concat(chunks);
}

/** Deepest nesting of arrays and objects a JSON body may have; Grafana's bodies use four levels. */
export const MAX_JSON_DEPTH = 64;

/**
 * What is wrong with a parsed JSON value that JSON itself allows: nesting deeper than
 * MAX_JSON_DEPTH, or a lone surrogate (`"\ud800"`) in a string or a key, which could not be stored
 * faithfully. Walked with a stack of its own, so no depth overflows this process's stack.
 */
function jsonProblem(value: unknown): string | undefined {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item === 'string') {
      if (LONE_SURROGATE.test(item)) return 'text must be well-formed Unicode (lone surrogate)';
      continue;
    }
    if (typeof item !== 'object' || item === null) continue;
    if (depth > MAX_JSON_DEPTH) return `JSON nesting too deep (more than ${MAX_JSON_DEPTH} levels)`;
    for (const [key, child] of Object.entries(item)) {
      if (LONE_SURROGATE.test(key)) return 'text must be well-formed Unicode (lone surrogate)';
      pending.push([child, depth + 1]);
    }
  }
  return undefined;
}

/**
 * The JSON body of a write, or undefined when it is empty (Grafana's bodiless POSTs such as
 * `/api/admin/users/:id/disable`). The type is checked before a byte is read. Errors name the
 * problem, never the parser's own message (which quotes the body back).
 * @throws DomainError UNSUPPORTED_CONTENT_TYPE (400: a Content-Type other than
 *   application/json, or a non-empty body without one), REQUEST_TOO_LARGE (413), BAD_REQUEST
 *   (400, see readBody), INVALID_JSON (400: "invalid JSON body", bad UTF-8, nesting deeper than
 *   MAX_JSON_DEPTH, or a lone surrogate).
 */
export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  requireJsonType(request);
  const bytes = await readBody(request, limit);
  if (bytes.byteLength === 0) return undefined;
  if (mediaType(request) !== JSON_TYPE) throw unsupportedType();
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new DomainError('INVALID_JSON', 'bad request data: the body is not valid UTF-8');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new DomainError('INVALID_JSON', 'bad request data: invalid JSON body');
  }
  const problem = jsonProblem(parsed);
  if (problem) throw new DomainError('INVALID_JSON', `bad request data: ${problem}`);
  return parsed;
}

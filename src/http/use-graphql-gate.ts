/**
 * The GraphQL door's gate, run before yoga reads or parses anything:
 * - POST bodies must be JSON (`application/json`, `application/graphql+json`): any other type,
 *   or none, answers 415 UNSUPPORTED_MEDIA_TYPE saying to send `Content-Type: application/json`
 *   (useJsonPosts, listed before yoga's CSRF prevention in hardening.ts, so the answer names the
 *   fix rather than a CSRF header). Forms, multipart and text/plain, the content types a
 *   cross-site page can send without a CORS preflight, so never run; a GET still needs the
 *   `x-graphql-yoga-csrf` header (CSRF prevention, 403);
 * - GET `variables` and `extensions` must be JSON objects (400 BAD_REQUEST, not yoga's 500);
 * - the caller is authenticated first: bad credentials answer their 401 and no credentials
 *   answer 401 UNAUTHENTICATED, as no GraphQL field is open to anonymous callers; so an
 *   anonymous document is never read, parsed or cached;
 * then, once the body is read: a document longer than GRAPHQL_MAX_DOCUMENT_BYTES answers 413
 * REQUEST_TOO_LARGE, and lone UTF-16 surrogates in the document or the variables answer 400
 * (they cannot be stored faithfully, and would otherwise be replaced silently).
 */
import type { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { DomainError, unauthenticated } from '../kernel/errors.js';
import type { Logger } from '../platform/logger.js';
import { toGraphQLError } from './graphql-errors.js';
import type { RequestAuth } from './request-auth.js';

const JSON_TYPES = new Set(['application/json', 'application/graphql+json']);
const LONE_SURROGATE = /\p{Cs}/u;

export interface GraphQLGateOptions {
  auth: RequestAuth;
  log: Logger;
  maxDocumentBytes: number;
}

/** True when a string anywhere in `value` holds U+FFFD, what a lenient decoder puts for bad bytes. */
function hasReplacementCharacter(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\uFFFD');
  if (depth > 64 || typeof value !== 'object' || value === null) return false;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\uFFFD') || hasReplacementCharacter(item, depth + 1)) return true;
  }
  return false;
}

/** True when a string anywhere in `value` holds a lone surrogate. */
export function hasLoneSurrogate(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (depth > 64 || typeof value !== 'object' || value === null) return false;
  for (const [key, item] of Object.entries(value)) {
    if (LONE_SURROGATE.test(key) || hasLoneSurrogate(item, depth + 1)) return true;
  }
  return false;
}

function jsonObjectParam(params: URLSearchParams, name: string): DomainError | undefined {
  const raw = params.get(name);
  if (!raw) return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return undefined;
  } catch {
    // answered below
  }
  return new DomainError('BAD_REQUEST', `${name} must be a JSON object`);
}

/** What a GraphQL POST of another content type is told (415 UNSUPPORTED_MEDIA_TYPE). */
export function notJsonMessage(received: string): string {
  return (
    `GraphQL POST requests must be sent with the header Content-Type: application/json (got ${received ? `"${received}"` : 'none'}); ` +
    'a GraphQL GET request needs the header x-graphql-yoga-csrf: 1 instead'
  );
}

/**
 * Yoga plugin, listed before CSRF prevention (hardening.ts): a GraphQL POST whose body is not
 * JSON answers 415 UNSUPPORTED_MEDIA_TYPE (notJsonMessage) before anything is read. Without it,
 * yoga's CSRF prevention answers a form, multipart or text/plain POST, or one without a type,
 * 403 "Required CSRF header(s) not present", which sends the caller after a header when the
 * fix is the content type. Such a POST never runs either way: a cross-site form stays refused.
 */
export function useJsonPosts(log: Logger): Plugin {
  return {
    onRequestParse({ request }) {
      if (request.method !== 'POST') return;
      const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      if (!JSON_TYPES.has(type)) throw toGraphQLError(new DomainError('UNSUPPORTED_MEDIA_TYPE', notJsonMessage(type)), log);
    },
  };
}

/** Yoga plugin: the gate above (the POST content type is useJsonPosts'). */
export function useGraphQLGate(options: GraphQLGateOptions): Plugin {
  const fail = (error: unknown): GraphQLError => toGraphQLError(error, options.log);
  return {
    async onRequestParse({ request, url }) {
      if (request.method === 'GET') {
        const bad = jsonObjectParam(url.searchParams, 'variables') ?? jsonObjectParam(url.searchParams, 'extensions');
        if (bad) throw fail(bad);
      }
      let principal: Awaited<ReturnType<RequestAuth>>;
      try {
        principal = await options.auth(request);
      } catch (error) {
        throw fail(error);
      }
      if (principal.kind === 'anonymous') throw fail(unauthenticated());
    },
    onParams({ params }) {
      const query = params.query ?? '';
      if (typeof query === 'string' && Buffer.byteLength(query) > options.maxDocumentBytes) {
        throw fail(new DomainError('REQUEST_TOO_LARGE', `the GraphQL document is larger than ${options.maxDocumentBytes} bytes`));
      }
      if (hasLoneSurrogate(query) || hasLoneSurrogate(params.variables) || hasLoneSurrogate(params.operationName)) {
        throw fail(new DomainError('BAD_REQUEST', 'text must be well-formed Unicode: lone surrogates are refused'));
      }
      // Yoga decodes the body leniently: bytes that are not UTF-8 arrive as U+FFFD. The character
      // has no use in names or scopes, so its presence means the body was not UTF-8 (REST: 400 too).
      if (hasReplacementCharacter(query) || hasReplacementCharacter(params.variables)) {
        throw fail(new DomainError('BAD_REQUEST', 'the body must be valid UTF-8 (U+FFFD, the replacement character, is refused)'));
      }
    },
  };
}

/**
 * What every feature's REST route table is made of: the route shape (method, path, the
 * requirement it declares, handler) and query-string parsing. The router itself
 * (src/http/use-rest-routes.ts) matches, authenticates, reads the body and shapes errors.
 */

import type { ZodType } from 'zod';
import { DomainError } from '../../kernel/errors.js';
import type { Principal } from '../../kernel/principal.js';
import type { Requirement } from '../../kernel/requirements.js';
import type { Services } from '../services.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteRequest {
  principal: Principal;
  services: Services;
  /** Path parameters by name (`:uid` -> params.uid), URI-decoded. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body (POST/PUT/PATCH), or undefined when none was sent. */
  body: unknown;
  /** The client's address (socket, or the trusted proxy's X-Forwarded-For), for throttling; "unknown" in-process. */
  clientAddress: string;
}

/** A query parameter a route reads, for the OpenAPI document (src/http/openapi.ts). */
export interface QueryParam {
  name: string;
  type: 'boolean' | 'string' | 'integer';
  description: string;
}

export interface Route {
  method: Method;
  /** `/api/...` with `:name` parameters. */
  path: string;
  /**
   * The permission the route needs, declared by the feature service that checks it (the same
   * object writes the 403 text and the GraphQL description); `'signed-in'` for routes any
   * authenticated caller may use.
   */
  requires: Requirement<string> | 'signed-in';
  handler: (req: RouteRequest) => Promise<unknown>;
  /** One line for the OpenAPI document (src/http/openapi.ts): what the route does. */
  summary?: string;
  /** The zod schema the service parses the JSON body with, for the OpenAPI document. */
  body?: ZodType;
  /** Status of a successful answer: 200 unless Grafana answers otherwise (201 for some creations). */
  status?: 200 | 201 | 202;
  /** The query parameters the handler reads, for the OpenAPI document. */
  query?: readonly QueryParam[];
}

/** Go's strconv.ParseBool spellings, which Grafana's query parsing accepts. */
const TRUE_WORDS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE_WORDS = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/**
 * Query-string boolean, as Grafana reads it (Go's `strconv.ParseBool`): `1 t T TRUE true True`
 * are true, `0 f F FALSE false False` and an absent or empty parameter false.
 * @throws DomainError VALIDATION_FAILED (400) "<name>: must be true or false" for anything else
 *   (`yes`, `on`, `tRUE`, ` true`).
 */
export function parseBooleanParam(name: string, value: string | null | undefined): boolean {
  if (value === null || value === undefined || value === '' || FALSE_WORDS.has(value)) return false;
  if (TRUE_WORDS.has(value)) return true;
  throw new DomainError('VALIDATION_FAILED', `${name}: must be true or false`);
}

/** Grafana's `accesscontrol` flag: each object answered with its `accessControl` map of the caller's actions. */
export function accessControlParam(query: URLSearchParams): boolean {
  return parseBooleanParam('accesscontrol', query.get('accesscontrol'));
}

/**
 * `query`, `page`, `perpage` and `accesscontrol` of Grafana's team and service-account searches,
 * as their services read them (paging is parsed there: shared/directory.ts pagingInput).
 */
export function directorySearchParams(query: URLSearchParams) {
  return { query: query.get('query'), page: query.get('page'), perPage: query.get('perpage'), accessControl: accessControlParam(query) };
}

/** `{includeHidden}` from the query string (role listings). */
export function includeHiddenParam(query: URLSearchParams): { includeHidden: boolean } {
  return { includeHidden: parseBooleanParam('includeHidden', query.get('includeHidden')) };
}

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
}

/**
 * Query-string boolean: "true"/"1" true, "false"/"0"/absent false.
 * @throws DomainError VALIDATION_FAILED (400) "<name>: must be true or false" for anything else.
 */
export function parseBooleanParam(name: string, value: string | null | undefined): boolean {
  if (value === null || value === undefined || value === '' || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  throw new DomainError('VALIDATION_FAILED', `${name}: must be true or false`);
}

/** `{includeHidden}` from the query string (role listings). */
export function includeHiddenParam(query: URLSearchParams): { includeHidden: boolean } {
  return { includeHidden: parseBooleanParam('includeHidden', query.get('includeHidden')) };
}

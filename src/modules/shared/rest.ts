/**
 * What every feature's REST route table is made of: the route shape (method, path, the
 * requirement it declares, handler, and for the OpenAPI document its body, query parameters and
 * success answer), query-string parsing from the declared parameters, and the answer shapes
 * several features share. The router (src/http/router.ts) matches; the REST door (src/http/rest-door.ts)
 * authenticates, reads the body and shapes errors.
 */

import { type ZodType, z } from 'zod';
import { DomainError } from '../../kernel/errors.js';
import type { Principal } from '../../kernel/principal.js';
import type { Requirement } from '../../kernel/requirements.js';
import type { Logger } from '../../platform/logger.js';
import type { Services } from '../services.js';
import type { TeamJson } from './directory.js';

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
  /**
   * The request itself, for the browser sign-in routes only (they read and set cookies, and
   * answer redirects); every other handler reads the fields above.
   */
  request: Request;
  /** The settings the browser sign-in routes answer with (src/http/sign-in-routes.ts). */
  site: SiteSettings;
}

/** Settings of the browser sign-in routes: the session cookie, where a login lands, sign-up. */
export interface SiteSettings {
  /** The session cookie: name, `Secure` (else decided per request by TLS), Max-Age in seconds. */
  cookie: { name: string; secure: boolean; maxAgeSeconds: number };
  /** ROOT_URL, ending with "/": where a completed OAuth login lands. */
  rootUrl: string;
  /** AUTH_GENERIC_OAUTH_ALLOW_SIGN_UP: an OAuth login may create its user. */
  allowSignUp: boolean;
  log: Logger;
}

/**
 * A query parameter a route reads, for the OpenAPI document (src/http/openapi.ts). A route
 * declares every parameter its handler reads (test/http/openapi.test.ts checks both ways).
 */
export interface QueryParam {
  name: string;
  type: 'boolean' | 'string' | 'integer';
  description: string;
  /** Read with `getAll`: the parameter may be repeated (`teamId=1&teamId=2`). */
  repeated?: boolean;
}

/**
 * The query string's non-empty values of `params`, by name: an empty value counts as absent, as
 * in Grafana's searches. For handlers that pass a route's declared filters on as one record.
 */
export function pickParams(query: URLSearchParams, params: readonly QueryParam[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { name } of params) {
    const value = query.get(name);
    if (value !== null && value !== '') out[name] = value;
  }
  return out;
}

export interface Route {
  method: Method;
  /**
   * `/api/...` with `:name` parameters; or one of the browser's sign-in paths outside /api
   * (`/login`, `/logout`, `/login/generic_oauth`, Grafana's), which only these routes answer.
   */
  path: string;
  /**
   * The permission the route needs, declared by the feature service that checks it (the same
   * object writes the 403 text and the GraphQL description); `'signed-in'` for routes any
   * authenticated caller may use; `'anonymous'` for the sign-in routes, which authenticate no
   * one (SECURITY.md "What answers without credentials" lists each).
   */
  requires: Requirement<string> | 'signed-in' | 'anonymous';
  /**
   * The JSON answer's value; or a `Response`, sent as it is (the sign-in routes' redirects,
   * cookies and page).
   */
  handler: (req: RouteRequest) => Promise<unknown>;
  /** Refuse a request from another site's page even for GET (`GET /logout` ends a session). */
  sameSiteOnly?: true;
  /** A write must send a JSON body: without one, 400 UNSUPPORTED_CONTENT_TYPE (body.ts). */
  bodyRequired?: true;
  /** Largest body, bytes, when below MAX_REQUEST_BODY_BYTES (`POST /login`: 16 KiB). */
  maxBodyBytes?: number;
  /** One line for the OpenAPI document (src/http/openapi.ts): what the route does. */
  summary?: string;
  /** The zod schema the service parses the JSON body with, for the OpenAPI document. */
  body?: ZodType;
  /** Status of a successful answer: 200 unless Grafana answers otherwise (201 for some creations). */
  status?: 200 | 201 | 202;
  /** Headers of the success answer a client reads, by name, with what each holds (OpenAPI `headers`). */
  responseHeaders?: Readonly<Record<string, string>>;
  /** The query parameters the handler reads, for the OpenAPI document. */
  query?: readonly QueryParam[];
  /**
   * The zod schema of the success answer's JSON, for the OpenAPI document (output side: what the
   * handler returns). Named shapes carry `.meta({ id })` (Grafana's DTO names) and become
   * components. A test validates real answers of every route against it.
   */
  response?: ZodType;
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

/** Grafana's `accesscontrol` flag (QueryBool): each object answered with its `accessControl` map. */
export const ACCESS_CONTROL_PARAM = {
  name: 'accesscontrol',
  type: 'boolean',
  description: "Answer each object with `accessControl`, the caller's actions on it ({action: true})",
} as const satisfies QueryParam;

/** Grafana's `page` of its directory searches (QueryInt), read by every list's rule (shared/paging.ts). */
export const PAGE_PARAM = {
  name: 'page',
  type: 'integer',
  description: 'Page number, from 1 (default 1; missing, not a number or below 1: 1, as Grafana)',
} as const satisfies QueryParam;

/** Grafana's `perpage` of its directory searches (QueryInt), read by every list's rule (shared/paging.ts). */
export const PER_PAGE_PARAM = {
  name: 'perpage',
  type: 'integer',
  description: 'Rows per page (default 1000; missing, not a number or below 1: 1000, as Grafana; above 1000: 400)',
} as const satisfies QueryParam;

/** Grafana's `query` of a directory search: text matched against `what`. */
export function searchTextParam(what: string): QueryParam {
  return { name: 'query', type: 'string', description: `Text matched, in any case, against ${what}` };
}

/** `accesscontrol` read as Grafana reads it (ACCESS_CONTROL_PARAM). */
export function accessControlParam(query: URLSearchParams): boolean {
  return parseBooleanParam(ACCESS_CONTROL_PARAM.name, query.get(ACCESS_CONTROL_PARAM.name));
}

/**
 * The query parameters of Grafana's team and service-account searches (`what` the text is matched
 * against): `query`, `page`, `perpage`, `accesscontrol`. directorySearchParams reads exactly these.
 */
export function directorySearchQuery(what: string): QueryParam[] {
  return [searchTextParam(what), PAGE_PARAM, PER_PAGE_PARAM, ACCESS_CONTROL_PARAM];
}

/**
 * The values of directorySearchQuery's parameters, as the team and service-account services read
 * them (paging is parsed there, by every list's rule: shared/paging.ts).
 */
export function directorySearchParams(query: URLSearchParams) {
  return {
    query: query.get('query'),
    page: query.get(PAGE_PARAM.name),
    perPage: query.get(PER_PAGE_PARAM.name),
    accessControl: accessControlParam(query),
  };
}

/** `includeHidden` of the role listings. */
export const INCLUDE_HIDDEN_PARAM = {
  name: 'includeHidden',
  type: 'boolean',
  description: 'Include hidden roles',
} as const satisfies QueryParam;

/** `{includeHidden}` from the query string (INCLUDE_HIDDEN_PARAM). */
export function includeHiddenParam(query: URLSearchParams): { includeHidden: boolean } {
  return { includeHidden: parseBooleanParam(INCLUDE_HIDDEN_PARAM.name, query.get(INCLUDE_HIDDEN_PARAM.name)) };
}

// Answer shapes several features share. Times are Date.toISOString() strings (UTC).

/** A time in a JSON answer: ISO 8601 in UTC, as `Date.toISOString()` writes it. */
export const jsonTime = () => z.string().meta({ format: 'date-time' });

/** An id in a JSON answer: a positive integer. */
export const jsonId = () => z.int().positive();

/** A count in a JSON answer. */
export const jsonCount = () => z.int().nonnegative();

/** `{message}`: the success answer of most writes (Grafana's SuccessResponseBody, its `response.Success`). */
export const messageJson = z
  .strictObject({ message: z.string().meta({ description: 'Grafana\'s success text, e.g. "Team created"' }) })
  .meta({ id: 'SuccessResponseBody', description: 'A confirmation with Grafana’s text' });

/** Grafana's `accessControl` metadata of an object: the caller's actions on it. */
export const accessControlJson = z
  .record(z.string(), z.boolean())
  .meta({ description: 'The caller’s actions on this object, as {action: true} (with ?accesscontrol=true)' });

/**
 * A page of a directory search, Grafana's `{totalCount, <key>: rows, page, perPage}`
 * (SearchUserQueryResult `users`, SearchTeamQueryResult `teams`, ...), named `id`.
 */
export function searchPageSchema<K extends string, R extends ZodType>(id: string, key: K, row: R) {
  return z
    .strictObject({
      totalCount: jsonCount().meta({ description: 'Every match, over all pages' }),
      ...({ [key]: z.array(row) } as Record<K, z.ZodArray<R>>),
      page: jsonId(),
      perPage: jsonId(),
    })
    .meta({ id });
}

/** Grafana's TeamDTO, the JSON schema of teamToJson's answer (the teams and users routes answer it). */
export const teamDto = z
  .strictObject({
    id: jsonId(),
    orgId: jsonId(),
    name: z.string(),
    email: z.string(),
    avatarUrl: z.string().meta({ description: '/avatar/<md5 of the email, or of the name>' }),
    memberCount: jsonCount(),
    permission: z.int().meta({ description: 'The caller’s team permission in Grafana (0 member, 4 admin): always 0 here' }),
    accessControl: accessControlJson.optional(),
  })
  .meta({ id: 'TeamDTO' });

// teamToJson's TeamJson and teamDto describe one shape: each must be assignable to the other.
const _teamJsonIsTeamDto: [TeamJson, z.infer<typeof teamDto>] extends [z.infer<typeof teamDto>, TeamJson] ? true : never = true;

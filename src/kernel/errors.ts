/**
 * Expected failures of the domain, each with a stable SCREAMING_SNAKE code, and the one table
 * that maps codes to HTTP statuses. GraphQL (`extensions.code` / `extensions.http.status`) and
 * REST (response status) both read `httpStatusOf`, so the two doors always agree.
 *
 * Sources: service-interface.md "Errors" (400/403/404/500), upstream-behaviour.md "Errors"
 * (401 for credentials, JSON `{"message"}` bodies) and "API keys" (409 for a duplicate name).
 */

/** Every code a DomainError may carry. Adding one means adding its status below. */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  INVALID_JSON: 400,
  UNSUPPORTED_CONTENT_TYPE: 400,
  VALIDATION_FAILED: 400,
  ROLE_VERSION_CONFLICT: 400,
  ROLE_IS_FIXED: 400,
  ROLE_ASSIGNED: 400,
  LAST_ORG_ADMIN: 400,
  LAST_SERVICE_ADMIN: 400,
  ROLE_NOT_ASSIGNABLE: 400,
  /** An assignment window whose end is not after its start (modules/assignments/window.ts). */
  ASSIGNMENT_WINDOW_INVALID: 400,
  /** An assignment window that ends at or before now. */
  ASSIGNMENT_WINDOW_PAST: 400,
  /** An assignment longer than its role's maxAssignmentSeconds (or without end when the role has one). */
  ASSIGNMENT_TOO_LONG: 400,
  /** An access request for longer than its role's maxAssignmentSeconds or ACCESS_REQUEST_MAX_SECONDS (modules/access-requests). */
  ACCESS_REQUEST_TOO_LONG: 400,
  API_KEY_TTL_REQUIRED: 400,
  API_KEY_TTL_TOO_LONG: 400,
  PROVISIONING_INVALID: 400,
  PASSWORD_MANAGED_EXTERNALLY: 400,
  CANNOT_REVOKE_ACTIVE_SESSION: 400,
  LDAP_NOT_ENABLED: 400,
  ORG_NAME_TAKEN: 400,
  CANNOT_DELETE_ACTIVE_ORG: 400,
  ALREADY_TEAM_MEMBER: 400,
  SERVICE_ACCOUNT_ALREADY_EXISTS: 400,
  /** A read asked for at least a revision of the change feed that was never issued (above its head). */
  REVISION_NOT_ISSUED: 400,
  /** A batch check with more items than it may hold (modules/permissions/inputs.ts MAX_BATCH_ITEMS). */
  BATCH_TOO_LARGE: 400,
  /** A simulation proposed more changes than one request may (modules/simulation/inputs.ts MAX_SIMULATED_CHANGES). */
  TOO_MANY_CHANGES: 400,
  UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  INVALID_API_KEY: 401,
  EXPIRED_API_KEY: 401,
  ORG_NOT_ACCESSIBLE: 401,
  SESSION_EXPIRED: 401,
  IDENTITY_PROVIDER_UNAVAILABLE: 401,
  SIGN_UP_DISABLED: 401,
  OAUTH_LOGIN_FAILED: 401,
  /** The OpenID provider's token answer held no ID token where one is required (issuer or JWKS set). */
  OAUTH_ID_TOKEN_MISSING: 401,
  ACCESS_DENIED: 403,
  USER_MANAGED_EXTERNALLY: 403,
  /** The requester of an access request tried to approve or deny it. */
  ACCESS_REQUEST_SELF_DECISION: 403,
  NOT_FOUND: 404,
  ROLE_NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  TEAM_NOT_FOUND: 404,
  ORG_NOT_FOUND: 404,
  SERVICE_ACCOUNT_NOT_FOUND: 404,
  API_KEY_NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  TOKEN_NOT_FOUND: 404,
  ACCESS_REQUEST_NOT_FOUND: 404,
  OAUTH_NOT_ENABLED: 404,
  ACCESS_CONTROL_UNAVAILABLE: 404,
  METHOD_NOT_ALLOWED: 405,
  CREDENTIALS_CHANGED: 409,
  /** `portcullis user unlock` on SQLite: the login counters live in the server's memory, out of the CLI's reach. */
  LOGIN_COUNTERS_NOT_SHARED: 409,
  /** An external sign-in whose login or email belongs to another user (never signed into, never rewritten). */
  EXTERNAL_IDENTITY_CONFLICT: 409,
  /** The change feed no longer holds the changes after the revision asked for (pruned): start again from the current state. */
  CHANGES_EXPIRED: 410,
  REQUEST_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  DATABASE_BUSY: 503,
  DATABASE_UNAVAILABLE: 503,
  ROLE_ALREADY_EXISTS: 409,
  API_KEY_ALREADY_EXISTS: 409,
  ALREADY_EXISTS: 409,
  /** A pending access request of the same requester for the same role exists. */
  ACCESS_REQUEST_DUPLICATE: 409,
  /** The access request was already approved, denied, cancelled, or is expired. */
  ACCESS_REQUEST_NOT_PENDING: 409,
  /** The requester already holds the role for good through a direct assignment. */
  ACCESS_REQUEST_ROLE_HELD: 409,
  USER_ALREADY_EXISTS: 412,
  LOGIN_BLOCKED: 429,
  TOO_MANY_CONNECTIONS: 429,
  /** More pending access requests than one requester may have (modules/access-requests/inputs.ts MAX_PENDING_PER_REQUESTER). */
  TOO_MANY_ACCESS_REQUESTS: 429,
  /** More change-feed streams than a principal, or the replica, may hold open (modules/changes/streams.ts). */
  TOO_MANY_STREAMS: 429,
  INTERNAL: 500,
} as const satisfies Record<string, number>;

/** A code of the table above. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * The one shape of `DomainError.details`, sent as GraphQL `extensions.details`: what was needed
 * (403), which object was missing (404), which fields were bad (400), the stored version (400).
 */
export interface ErrorDetails {
  needed?: string;
  id?: number | string;
  uid?: string;
  name?: string;
  issues?: { path: string; message: string }[];
  storedVersion?: number;
  /** LOGIN_BLOCKED (429): seconds until another attempt is accepted. */
  retryAfterSeconds?: number;
  /** REVISION_NOT_ISSUED (400), CHANGES_EXPIRED (410): the change feed's newest revision. */
  head?: number;
  /** ASSIGNMENT_WINDOW_INVALID, ASSIGNMENT_WINDOW_PAST (400): the window sent, ISO 8601. */
  notBefore?: string;
  expiresAt?: string;
  /** ASSIGNMENT_TOO_LONG, ACCESS_REQUEST_TOO_LONG (400): the longest assignment allowed, in seconds. */
  maxAssignmentSeconds?: number;
  /** ACCESS_REQUEST_NOT_PENDING (409): the request's status. */
  status?: string;
  /** CHANGES_EXPIRED (410): changes up to this revision are no longer kept. */
  prunedThrough?: number;
  /** LOGIN_BLOCKED (429): the moment the lock ends, ISO 8601 UTC (`2025-01-31T12:05:00Z`). */
  retryAt?: string;
}

/** Codes of the "no such object" kind (404). */
export type NotFoundCode = Extract<ErrorCode, `${string}_NOT_FOUND`>;

/** An expected failure: `code` is stable for clients, `message` is for people. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  /** Optional machine-readable detail (for example the permission that was missing). */
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
  }

  /** HTTP status of this error, from ERROR_STATUS. */
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** HTTP status for a code; the single place where that mapping is read. */
export function httpStatusOf(code: ErrorCode): number {
  return ERROR_STATUS[code];
}

/** True for an expected failure (a DomainError), which keeps its message on both doors. */
export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}

/** 401 UNAUTHENTICATED "Unauthorized": no credentials on a protected operation (Grafana's text). */
export function unauthenticated(): DomainError {
  return new DomainError('UNAUTHENTICATED', 'Unauthorized');
}

/**
 * 404 for a missing object: `<what> <id> not found<where>`, e.g. `notFound('TEAM_NOT_FOUND',
 * 'team', 7)` -> "team 7 not found". Also used for objects behind another organization's wall,
 * so existence never leaks.
 */
export function notFound(code: NotFoundCode, what: string, id: number | string, where = ''): DomainError {
  const shown = typeof id === 'string' ? `"${id}"` : String(id);
  return new DomainError(code, `${what} ${shown} not found${where}`, typeof id === 'string' ? { uid: id } : { id });
}

/** 409 ALREADY_EXISTS: a unique name or login is taken. */
export function alreadyExists(message: string): DomainError {
  return new DomainError('ALREADY_EXISTS', message);
}

/**
 * What Grafana's evaluators print for a denial (pkg/services/accesscontrol/evaluator.go
 * `String()`): a permission is its action alone, `all(...)` is "all of a, b", `any(...)` is
 * "any of a, b". `described` is `Evaluator.describe()` (kernel/evaluator.ts: `action: <a>[
 * scopes: <s>, ...]`, `all(<d> <d>)`, `any(<d> <d>)`); any other text (a requirement that is
 * not an evaluator, such as "Service Admin to ...") is returned unchanged, as is a description
 * this grammar does not cover.
 */
export function grafanaPermissionsText(described: string): string {
  let at = 0;
  const token = (stops: string): string => {
    const start = at;
    while (at < described.length && !stops.includes(described[at] as string)) at++;
    return described.slice(start, at);
  };
  const item = (): string | undefined => {
    for (const kind of ['all', 'any'] as const) {
      if (!described.startsWith(`${kind}(`, at)) continue;
      at += kind.length + 1;
      const parts: string[] = [];
      for (;;) {
        const part = item();
        if (part === undefined) return undefined;
        parts.push(part);
        if (described[at] === ')') break;
        if (described[at] !== ' ') return undefined;
        at++;
      }
      at++;
      return `${kind} of ${parts.join(', ')}`;
    }
    if (!described.startsWith('action: ', at)) return undefined;
    at += 'action: '.length;
    const action = token(' )');
    if (action === '') return undefined;
    if (described.startsWith(' scopes: ', at)) {
      at += ' scopes: '.length;
      token(' ),');
      while (described.startsWith(', ', at)) {
        at += 2;
        token(' ),');
      }
    }
    return action;
  };
  const text = item();
  return text !== undefined && at === described.length ? text : described;
}

/**
 * 403 with Grafana's wording (pkg/services/accesscontrol/middleware.go `deny`): "You'll need
 * additional permissions to perform this action. Permissions needed: <what>", where <what> is
 * what Grafana's evaluator prints (grafanaPermissionsText: actions only). The full requirement,
 * scopes included (`needed`, e.g. `action: users:read scopes: global.users:id:2`), stays in
 * `details.needed` (GraphQL `extensions.details`, the access-denied log line).
 */
export function accessDenied(needed: string): DomainError {
  const text = grafanaPermissionsText(needed);
  return new DomainError('ACCESS_DENIED', `You'll need additional permissions to perform this action. Permissions needed: ${text}`, {
    needed,
  });
}

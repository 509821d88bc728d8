/**
 * HTTP responses of the REST door and of the plugins: JSON bodies and the one error shape
 * `{message, code}`, with the status from the kernel's code table (kernel/errors.ts). A 403 also
 * carries Grafana's `title` and `accessErrorId` (pkg/services/accesscontrol/middleware.go `deny`).
 */
import { randomInt } from 'node:crypto';
import { type DomainError, httpStatusOf, isDomainError } from '../kernel/errors.js';
import type { Logger } from '../platform/logger.js';
import { retryableDatabaseError } from './database-failures.js';

/**
 * JSON response with `status`: the body is one line of JSON ended by a newline, as Grafana's
 * (its response.JSON writes with json.Encoder, which adds "\n"), so consecutive answers printed
 * in a terminal (curl) do not run together. Every REST answer and plugin JSON comes through here.
 * It says its `Content-Length`: the compression middleware (compression.ts), which sees the
 * headers before the body, leaves answers shorter than its threshold as they are by that header.
 */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  const text = `${JSON.stringify(body)}\n`;
  return new Response(text, {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), ...headers },
  });
}

/** Grafana's id of one denial: "ACE" and ten random digits, logged with it so an operator can find it. */
function newAccessErrorId(): string {
  return `ACE${String(randomInt(0, 10_000_000_000)).padStart(10, '0')}`;
}

/**
 * Body of a DomainError: `{message, code}`; a 403 is Grafana's denial
 * `{accessErrorId, message, title: "Access denied"}` plus `code`, and is logged (info) with its id.
 */
function errorBody(error: DomainError, log: Logger): Record<string, string | number> {
  if (error.code !== 'ACCESS_DENIED') {
    // The change feed's revisions: where to start again (CHANGES_EXPIRED) or the newest issued.
    const { head, prunedThrough } = error.details ?? {};
    return {
      message: error.message,
      code: error.code,
      ...(head !== undefined && { head }),
      ...(prunedThrough !== undefined && { prunedThrough }),
    };
  }
  const accessErrorId = newAccessErrorId();
  log.info({ accessErrorId, needed: error.details?.needed }, 'access denied');
  return { accessErrorId, message: error.message, title: 'Access denied', code: error.code };
}

/**
 * Response for an error: a DomainError gives its status and `{message, code}` (403: see
 * errorBody); a retryable database failure (database-failures.ts) is logged (warn, with its
 * cause) and answered 503 DATABASE_BUSY / DATABASE_UNAVAILABLE; anything else is logged with its
 * stack and answered 500 `{"message": "Internal server error"}`.
 */
export function errorResponse(error: unknown, log: Logger): Response {
  const retryable = isDomainError(error) ? undefined : retryableDatabaseError(error);
  if (retryable) {
    log.warn({ err: error, code: retryable.code }, 'database failure a retry resolves');
    return errorResponse(retryable, log);
  }
  if (isDomainError(error)) {
    const headers: Record<string, string> = error.status === 401 ? { 'www-authenticate': 'Basic realm="portcullis"' } : {};
    if (error.details?.retryAfterSeconds) headers['retry-after'] = String(error.details.retryAfterSeconds);
    return json(httpStatusOf(error.code), errorBody(error, log), headers);
  }
  log.error({ err: error }, 'unexpected error');
  return json(500, { message: 'Internal server error', code: 'INTERNAL' });
}

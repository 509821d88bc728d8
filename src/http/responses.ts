/**
 * HTTP responses of the REST door and of the plugins: JSON bodies and the one error shape
 * `{message, code}`, with the status from the kernel's code table (kernel/errors.ts).
 */
import { httpStatusOf, isDomainError } from '../kernel/errors.js';
import type { Logger } from '../platform/logger.js';

/** JSON response with `status`. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

/**
 * Response for an error: a DomainError gives its status and `{message, code}`; anything else is
 * logged with its stack and answered 500 `{"message": "Internal server error"}`.
 */
export function errorResponse(error: unknown, log: Logger): Response {
  if (isDomainError(error)) {
    const headers: Record<string, string> = error.status === 401 ? { 'www-authenticate': 'Basic realm="portcullis"' } : {};
    if (error.details?.retryAfterSeconds) headers['retry-after'] = String(error.details.retryAfterSeconds);
    return json(httpStatusOf(error.code), { message: error.message, code: error.code }, headers);
  }
  log.error({ err: error }, 'unexpected error');
  return json(500, { message: 'Internal server error', code: 'INTERNAL' });
}

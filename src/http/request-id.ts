/**
 * The request id of each request: the caller's own `X-Request-Id` when it is a sane token
 * (1-128 characters of A-Z a-z 0-9 . _ : -), else a new UUID. Answered in `X-Request-Id`,
 * written in every request log line and in each audit event the request causes.
 */
import { randomUUID } from 'node:crypto';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const ids = new WeakMap<Request, string>();

/** The id of `request`, the same for every call on the same Request object. */
export function requestIdOf(request: Request): string {
  let id = ids.get(request);
  if (id === undefined) {
    const sent = request.headers.get('x-request-id');
    id = sent !== null && SANE_ID.test(sent) ? sent : randomUUID();
    ids.set(request, id);
  }
  return id;
}

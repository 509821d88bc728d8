/**
 * The session cookie and what one request carries besides its headers: the client address (set
 * by useLoginRoutes from the socket, before anything authenticates) and the cookies to set on
 * its response (a rotated session token, or clearing an ended one). Keyed by the Request
 * object, which yoga passes unchanged to every plugin hook and to the context factory.
 */
import { parseCookie, stringifySetCookie } from 'cookie';

/** Cookie attributes from the configuration. */
export interface CookieSettings {
  name: string;
  secure: boolean;
  /** Max-Age of the session cookie, seconds (LOGIN_MAXIMUM_LIFETIME_DURATION). */
  maxAgeSeconds: number;
}

const addresses = new WeakMap<Request, string>();
const pendingCookies = new WeakMap<Request, string[]>();

/** Records the client address of `request` (socket address; no proxy header is trusted). */
export function setClientAddress(request: Request, address: string): void {
  addresses.set(request, address);
}

/** The client address of `request`, "unknown" when none was recorded (in-process requests). */
export function clientAddress(request: Request): string {
  return addresses.get(request) ?? 'unknown';
}

/** The value of cookie `name` on `request`, if any. */
export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get('cookie');
  return header ? parseCookie(header)[name] : undefined;
}

/** `Set-Cookie` for a session token: HttpOnly, SameSite=Lax, Path=/, Secure when configured. */
export function sessionCookie(settings: CookieSettings, token: string): string {
  return stringifySetCookie(settings.name, token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: settings.secure,
    maxAge: settings.maxAgeSeconds,
  });
}

/** `Set-Cookie` that removes cookie `name`. */
export function clearedCookie(name: string, secure: boolean): string {
  return stringifySetCookie(name, '', { httpOnly: true, sameSite: 'lax', path: '/', secure, maxAge: 0, expires: new Date(0) });
}

/** Queues a `Set-Cookie` value for the response to `request`. */
export function queueCookie(request: Request, setCookie: string): void {
  pendingCookies.set(request, [...(pendingCookies.get(request) ?? []), setCookie]);
}

/** The queued `Set-Cookie` values of `request` (emptied). */
export function takeCookies(request: Request): string[] {
  const values = pendingCookies.get(request) ?? [];
  pendingCookies.delete(request);
  return values;
}

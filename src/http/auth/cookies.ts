/**
 * The session cookie and what one request carries besides its headers: its connection (client
 * address and whether it arrived over TLS, set by useConnection from the socket before anything
 * authenticates) and the cookies to set on its response (a rotated session token, or clearing an
 * ended one). Keyed by the Request object, which yoga passes unchanged to every plugin hook and
 * to the context factory.
 *
 * Proxy headers count only with TRUST_PROXY (Express's `trust proxy` for one hop): then
 * `X-Forwarded-Proto: https` means TLS and the last `X-Forwarded-For` entry, the one the trusted
 * proxy appended, is the client address. Without it both are ignored, as anyone can send them.
 */
import { parseCookie, stringifySetCookie } from 'cookie';

/** Cookie attributes from the configuration. */
export interface CookieSettings {
  name: string;
  secure: boolean;
  /** Max-Age of the session cookie, seconds (LOGIN_MAXIMUM_LIFETIME_DURATION). */
  maxAgeSeconds: number;
}

/** What a request's connection says: the client address, and whether it arrived over TLS. */
interface Connection {
  address: string;
  tls: boolean;
}

/** The part of Node's socket read here (`encrypted` is set on TLS sockets). */
export interface SocketInfo {
  remoteAddress?: string | undefined;
  encrypted?: boolean | undefined;
}

const connections = new WeakMap<Request, Connection>();
const pendingCookies = new WeakMap<Request, string[]>();

function lastForwarded(request: Request, header: string): string | undefined {
  const value = request.headers.get(header);
  const last = value?.split(',').at(-1)?.trim().toLowerCase();
  return last || undefined;
}

/**
 * Records the connection of `request` from its socket (absent for in-process requests) and,
 * when `trustProxy` (TRUST_PROXY), from the last `X-Forwarded-For` / `X-Forwarded-Proto` entry.
 */
export function recordConnection(request: Request, socket: SocketInfo | undefined, trustProxy: boolean): void {
  const forwardedFor = trustProxy ? lastForwarded(request, 'x-forwarded-for') : undefined;
  const address = forwardedFor ?? socket?.remoteAddress;
  const tls = socket?.encrypted === true || (trustProxy && lastForwarded(request, 'x-forwarded-proto') === 'https');
  connections.set(request, { address: address ?? 'unknown', tls });
}

/** The client address of `request` (throttling key), "unknown" when none was recorded. */
export function clientAddress(request: Request): string {
  return connections.get(request)?.address ?? 'unknown';
}

/** The cookie settings for the response to `request`: Secure when configured or over TLS. */
export function cookieFor(request: Request, settings: CookieSettings): CookieSettings {
  return connections.get(request)?.tls ? { ...settings, secure: true } : settings;
}

/** The value of cookie `name` on `request`, if any. */
export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get('cookie');
  return header ? parseCookie(header)[name] : undefined;
}

/** `Set-Cookie` for a session token: HttpOnly, SameSite=Lax, Path=/, Secure per `settings` (see cookieFor). */
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

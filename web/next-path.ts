/**
 * Where to go after signing in (`/login?next=...`): a path of this origin, or
 * `/`. Shared by the console (the sign-in page's links and redirect) and the server (the OAuth
 * login's return, src/http/sign-in-routes.ts), so both accept exactly the same places.
 *
 * A browser does not read a URL as a string test would: it turns `\` into `/`, drops tabs and
 * newlines anywhere and control characters at the ends, and resolves `.` segments, so
 * `/\evil.example/`, `/<TAB>/evil.example/` and `/.//evil.example` all open `evil.example`. So the
 * value is refused when it holds a backslash or a control character, when it does not start
 * with exactly one `/` (`//host`, `https:`, `javascript:` are other places), when it is longer
 * than MAX_NEXT_LENGTH, or when the URL it parses to (WHATWG URL, the browser's own parser) is on
 * another origin or its path starts with `//`. What is answered is the parsed URL's own path,
 * query and fragment, so the link holds exactly what was checked. `/login` and `/logout` lead
 * back to `/` (no loop, no surprise sign-out).
 */

/** The longest `next` followed; longer ones lead to `/`. */
const MAX_NEXT_LENGTH = 2048;
/** Any origin serves for resolving a path: only "is it still this origin" is asked of it. */
const BASE = 'http://next.invalid';
// C0 controls, DEL and C1 controls; and the backslash, a slash to the URL parser.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const REFUSED_CHARACTER = /[\u0000-\u001f\u007f-\u009f\\]/;
const NOT_A_DESTINATION = /^\/(login|logout)(\/|$)/;

/**
 * The same-origin path `next` names, or `/` when it names none (module comment).
 * @returns a path starting with one `/`, with its query and fragment, as the URL parser wrote it.
 */
export function safeNextPath(next: string | null | undefined): string {
  if (typeof next !== 'string' || next.length > MAX_NEXT_LENGTH || REFUSED_CHARACTER.test(next)) return '/';
  if (!next.startsWith('/') || next.startsWith('//')) return '/';
  let url: URL;
  try {
    url = new URL(next, BASE);
  } catch {
    return '/';
  }
  if (url.origin !== BASE || url.pathname.startsWith('//') || NOT_A_DESTINATION.test(url.pathname)) return '/';
  return `${url.pathname}${url.search}${url.hash}`;
}

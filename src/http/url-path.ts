/**
 * The path of a request URL without building a URL object. `request.url` is always absolute
 * (`http://host:port/path?query`, set by yoga's server adapter or by `fetch`), and plugins that
 * answer on every response only need its path: `new URL()` parses and allocates the whole URL
 * (host, search parameters), a cost paid on every request for a comparison.
 */

/** The pathname of the absolute URL `url` (`/graphql` for `http://h/graphql?query=x`), as `new URL(url).pathname` gives it for the URLs requests carry. */
export function pathOf(url: string): string {
  const scheme = url.indexOf('://');
  const start = url.indexOf('/', scheme === -1 ? 0 : scheme + 3);
  if (start === -1) return '/';
  let end = url.length;
  const query = url.indexOf('?', start);
  if (query !== -1) end = query;
  const hash = url.indexOf('#', start);
  if (hash !== -1 && hash < end) end = hash;
  const path = url.slice(start, end);
  // Dot segments and escapes: let the URL parser normalize what it would have changed.
  return /%|\/\.|\\/.test(path) ? new URL(url).pathname : path;
}

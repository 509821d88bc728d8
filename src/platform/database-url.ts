/**
 * Which database a `DATABASE_URL` names: `file:<path>` is SQLite (the default,
 * embedded, no server), `postgres://` or `postgresql://` is PostgreSQL (a server shared by
 * several replicas). The one place that reads the scheme: config.ts validates with it, and
 * platform/database.ts and migrations.ts pick the provider with it.
 */
import { projectPath } from './paths.js';

/** The two databases the service runs on; named as Prisma's `provider`. */
export type DatabaseProvider = 'sqlite' | 'postgresql';

/** A parsed DATABASE_URL: the SQLite file's absolute path, or the PostgreSQL connection URL. */
export type DatabaseTarget = { provider: 'sqlite'; path: string } | { provider: 'postgresql'; url: string };

/** What a bad DATABASE_URL is told (config.ts shows it after the variable's name). */
export const DATABASE_URL_FORMS = 'must be file:<path> (SQLite) or postgres://user:password@host:5432/database (PostgreSQL)';

/**
 * True for a file path given without `file:` (`./data/my.db`, `/var/lib/x.db`, `data/my.db`,
 * `C:\data\my.db`): text that does not start with a URL scheme (`name:`), or starts with a
 * Windows drive letter.
 */
function looksLikePath(url: string): boolean {
  if (/^[A-Za-z]:[\\/]/.test(url)) return true;
  return !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(url);
}

/**
 * Why `url` is not a usable DATABASE_URL, or undefined when it is. A PostgreSQL URL needs a host
 * (or `?host=<socket directory>`) and a database name (the path); user, password, port and query
 * parameters (e.g. `sslmode`) are passed to the driver (node-postgres) as given.
 */
export function databaseUrlProblem(url: string): string | undefined {
  if (url.startsWith('file:')) return url.length > 'file:'.length ? undefined : `${DATABASE_URL_FORMS}: file: needs a path`;
  if (looksLikePath(url)) return `${DATABASE_URL_FORMS}; got the bare path "${url}": for a SQLite file write file:${url}`;
  if (!/^postgres(ql)?:\/\//.test(url)) return `${DATABASE_URL_FORMS}; got scheme "${url.split(':')[0] ?? ''}:"`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${DATABASE_URL_FORMS}: not a valid URL (percent-encode special characters of the password)`;
  }
  // A Unix socket is named by `?host=/run/postgresql` instead (node-postgres reads it).
  if (parsed.hostname === '' && !parsed.searchParams.get('host')) return `${DATABASE_URL_FORMS}: the PostgreSQL URL has no host`;
  if (parsed.pathname.replace(/^\//, '') === '') return `${DATABASE_URL_FORMS}: the PostgreSQL URL names no database (…/database)`;
  return undefined;
}

/**
 * The provider and address of a DATABASE_URL. A relative SQLite path resolves against the project
 * folder (the one holding package.json), whatever the working directory, so the server and the
 * CLI open the same file.
 * @throws Error with DATABASE_URL_FORMS when the URL is neither form.
 */
export function databaseTarget(url: string): DatabaseTarget {
  const problem = databaseUrlProblem(url);
  if (problem) throw new Error(`DATABASE_URL ${problem}`);
  if (url.startsWith('file:')) return { provider: 'sqlite', path: projectPath(url.replace(/^file:/, '').replace(/\?.*$/, '')) };
  return { provider: 'postgresql', url };
}

/**
 * Where the data lives, safe to print and log: the SQLite file's absolute path, or the
 * PostgreSQL URL without its password (`postgres://portcullis@db:5432/portcullis`).
 */
export function databaseLocation(url: string): string {
  const target = databaseTarget(url);
  if (target.provider === 'sqlite') return target.path;
  const parsed = new URL(target.url);
  parsed.password = '';
  parsed.search = '';
  return parsed.toString();
}

/**
 * What an operator is told when the database named by DATABASE_URL cannot be opened at start
 * (main.ts, the CLI's session.ts): one line naming DATABASE_URL with its password hidden, where
 * it points and the likely cause, instead of the driver's error and stack. Configuration errors
 * (config.ts) are told the same way: the variable, what is wrong, what to do.
 *
 * Causes are read from the error's `code`, looked for on the error itself, its `cause` chain
 * and the members of an AggregateError (Node reports a name resolving to several addresses,
 * `localhost`, as one AggregateError of every refused connection): Node's socket codes and
 * PostgreSQL's SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html).
 */
import { databaseTarget } from './database-url.js';

/** PostgreSQL's default port, shown when the URL names none. */
const POSTGRES_PORT = '5432';

/**
 * `url` with its password replaced by `***` (`postgres://user:***@host:5432/db`), and any
 * `password=` query parameter too; a URL that does not parse is shown as `<not a URL>`.
 */
export function maskedDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '<not a URL>';
  }
  if (parsed.password !== '') parsed.password = '***';
  if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
  return parsed.toString();
}

/** Every `code` carried by `error`, its `cause` chain and an AggregateError's members, outermost first. */
function codesOf(error: unknown, depth = 0): string[] {
  if (typeof error !== 'object' || error === null || depth > 8) return [];
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  const own = typeof code === 'string' ? [code] : [];
  const members = Array.isArray(errors) ? errors.flatMap((member) => codesOf(member, depth + 1)) : [];
  return [...own, ...codesOf(cause, depth + 1), ...members];
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The host and port a PostgreSQL URL points at (a `?host=` socket directory when it names one). */
function whereOf(url: URL): { host: string; port: string; database: string; user: string } {
  const socket = url.searchParams.get('host');
  return {
    host: socket ?? url.hostname,
    port: url.port || POSTGRES_PORT,
    database: decodeURIComponent(url.pathname.replace(/^\//, '')),
    user: decodeURIComponent(url.username) || '(the system user)',
  };
}

/** The likely cause of a failed PostgreSQL connection, phrased as what to check; undefined when unknown. */
function postgresCause(error: unknown, url: URL): string | undefined {
  const { host, port, database, user } = whereOf(url);
  const codes = new Set(codesOf(error));
  const message = messageOf(error);
  if (codes.has('ECONNREFUSED')) return `nothing listens on ${host}:${port} (ECONNREFUSED): is PostgreSQL running, and on that port?`;
  if (codes.has('ENOTFOUND') || codes.has('EAI_AGAIN') || codes.has('EAI_NONAME'))
    return `the host "${host}" is unknown (${codes.has('EAI_AGAIN') ? 'EAI_AGAIN' : 'ENOTFOUND'}): check its spelling and this machine's DNS`;
  if (codes.has('28P01') || codes.has('28000'))
    return `PostgreSQL on ${host}:${port} refused user "${user}" (${codes.has('28P01') ? '28P01' : '28000'}: ${message}): check the user and password in DATABASE_URL (percent-encode special characters of the password) and pg_hba.conf`;
  if (codes.has('3D000'))
    return `the database "${database}" does not exist on ${host}:${port} (3D000): create it (CREATE DATABASE "${database}";) or name an existing one`;
  if (codes.has('ETIMEDOUT') || /timeout|timed out/i.test(message))
    return `connecting to ${host}:${port} timed out: is the host reachable from here (firewall, security group), and the port right?`;
  if (codes.has('EHOSTUNREACH') || codes.has('ENETUNREACH'))
    return `${host}:${port} cannot be reached from this machine (${codes.has('EHOSTUNREACH') ? 'EHOSTUNREACH' : 'ENETUNREACH'}): check the host and the network route`;
  if (codes.has('ECONNRESET'))
    return `${host}:${port} closed the connection (ECONNRESET): is it PostgreSQL listening there, and does it require SSL (add ?sslmode=require)?`;
  return undefined;
}

/**
 * One line for an error thrown while opening the database named by `databaseUrl`:
 * `DATABASE_URL postgres://user:***@host:5432/db could not be used: <cause>`, where the cause
 * names the host and port and what to check (ECONNREFUSED, ENOTFOUND / EAI_AGAIN, 28P01 /
 * 28000, 3D000, a timeout, an unreachable network, a reset connection). Undefined when the error
 * is none of these (a migration that failed, a SQLite file problem), which keeps its own message.
 */
export function databaseOpenProblem(error: unknown, databaseUrl: string): string | undefined {
  let target: ReturnType<typeof databaseTarget>;
  try {
    target = databaseTarget(databaseUrl);
  } catch {
    return undefined;
  }
  if (target.provider !== 'postgresql') return undefined;
  const cause = postgresCause(error, new URL(target.url));
  return cause && `DATABASE_URL ${maskedDatabaseUrl(target.url)} could not be used: ${cause}`;
}

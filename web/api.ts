/**
 * The console's two ways to the server, both with the session cookie of this origin:
 * GraphQL (urql) for everything the pages show and change, and the few REST routes that belong
 * to the browser's session (sign-in, organizations, organization switch).
 *
 * Queries always go to the network (no client cache): a console is about the current state, and
 * a secret a mutation returns must live only in the component that shows it.
 */
import { Client, type CombinedError, fetchExchange } from '@urql/preact';

/**
 * The GraphQL client. POST only (no query text in URLs or logs); the CSRF header yoga requires
 * on requests a cross-site page could send is set on every request anyway.
 */
export function createGraphqlClient(): Client {
  return new Client({
    url: '/graphql',
    exchanges: [fetchExchange],
    preferGetMethod: false,
    requestPolicy: 'network-only',
    fetchOptions: { credentials: 'same-origin', headers: { 'x-graphql-yoga-csrf': 'console' } },
  });
}

/** An error answered by the server: its message and SCREAMING_SNAKE code when it sent them. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/** Sends a REST request with a JSON body; resolves with the JSON answer, throws ApiError otherwise. */
export async function rest<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // a non-JSON answer (a proxy's error page): reported by status below
  }
  if (!response.ok) {
    const { message, code } = (json ?? {}) as { message?: string; code?: string };
    const wait = response.headers.get('retry-after');
    const suffix = response.status === 429 && wait ? ` Try again in ${wait} seconds.` : '';
    throw new ApiError(`${message ?? `The server answered ${response.status}.`}${suffix}`, response.status, code);
  }
  return json as T;
}

/** The code (`extensions.code`) of the first GraphQL error, if any. */
export function errorCode(error: CombinedError | undefined | null): string | undefined {
  const code = error?.graphQLErrors[0]?.extensions?.code;
  return typeof code === 'string' ? code : undefined;
}

/** What to tell a person about a failed request. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  const combined = error as Partial<CombinedError> | null | undefined;
  if (combined?.graphQLErrors && combined.graphQLErrors.length > 0) {
    return combined.graphQLErrors.map((e) => e.message).join(' ');
  }
  if (combined?.networkError) return 'The server could not be reached. Check your connection and try again.';
  return error instanceof Error ? error.message : 'Something went wrong.';
}

/** True when the server answered 401: no valid credentials (no session, or it ended). */
export function isUnauthenticated(error: CombinedError | undefined | null): boolean {
  return (error?.response as Response | undefined)?.status === 401;
}

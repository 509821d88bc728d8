/**
 * What every page builds on: the page frame (title, focus on navigation), the GraphQL query hook
 * and its error. The other building blocks live by concern, and pages import them from there:
 * messages (notice.tsx), the confirmation dialog and the once-shown secret (dialogs.tsx),
 * formatting of dates and roles (format.tsx), form fields (fields.tsx).
 */

import { type AnyVariables, type CombinedError, type TypedDocumentNode, useQuery } from '@urql/preact';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { errorMessage, isUnauthenticated } from './api.js';
import { Notice } from './notice.js';
import { useSession } from './session.js';

/** False until the first page has shown: a page load keeps the browser's own focus (skip link first). */
let navigated = false;

/**
 * The page's heading and title. After a navigation inside the console focus moves to the
 * heading, so keyboard and screen-reader users start at the new page's top.
 */
export function Page({ title, intro, children }: { title: string; intro?: ComponentChildren; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · portcullis`;
    if (navigated) heading.current?.focus();
    navigated = true;
  }, [title]);
  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        {title}
      </h1>
      {intro && <p class="intro">{intro}</p>}
      {children}
    </>
  );
}

/**
 * Query hook: always from the network, with a `refresh` that fetches again; a 401 ends the
 * session in the page. `query` is a typed document (web/graphql.ts), never a plain string, so its
 * data and variables are the schema's.
 */
export function useGraphql<Data, Variables extends AnyVariables = AnyVariables>(
  query: TypedDocumentNode<Data, Variables>,
  variables: Variables,
  pause = false,
): { data: Data | undefined; error: CombinedError | undefined; fetching: boolean; refresh: () => void } {
  const [result, execute] = useQuery<Data, Variables>({ query, variables, pause, requestPolicy: 'network-only' } as never);
  const { reload } = useSession();
  const signedOut = isUnauthenticated(result.error);
  useEffect(() => {
    // The session ended (expired, revoked, signed out elsewhere): the frame shows the sign-in page.
    if (signedOut) void reload();
  }, [signedOut, reload]);
  return {
    data: result.data,
    error: result.error,
    fetching: result.fetching,
    refresh: () => execute({ requestPolicy: 'network-only' }),
  };
}

/** The error of a query, or nothing. */
export function QueryError({ error }: { error: CombinedError | undefined }) {
  if (!error) return null;
  return <Notice kind="error">{errorMessage(error)}</Notice>;
}

/**
 * What creating API keys (api-keys.tsx) and service accounts with their tokens
 * (service-account-tokens.tsx) share: the roles the caller may grant, the lifetimes offered, the
 * page's status line, and the hook that holds a created secret until it has been copied.
 */
import { type AnyVariables, type TypedDocumentNode, useClient } from '@urql/preact';
import { useState } from 'preact/hooks';
import { errorMessage } from '../api.js';
import type { Choice } from '../fields.js';

const ROLE_ORDER = ['Viewer', 'Editor', 'Admin'] as const;

/** An org role a key or service account may be created with (GraphQL enum OrgRole, but None). */
export type GrantableRole = (typeof ROLE_ORDER)[number];

/** Roles a key or account may get: at most the caller's own org role (any for a Service Admin). */
export function grantableRoles(orgRole: string, isServiceAdmin: boolean): GrantableRole[] {
  if (isServiceAdmin) return [...ROLE_ORDER];
  return ROLE_ORDER.slice(0, (ROLE_ORDER as readonly string[]).indexOf(orgRole) + 1);
}

const DAY = 86_400;
/** Lifetimes offered when creating a key or a token, in seconds (0: never expires). */
export const LIFETIMES: Choice[] = (
  [
    ['1 hour', 3600],
    ['1 day', DAY],
    ['7 days', 7 * DAY],
    ['30 days', 30 * DAY],
    ['90 days', 90 * DAY],
    ['1 year', 365 * DAY],
    ['Never expires', 0],
  ] as const
).map(([label, seconds]) => ({ label, value: String(seconds) }));
/** The lifetime chosen until the user picks another: 30 days, in seconds. */
export const DEFAULT_LIFETIME = String(30 * DAY);

/** `secondsToLive` for a chosen lifetime: absent when it never expires. */
export function lifetime(seconds: string): { secondsToLive?: number } {
  return seconds === '0' ? {} : { secondsToLive: Number(seconds) };
}

/** The page's status line: `said` after a deletion (and the lists load again), `cleared` when a new question opens. */
export interface Status {
  said: (message: string) => void;
  cleared: () => void;
}

/** A created key or token: its secret is in the answer this once. */
interface Secret {
  name: string;
  key: string;
}

/**
 * Creating a key or a token with the mutation `document` (`secretOf` picks the created one from
 * its answer): the secret lives in this hook's state until `dismiss` ("I have copied it"). Sent
 * through the client, not useMutation, whose state would keep the answer, secret included, for
 * as long as the page stays open. `create` resolves true once created (and `onCreated` has run),
 * false with `error` set.
 */
export function useSecretCreation<Data, Variables extends AnyVariables>(
  document: TypedDocumentNode<Data, Variables>,
  secretOf: (data: Data) => Secret | null | undefined,
  onCreated: () => void,
) {
  const client = useClient();
  const [secret, setSecret] = useState<Secret | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const create = async (variables: Variables): Promise<boolean> => {
    setBusy(true);
    setError(null);
    const result = await client.mutation(document, variables).toPromise();
    setBusy(false);
    const created = result.data ? secretOf(result.data) : null;
    if (result.error || !created) {
      setError(errorMessage(result.error));
      return false;
    }
    setSecret({ name: created.name, key: created.key });
    onCreated();
    return true;
  };
  return { secret, error, busy, create, dismiss: () => setSecret(null) };
}

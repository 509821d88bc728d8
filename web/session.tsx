/**
 * The signed-in caller, loaded once per page load and again after sign-in or an organization
 * switch: who it is, the organization it acts in, its organizations (for the switcher) and its
 * permissions (for showing controls). `null` viewer: not signed in.
 */

import { type CombinedError, useClient } from '@urql/preact';
import { type ComponentChildren, createContext } from 'preact';
import { useCallback, useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { Access, type Held } from './access.js';
import { errorCode, errorMessage, isUnauthenticated, rest } from './api.js';
import { graphql, type ResultOf, readFragment } from './graphql.js';

/** Who the caller is: what both editions answer. */
const ViewerBasics = graphql(`fragment ViewerBasics on Viewer { id login kind orgId orgRole isServiceAdmin }`);

const VIEWER_QUERY = graphql(
  `query ConsoleViewer {
    viewer { ...ViewerBasics permissions { action scope } }
  }`,
  [ViewerBasics],
);

const VIEWER_BASICS_QUERY = graphql(`query ConsoleViewerBasics { viewer { ...ViewerBasics } }`, [ViewerBasics]);

/** The signed-in caller with its effective permissions (on the oss edition, the ones its org role implies). */
export type ViewerInfo = ResultOf<typeof ViewerBasics> & { permissions: Held[] };

/** An organization of the signed-in user (GET /api/user/orgs). */
export interface OrgOfUser {
  orgId: number;
  name: string;
  role: string;
}

export interface Session {
  /** Still loading: nothing is known yet. */
  loading: boolean;
  viewer: ViewerInfo | null;
  access: Access;
  orgs: OrgOfUser[];
  /**
   * False on a server of the oss edition (EDITION=oss): its GraphQL has no RBAC fields, so the
   * console offers only what the oss rules allow (API keys for org Admins).
   */
  rbac: boolean;
  /** A failure other than "not signed in" (server down...). */
  error: string | null;
  /** Loads the caller again (after sign-in, an organization switch, a change of own roles). */
  reload(): Promise<void>;
  /** Acts in another organization from now on (the session's organization). */
  switchOrg(orgId: number): Promise<void>;
}

/**
 * The oss edition hides permissions; its one rule the console needs is Grafana OSS's for API
 * keys: org role Admin (src/modules/api-keys/service.ts `authorize`).
 */
function ossPermissions(orgRole: string): Held[] {
  if (orgRole !== 'Admin') return [];
  return [
    { action: 'apikey:read', scope: 'apikey:*' },
    { action: 'apikey:create', scope: '' },
    { action: 'apikey:delete', scope: 'apikey:*' },
  ];
}

const NOBODY = new Access([]);
const SessionContext = createContext<Session | null>(null);

/**
 * The caller from GraphQL `viewer`, with its permissions; on the oss edition (the server answers
 * ACCESS_CONTROL_UNAVAILABLE to `permissions`) the basics and the permissions its org role implies.
 */
function useViewerLoader(): () => Promise<{ viewer: ViewerInfo | null; rbac: boolean; error: CombinedError | undefined }> {
  const client = useClient();
  return useCallback(async () => {
    const full = await client.query(VIEWER_QUERY, {}).toPromise();
    if (errorCode(full.error) !== 'ACCESS_CONTROL_UNAVAILABLE') {
      const found = full.data?.viewer;
      const viewer = found && !full.error ? { ...readFragment(ViewerBasics, found), permissions: found.permissions } : null;
      return { viewer, rbac: true, error: full.error };
    }
    const basics = await client.query(VIEWER_BASICS_QUERY, {}).toPromise();
    const found = basics.data ? readFragment(ViewerBasics, basics.data.viewer) : null;
    const viewer = found && !basics.error ? { ...found, permissions: ossPermissions(found.orgRole) } : null;
    return { viewer, rbac: false, error: basics.error };
  }, [client]);
}

export function SessionProvider({ children }: { children: ComponentChildren }) {
  const loadViewer = useViewerLoader();
  const [state, setState] = useState<{
    loading: boolean;
    viewer: ViewerInfo | null;
    orgs: OrgOfUser[];
    rbac: boolean;
    error: string | null;
  }>({ loading: true, viewer: null, orgs: [], rbac: true, error: null });

  const reload = useCallback(async () => {
    const { viewer, rbac, error } = await loadViewer();
    if (error || !viewer) {
      const signedOut = isUnauthenticated(error);
      setState({ loading: false, viewer: null, orgs: [], rbac, error: signedOut ? null : errorMessage(error) });
      return;
    }
    // Only a user has organizations to switch between; a key or token is bound to one.
    const orgs = viewer.kind === 'user' ? await rest<OrgOfUser[]>('GET', '/api/user/orgs').catch(() => []) : [];
    setState({ loading: false, viewer, orgs, rbac, error: null });
  }, [loadViewer]);

  const switchOrg = useCallback(
    async (orgId: number) => {
      await rest('POST', `/api/user/using/${orgId}`);
      await reload();
    },
    [reload],
  );

  useEffect(() => {
    void reload();
  }, [reload]);

  const value = useMemo<Session>(
    () => ({ ...state, access: state.viewer ? new Access(state.viewer.permissions) : NOBODY, reload, switchOrg }),
    [state, reload, switchOrg],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

/** The session of the page. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

/**
 * The console's frame: GraphQL client, session, the header (organization switcher, who is signed
 * in, sign-out), the navigation (only the pages the caller may use), the page of the path and a
 * footer linking GraphiQL and the REST API reference.
 * Signed-out visitors land on the sign-in page, and come back where they were going.
 */
import { Provider } from '@urql/preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { createGraphqlClient, errorMessage } from './api.js';
import { offeredSections } from './nav.js';
import { Loading, Notice } from './notice.js';
import { AccessRequestsPage } from './pages/access-requests.js';
import { ApiKeysPage } from './pages/api-keys.js';
import { AssignmentsPage } from './pages/assignments.js';
import { BasicRolesPage } from './pages/basic-roles.js';
import { OrgsPage } from './pages/orgs.js';
import { OverviewPage } from './pages/overview.js';
import { ReviewPage } from './pages/review.js';
import { RoleEditorPage } from './pages/role-editor.js';
import { RolesPage } from './pages/roles.js';
import { SignInPage } from './pages/sign-in.js';
import { TeamPage } from './pages/team.js';
import { TeamsPage } from './pages/teams.js';
import { UserPage } from './pages/user.js';
import { UsersPage } from './pages/users.js';
import { WhyPage } from './pages/why.js';
import { CONSOLE_PATHS } from './paths.js';
import { SessionProvider, useSession } from './session.js';
import { Page } from './ui.js';

/** Links to these paths are routed in the page; any other (/logout, /graphql...) loads normally. */
const SCOPE = new RegExp(`^(${CONSOLE_PATHS.join('|')})([?#]|$)`);

export function App() {
  const client = useMemo(createGraphqlClient, []);
  return (
    <Provider value={client}>
      <LocationProvider scope={SCOPE}>
        <SessionProvider>
          <Shell />
        </SessionProvider>
      </LocationProvider>
    </Provider>
  );
}

function Shell() {
  const session = useSession();
  const { path, url, route } = useLocation();
  const signedOut = !session.loading && !session.viewer && !session.error;

  useEffect(() => {
    if (signedOut && path !== '/login') route(`/login?next=${encodeURIComponent(url)}`, true);
  }, [signedOut, path, url, route]);

  if (session.loading) return <Loading what="the console" />;
  if (session.error) {
    return (
      <main id="main" class="narrow">
        <Page title="The console cannot start">
          <Notice kind="error">{session.error}</Notice>
          <button type="button" onClick={() => void session.reload()}>
            Try again
          </button>
        </Page>
      </main>
    );
  }
  if (!session.viewer || path === '/login') {
    return (
      <main id="main" class="narrow">
        <SignInPage />
      </main>
    );
  }
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <Header />
      <Nav />
      <main id="main" tabIndex={-1} key={session.viewer.orgId}>
        <Router>
          <Route path="/" component={OverviewPage} />
          <Route path="/users" component={UsersPage} />
          <Route path="/users/edit" component={UserPage} />
          <Route path="/teams" component={TeamsPage} />
          <Route path="/teams/edit" component={TeamPage} />
          <Route path="/orgs" component={OrgsPage} />
          <Route path="/api-keys" component={ApiKeysPage} />
          <Route path="/roles" component={RolesPage} />
          <Route path="/roles/new" component={RoleEditorPage} />
          <Route path="/roles/edit" component={RoleEditorPage} />
          <Route path="/assignments" component={AssignmentsPage} />
          <Route path="/why" component={WhyPage} />
          <Route path="/review" component={ReviewPage} />
          <Route path="/basic-roles" component={BasicRolesPage} />
          <Route path="/access-requests" component={AccessRequestsPage} />
          <Route default component={NotFound} />
        </Router>
      </main>
      <Footer />
    </>
  );
}

/**
 * The service's other doors, for every signed-in user: GraphiQL (the GraphQL API in the
 * browser, signed in with this console's session) and the REST API reference (Swagger UI).
 * Outside the console's paths, so they load as pages of their own.
 */
function Footer() {
  return (
    <footer class="footer">
      <nav aria-label="APIs">
        <ul>
          <li>
            <a href="/graphql">GraphiQL</a>: try the GraphQL API
          </li>
          <li>
            <a href="/swagger">REST API reference</a>
          </li>
        </ul>
      </nav>
    </footer>
  );
}

function Header() {
  const session = useSession();
  const viewer = session.viewer;
  const [error, setError] = useState<string | null>(null);
  if (!viewer) return null;
  const current = session.orgs.find((o) => o.orgId === viewer.orgId);
  return (
    <header class="topbar">
      <a class="brand" href="/">
        portcullis
      </a>
      <div class="topbar-tools">
        {session.orgs.length > 1 ? (
          <OrgSwitch key={viewer.orgId} current={viewer.orgId} onError={setError} />
        ) : (
          current && <span class="org-name">{current.name}</span>
        )}
        <span class="who">
          {viewer.login}
          <span class="badge">{viewer.isServiceAdmin ? 'Service Admin' : viewer.orgRole}</span>
        </span>
        <a class="signout" href="/logout">
          Sign out
        </a>
      </div>
      {error && <Notice kind="error">{error}</Notice>}
    </header>
  );
}

/**
 * The organization switcher: choosing in the list changes nothing until "Switch" is pressed.
 * Switching replaces the whole page, so it must not happen on a mere change of the choice: arrow
 * keys move through a closed `<select>` one option at a time and fire `change` at each (WCAG
 * 3.2.2 On Input). Keyed by the current organization, so the choice starts from it again after a
 * switch. The button stays enabled while a switch runs (a disabled button would drop the focus
 * it has); a second press meanwhile is ignored.
 */
function OrgSwitch({ current, onError }: { current: number; onError: (message: string | null) => void }) {
  const session = useSession();
  const [choice, setChoice] = useState(String(current));
  const busy = useRef(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    onError(null);
    const orgId = Number(choice);
    if (orgId === current || busy.current) return;
    busy.current = true;
    await session.switchOrg(orgId).catch((err: unknown) => onError(errorMessage(err)));
    busy.current = false;
  };
  return (
    <form class="org-switch" onSubmit={submit}>
      <label for="org-switch">Organization</label>
      <select id="org-switch" value={choice} onChange={(e) => setChoice(e.currentTarget.value)}>
        {session.orgs.map((o) => (
          <option key={o.orgId} value={String(o.orgId)}>
            {o.name} ({o.role})
          </option>
        ))}
      </select>
      <button type="submit" class="secondary">
        Switch
      </button>
    </form>
  );
}

function Nav() {
  const { access, rbac } = useSession();
  const { path } = useLocation();
  // A page under a section (/roles/edit, /users/edit, /teams/edit) marks its section current.
  const section = `/${path.split('/')[1] ?? ''}`;
  return (
    <nav class="nav" aria-label="Console">
      <ul>
        {offeredSections(access, rbac).map((n) => (
          <li key={n.path}>
            <a href={n.path} aria-current={section === n.path ? 'page' : undefined}>
              {n.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function NotFound() {
  return (
    <Page title="Page not found">
      <p>
        This page does not exist. Go to the <a href="/">overview</a>.
      </p>
    </Page>
  );
}

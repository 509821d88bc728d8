/** Overview: who is signed in, where, with which roles, and the sections this caller may use. */

import { KindTag, plural, roleTitle } from '../format.js';
import { graphql } from '../graphql.js';
import { offeredSections } from '../nav.js';
import { Loading, Notice } from '../notice.js';
import { useSession } from '../session.js';
import { Page, QueryError, useGraphql } from '../ui.js';

const QUERY = graphql(`query ConsoleOverview {
  viewer { roles { uid name displayName } teams { id name } }
}`);

export function OverviewPage() {
  const { viewer, access, orgs, rbac } = useSession();
  const { data, error, fetching } = useGraphql(QUERY, {}, !rbac);
  if (!viewer) return null;
  const org = orgs.find((o) => o.orgId === viewer.orgId)?.name ?? `organization ${viewer.orgId}`;
  return (
    <Page title="Overview">
      <p>
        Signed in as <strong>{viewer.login}</strong> in <strong>{org}</strong> with the org role <strong>{viewer.orgRole}</strong>
        {viewer.isServiceAdmin && ', and Service Admin of this server'}.
        {rbac && ` You hold ${plural(viewer.permissions.length, 'permission')}.`}
      </p>
      {!rbac && (
        <Notice kind="info">
          This server runs the oss edition: role-based access control is off, so roles, assignments and permission checks are not available.
          Org Admins manage the API keys.
        </Notice>
      )}
      <QueryError error={error} />
      {!data && fetching && <Loading what="your roles" />}
      {data && (
        <section aria-labelledby="own-roles">
          <h2 id="own-roles">Your roles</h2>
          <ul class="chips">
            {data.viewer.roles.map((r) => (
              <li key={r.uid}>
                <KindTag name={r.name} /> {roleTitle(r)}
              </li>
            ))}
          </ul>
          {data.viewer.teams.length > 0 && <p>Your teams: {data.viewer.teams.map((t) => t.name).join(', ')}.</p>}
        </section>
      )}
      <section aria-labelledby="sections">
        <h2 id="sections">What you can do here</h2>
        <ul class="cards">
          {offeredSections(access, rbac)
            .filter((s) => s.path !== '/')
            .map((s) => (
              <li key={s.path} class="card">
                <h3>
                  <a href={s.path}>{s.label}</a>
                </h3>
                <p>{s.description}</p>
              </li>
            ))}
        </ul>
      </section>
    </Page>
  );
}

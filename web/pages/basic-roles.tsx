/**
 * Basic roles: what Viewer, Editor, Admin and Service Admin hold (an org role brings its basic
 * role): each one's own permissions and, beside them, the roles products registered for it
 * (`grantedRoles`, inheritance included), and, for holders of roles:write on
 * permissions:type:escalate, the reset that restores every basic role's default permissions
 * (`resetBasicRoles`; product grants stay).
 */
import { useMutation } from '@urql/preact';
import { useState } from 'preact/hooks';
import { ESCALATE } from '../access.js';
import { ConfirmButton } from '../dialogs.js';
import { permissionText, plural, RoleName, roleTitle } from '../format.js';
import { graphql, readFragment } from '../graphql.js';
import { Loading, NotAllowed, NotInEdition, Notice } from '../notice.js';
import { useSession } from '../session.js';
import { Page, QueryError, useGraphql } from '../ui.js';
import { PermissionTable, RoleFields } from './roles.js';

const QUERY = graphql(
  `query ConsoleBasicRoles {
    roles(includeHidden: true) { ...RoleFields grantedRoles { uid name permissions { action scope } } }
  }`,
  [RoleFields],
);
const RESET = graphql(`mutation ConsoleResetBasicRoles { resetBasicRoles(basicRoles: true) { message } }`);

const ORDER = ['basic:viewer', 'basic:editor', 'basic:admin', 'basic:service_admin'];

export function BasicRolesPage() {
  const { access, rbac } = useSession();
  const canRead = access.can('roles:read', 'roles:*');
  const { data, error, fetching, refresh } = useGraphql(QUERY, {}, !canRead);
  const [, reset] = useMutation(RESET);
  const [done, setDone] = useState<string | null>(null);

  if (!rbac || !canRead) {
    return (
      <Page title="Basic roles">
        {rbac ? <NotAllowed what="list roles" needs="roles:read on roles:*" /> : <NotInEdition what="Roles" />}
      </Page>
    );
  }
  // Each role with the roles products registered for it (empty unless it is a basic role).
  const basics = (data?.roles ?? [])
    .map((r) => ({ ...readFragment(RoleFields, r), grantedRoles: r.grantedRoles }))
    .filter((r) => r.name.startsWith('basic:'))
    .sort((a, b) => (ORDER.indexOf(a.name) + 1 || 99) - (ORDER.indexOf(b.name) + 1 || 99));

  return (
    <Page
      title="Basic roles"
      intro="Each member's org role brings the basic role of the same name: Viewer, Editor or Admin. Service Admins also hold Service Admin."
    >
      {done && <Notice kind="status">{done}</Notice>}
      {access.can('roles:write', ESCALATE) && (
        <div class="card">
          <h2>Reset</h2>
          <p>Restore the default permissions of every basic role. Changes made to basic roles are lost; product grants are kept.</p>
          <ConfirmButton
            class="danger"
            title="Reset every basic role?"
            question="Viewer, Editor, Admin and Service Admin get their default permissions back. Members' permissions change at once."
            confirmLabel="Reset basic roles"
            onOpen={() => setDone(null)}
            onConfirm={() => reset({})}
            onDone={() => {
              setDone('Every basic role has its default permissions again.');
              refresh();
            }}
          >
            Reset basic roles
          </ConfirmButton>
        </div>
      )}
      <QueryError error={error} />
      {!data && fetching && <Loading what="basic roles" />}
      {basics.map((r) => (
        <section key={r.uid} aria-labelledby={`basic-${r.uid}`} class="card">
          <h2 id={`basic-${r.uid}`}>
            <RoleName role={r} />
          </h2>
          {r.description && <p>{r.description}</p>}
          <details class="role-permissions">
            <summary>
              {plural(r.permissions.length, 'permission')} <span class="visually-hidden">of {roleTitle(r)}</span>
            </summary>
            <PermissionTable permissions={r.permissions} caption={`Permissions of ${r.name}`} />
          </details>
          {r.grantedRoles.length > 0 && (
            <>
              <h3 id={`granted-${r.uid}`}>Granted by products</h3>
              <p class="muted">
                Holders of {roleTitle(r)} also get these registered roles. They are not part of its own permissions; a reset keeps them.
              </p>
              <ul aria-labelledby={`granted-${r.uid}`}>
                {r.grantedRoles.map((g) => (
                  <li key={g.uid}>
                    <span class="mono">{g.name}</span>:{' '}
                    {g.permissions.length > 0 ? g.permissions.map(permissionText).join(', ') : 'no permissions'}
                  </li>
                ))}
              </ul>
            </>
          )}
        </section>
      ))}
    </Page>
  );
}

/**
 * Basic roles: what Viewer, Editor, Admin and Service Admin hold (an org role brings its basic
 * role), and, for holders of roles:write on permissions:type:escalate, the reset that restores
 * every basic role's default permissions (`resetBasicRoles`).
 */
import { useMutation } from '@urql/preact';
import { useState } from 'preact/hooks';
import { ESCALATE } from '../access.js';
import { useSession } from '../session.js';
import { ConfirmButton, Loading, NotAllowed, Notice, Page, plural, QueryError, roleTitle, useGraphql } from '../ui.js';
import { PermissionTable, ROLE_FIELDS, type RoleRow } from './roles.js';

const QUERY = `query ConsoleBasicRoles { roles(includeHidden: true) { ${ROLE_FIELDS} } }`;
const RESET = `mutation ConsoleResetBasicRoles { resetBasicRoles(basicRoles: true) { message } }`;

const ORDER = ['basic:viewer', 'basic:editor', 'basic:admin', 'basic:service_admin'];

export function BasicRolesPage() {
  const { access } = useSession();
  const canRead = access.can('roles:read', 'roles:*');
  const { data, error, fetching, refresh } = useGraphql<{ roles: RoleRow[] }>(QUERY, {}, !canRead);
  const [, reset] = useMutation(RESET);
  const [done, setDone] = useState<string | null>(null);

  if (!canRead) {
    return (
      <Page title="Basic roles">
        <NotAllowed what="list roles" needs="roles:read on roles:*" />
      </Page>
    );
  }
  const basics = (data?.roles ?? [])
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
            {roleTitle(r)} <span class="mono muted">{r.name}</span>
          </h2>
          {r.description && <p>{r.description}</p>}
          <details>
            <summary>
              {plural(r.permissions.length, 'permission')} <span class="visually-hidden">of {roleTitle(r)}</span>
            </summary>
            <PermissionTable permissions={r.permissions} caption={`Permissions of ${r.name}`} />
          </details>
        </section>
      ))}
    </Page>
  );
}

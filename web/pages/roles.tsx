/**
 * Roles: every role the caller may read (global and this organization's, hidden ones included),
 * filtered by kind (basic, fixed, custom, product) and by text, each with its permissions. Custom
 * roles can be edited and deleted by holders of roles:write / roles:delete (delegate or escalate);
 * deleting an assigned role asks again and then deletes it with its assignments (force). On a
 * server of the oss edition there are no roles: the page says so.
 */
import { useMutation } from '@urql/preact';
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { errorCode } from '../api.js';
import { ConfirmDialog, landFocus } from '../dialogs.js';
import { Segmented, TextField } from '../fields.js';
import { KindTag, plural, type RoleKind, RoleName, roleKind, roleTitle } from '../format.js';
import { graphql, type ResultOf, readFragment } from '../graphql.js';
import { Loading, NotAllowed, NotInEdition, Notice } from '../notice.js';
import { useSession } from '../session.js';
import { Page, QueryError, useGraphql } from '../ui.js';

/** A role's fields as the pages that list or edit roles show them (read with `readFragment`). */
export const RoleFields = graphql(`
  fragment RoleFields on Role { uid name displayName description group global version permissions { action scope } }
`);

/** A role as the role pages show it. */
export type RoleRow = ResultOf<typeof RoleFields>;

const QUERY = graphql(`query ConsoleRoles { roles(includeHidden: true) { ...RoleFields } }`, [RoleFields]);
const DELETE = graphql(`mutation ConsoleDeleteRole($uid: String!, $global: Boolean, $force: Boolean) {
  deleteRole(uid: $uid, global: $global, force: $force) { message }
}`);

const KINDS: { value: RoleKind | 'all'; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'custom', label: 'Custom' },
  { value: 'fixed', label: 'Fixed' },
  { value: 'product', label: 'Product' },
  { value: 'basic', label: 'Basic' },
];

/** A role's permissions as a table. */
export function PermissionTable({ permissions, caption }: { permissions: readonly { action: string; scope: string }[]; caption: string }) {
  if (permissions.length === 0) return <p>No permissions.</p>;
  // Two narrow columns fit a phone as they are: no stacking.
  return (
    <table class="compact">
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Action</th>
          <th scope="col">Scope</th>
        </tr>
      </thead>
      <tbody>
        {permissions.map((p) => (
          <tr key={`${p.action} ${p.scope}`}>
            <td data-label="Action" class="mono">
              {p.action}
            </td>
            <td data-label="Scope" class="mono">
              {p.scope || '(none)'}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function RolesPage() {
  const { access, viewer, rbac } = useSession();
  const { query } = useLocation();
  const canRead = access.can('roles:read', 'roles:*');
  const { data, error, fetching, refresh } = useGraphql(QUERY, {}, !canRead);
  const [kind, setKind] = useState<RoleKind | 'all'>('all');
  const [text, setText] = useState('');
  const [deleting, setDeleting] = useState<{ role: RoleRow; force: boolean } | null>(null);
  const [done, setDone] = useState<string | null>(query.saved ? 'Role saved.' : null);
  const [, deleteRole] = useMutation(DELETE);

  if (!rbac || !canRead) {
    return (
      <Page title="Roles">{rbac ? <NotAllowed what="list roles" needs="roles:read on roles:*" /> : <NotInEdition what="Roles" />}</Page>
    );
  }
  const canWrite = access.canManage('roles:write');
  const canDelete = access.canManage('roles:delete');
  const editable = (r: RoleRow) => roleKind(r.name) === 'custom' && (!r.global || viewer?.isServiceAdmin === true);
  const needle = text.trim().toLowerCase();
  const all = readFragment(RoleFields, data?.roles ?? []);
  const roles = all
    .filter((r) => kind === 'all' || roleKind(r.name) === kind)
    .filter(
      (r) =>
        !needle ||
        r.name.toLowerCase().includes(needle) ||
        r.displayName.toLowerCase().includes(needle) ||
        r.permissions.some((p) => p.action.includes(needle)),
    )
    .sort((a, b) => roleTitle(a).localeCompare(roleTitle(b)));

  /** Deletes the role; when it is still assigned, asks again before deleting it with its assignments (force). */
  const runDelete = async () => {
    if (!deleting) return {};
    const { role, force } = deleting;
    const result = await deleteRole({ uid: role.uid, global: role.global, force });
    if (errorCode(result.error) === 'ROLE_ASSIGNED' && !force) {
      setDeleting({ role, force: true });
      return {};
    }
    if (!result.error) {
      setDeleting(null);
      setDone(`Role “${roleTitle(role)}” deleted.`);
      refresh();
      // Its Delete button goes with it: focus lands on the notice saying it is gone.
      landFocus(null, { prefer: 'notice', within: 'section[aria-labelledby]' });
    }
    return result;
  };

  return (
    <Page
      title="Roles"
      intro="A role is a named set of permissions (an action, optionally on a scope). Assign roles on the Assignments page."
    >
      {done && <Notice kind="status">{done}</Notice>}
      <div class="toolbar">
        <Segmented legend="Kind" name="role-kind" value={kind} onValue={setKind} choices={KINDS} />
        <TextField id="role-filter" label="Filter by name or action" type="search" value={text} onValue={setText} />
        {canWrite && (
          <a class="button" href="/roles/new">
            New custom role
          </a>
        )}
      </div>
      <QueryError error={error} />
      {!data && fetching && <Loading what="roles" />}
      {data && (
        <p class="hint" role="status">
          {roles.length} of {plural(all.length, 'role')} shown.
        </p>
      )}
      <ul class="role-list">
        {roles.map((r) => (
          <li key={`${r.global}-${r.uid}`}>
            <details open={query.saved === r.uid}>
              <summary>
                <KindTag name={r.name} />
                <RoleName role={r} />
                {r.global ? <span class="badge">global</span> : <span class="badge">this organization</span>}
              </summary>
              <div class="role-body">
                {r.description && <p>{r.description}</p>}
                <p class="hint">
                  uid <span class="mono">{r.uid}</span> · version {r.version}
                  {r.group && ` · group ${r.group}`}
                </p>
                <PermissionTable permissions={r.permissions} caption={`Permissions of ${r.name}`} />
                {editable(r) && (canWrite || canDelete) && (
                  <p class="actions">
                    {canWrite && (
                      <a class="button secondary" href={`/roles/edit?uid=${encodeURIComponent(r.uid)}`}>
                        Edit <span class="visually-hidden">{r.name}</span>
                      </a>
                    )}
                    {canDelete && (
                      <button
                        type="button"
                        class="danger"
                        onClick={() => {
                          setDone(null);
                          setDeleting({ role: r, force: false });
                        }}
                      >
                        Delete <span class="visually-hidden">{r.name}</span>
                      </button>
                    )}
                  </p>
                )}
              </div>
            </details>
          </li>
        ))}
      </ul>
      {deleting && (
        <ConfirmDialog
          title={deleting.force ? 'The role is assigned' : `Delete role “${roleTitle(deleting.role)}”?`}
          confirmLabel={deleting.force ? 'Delete role and its assignments' : 'Delete role'}
          onConfirm={runDelete}
          onCancel={() => setDeleting(null)}
        >
          {deleting.force ? (
            <p>
              “{deleting.role.name}” is assigned to users, teams or service accounts. Deleting it also removes those assignments, and they
              lose its permissions at once.
            </p>
          ) : (
            <p>Users, teams and service accounts holding it lose its permissions. This cannot be undone.</p>
          )}
        </ConfirmDialog>
      )}
    </Page>
  );
}

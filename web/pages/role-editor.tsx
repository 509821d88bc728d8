/**
 * Create (`/roles/new`) or edit (`/roles/edit?uid=...`) a custom role: name, display name,
 * description, group, and its permissions picked from the known actions (`actions`), with the
 * scopes the caller holds for an action as suggestions. The version is handled here: an update
 * sends the loaded version + 1, and if someone else saved meanwhile the server's conflict is
 * explained with a way to reload. Permissions the caller does not hold are marked (the server
 * refuses them unless the caller holds roles:write on permissions:type:escalate). Before saving an
 * edit, a caller holding access:simulate may preview who would gain and lose what (change-preview.tsx).
 */
import { useMutation } from '@urql/preact';
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ESCALATE } from '../access.js';
import { errorCode, errorMessage } from '../api.js';
import { ChangePreview } from '../change-preview.js';
import { Field, TextField } from '../fields.js';
import { roleKind } from '../format.js';
import { graphql, readFragment } from '../graphql.js';
import { Loading, NotAllowed, NotInEdition, Notice } from '../notice.js';
import { useSession } from '../session.js';
import { Page, QueryError, useGraphql } from '../ui.js';
import { RoleFields } from './roles.js';

const QUERY = graphql(
  `query ConsoleRoleEditor($uid: String!, $edit: Boolean!) {
    role(uid: $uid) @include(if: $edit) { ...RoleFields }
    actions { action }
  }`,
  [RoleFields],
);
const CREATE = graphql(`mutation ConsoleCreateRole($input: CreateRoleInput!) { createRole(input: $input) { uid } }`);
const UPDATE = graphql(
  `mutation ConsoleUpdateRole($uid: String!, $input: UpdateRoleInput!) { updateRole(uid: $uid, input: $input) { uid version } }`,
);

const MAX_VERSION = 2_147_483_647;

/** A permission being edited (no scope: ""). */
interface Perm {
  action: string;
  scope: string;
}

export function RoleEditorPage() {
  const { access, viewer, rbac } = useSession();
  const { query, path, route } = useLocation();
  const uid = path === '/roles/edit' ? (query.uid ?? '') : '';
  const editing = uid !== '';
  const allowed = rbac && access.can('roles:read', 'roles:*') && access.canManage('roles:write');
  const { data, error, fetching, refresh } = useGraphql(QUERY, { uid, edit: editing }, !allowed);
  const [, createRole] = useMutation(CREATE);
  const [, updateRole] = useMutation(UPDATE);

  const [name, setName] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [description, setDescription] = useState('');
  const [group, setGroup] = useState('');
  const [global, setGlobal] = useState(false);
  const [permissions, setPermissions] = useState<Perm[]>([]);
  const [action, setAction] = useState('');
  const [scope, setScope] = useState('');
  const [pickError, setPickError] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<{ message: string; conflict: boolean } | null>(null);
  const [busy, setBusy] = useState(false);

  const loaded = readFragment(RoleFields, data?.role);
  useEffect(() => {
    if (!loaded) return;
    setName(loaded.name);
    setDisplayName(loaded.displayName);
    setDescription(loaded.description);
    setGroup(loaded.group);
    setGlobal(loaded.global);
    setPermissions(loaded.permissions.map((p) => ({ action: p.action, scope: p.scope })));
    setSaveError(null);
  }, [loaded]);

  const title = editing ? 'Edit role' : 'New custom role';
  if (!allowed) {
    return (
      <Page title={title}>
        {rbac ? <NotAllowed what="create or edit roles" needs="roles:write on permissions:type:delegate" /> : <NotInEdition what="Roles" />}
      </Page>
    );
  }
  if (editing && !data && fetching) return <Loading what="the role" />;
  if (loaded && roleKind(loaded.name) !== 'custom') {
    return (
      <Page title={title}>
        <Notice kind="info">“{loaded.name}” is a built-in role: it cannot be edited here.</Notice>
      </Page>
    );
  }

  const known = new Set((data?.actions ?? []).map((a) => a.action));
  const escalates = access.can('roles:write', ESCALATE);
  const held = (p: Perm) => (p.scope === '' ? access.can(p.action) : access.can(p.action, p.scope));

  const add = () => {
    const next = { action: action.trim(), scope: scope.trim() };
    if (!next.action) {
      setPickError('Choose an action.');
      return;
    }
    if (permissions.some((p) => p.action === next.action && p.scope === next.scope)) {
      setPickError('The role already has this permission.');
      return;
    }
    setPickError(null);
    setPermissions([...permissions, next]);
    setAction('');
    setScope('');
    document.getElementById('perm-action')?.focus();
  };

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setSaveError(null);
    const common = {
      name: name.trim(),
      displayName: displayName.trim(),
      description: description.trim(),
      group: group.trim(),
      permissions,
    };
    const result =
      editing && loaded
        ? await updateRole({ uid, input: { ...common, version: Math.min(loaded.version + 1, MAX_VERSION) } })
        : await createRole({ input: { ...common, ...(global && { global: true }) } });
    setBusy(false);
    if (result.error) {
      const conflict = errorCode(result.error) === 'ROLE_VERSION_CONFLICT';
      setSaveError({
        message: conflict
          ? 'Someone saved this role while you were editing it. Reload it to see their version (your changes here are lost), then edit again.'
          : errorMessage(result.error),
        conflict,
      });
      return;
    }
    const saved = result.data && 'createRole' in result.data ? result.data.createRole.uid : uid;
    route(`/roles?saved=${encodeURIComponent(saved)}`);
  };

  return (
    <Page
      title={title}
      intro={
        editing ? undefined : 'A custom role holds the permissions you pick; assign it to users, teams or service accounts afterwards.'
      }
    >
      <QueryError error={error} />
      <form class="stack" onSubmit={save}>
        <div class="form-grid card">
          <TextField
            id="role-name"
            label="Name"
            hint="Unique; not beginning with fixed:, basic: or plugins:."
            required
            maxLength={190}
            placeholder="custom:team-reader"
            value={name}
            onValue={setName}
          />
          <TextField id="role-display" label="Display name" maxLength={190} value={displayName} onValue={setDisplayName} />
          <TextField id="role-group" label="Group" maxLength={190} value={group} onValue={setGroup} />
          <Field id="role-description" label="Description" wide>
            <textarea id="role-description" rows={2} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
          </Field>
          {!editing && viewer?.isServiceAdmin && (
            <div class="field field-wide">
              <label class="check">
                <input type="checkbox" checked={global} onChange={(e) => setGlobal(e.currentTarget.checked)} />
                Global role (available in every organization)
              </label>
            </div>
          )}
          {editing && loaded && (
            <p class="hint field-wide">
              Version {loaded.version}: saving makes it version {Math.min(loaded.version + 1, MAX_VERSION)}.
            </p>
          )}
        </div>

        <fieldset class="card">
          <legend>Permissions</legend>
          {permissions.length === 0 ? (
            <p>No permissions yet: add them below.</p>
          ) : (
            <ul class="perm-list">
              {permissions.map((p, i) => (
                <li key={`${p.action} ${p.scope}`}>
                  <span class="mono">{p.action}</span>
                  <span class="muted"> on </span>
                  <span class="mono">{p.scope || '(no scope)'}</span>
                  {!held(p) && !escalates && <span class="badge badge-warn">you do not hold this</span>}
                  {!known.has(p.action) && <span class="badge">not a known action</span>}
                  <button
                    type="button"
                    class="secondary small push-right"
                    aria-label={`Remove ${p.action}${p.scope ? ` on ${p.scope}` : ''}`}
                    onClick={() => setPermissions(permissions.filter((_, j) => j !== i))}
                  >
                    Remove
                  </button>
                </li>
              ))}
            </ul>
          )}
          <div class="form-grid picker">
            <TextField
              id="perm-action"
              label="Action"
              hint={`${known.size} known actions: type to search them.`}
              autocomplete="off"
              placeholder="teams:read"
              value={action}
              onValue={setAction}
              suggest={{ id: 'known-actions', values: [...known].sort() }}
            />
            <TextField
              id="perm-scope"
              label="Scope (optional)"
              hint={
                <>
                  Empty for none; <code>*</code> only at the end, after <code>:</code>.
                </>
              }
              autocomplete="off"
              placeholder="teams:*"
              value={scope}
              onValue={setScope}
              suggest={{ id: 'scope-suggestions', values: access.scopesOf(action.trim()) }}
            />
            <div class="field field-end">
              <button type="button" class="secondary" onClick={add}>
                Add permission
              </button>
            </div>
          </div>
          {pickError && <Notice kind="error">{pickError}</Notice>}
        </fieldset>

        {editing && access.can('access:simulate') && (
          <ChangePreview changes={() => [{ kind: 'ROLE_PERMISSIONS', roleUid: uid, permissions }]} />
        )}
        {saveError && (
          <Notice kind="error">
            {saveError.message}{' '}
            {saveError.conflict && (
              <button type="button" class="secondary small" onClick={refresh}>
                Reload the role
              </button>
            )}
          </Notice>
        )}
        <p class="actions">
          <button type="submit" disabled={busy}>
            {editing ? 'Save role' : 'Create role'}
          </button>
          <a class="button secondary" href="/roles">
            Cancel
          </a>
        </p>
      </form>
    </Page>
  );
}

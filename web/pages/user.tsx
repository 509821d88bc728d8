/**
 * One user (`/users/edit?id=<id>`): its details, edited with `updateUser` (users:write on
 * global.users:id:<id>); its org role in this organization, changed with `updateOrgUserRole`
 * (org.users:write on users:id:<id>, at most the caller's own role) or removed from the
 * organization with `removeOrgUser` (org.users:remove); its teams and a link to its roles; and
 * the account's controls (user-account.tsx). Each control shows only when the caller's
 * permissions allow it, with the server's rule for another account (people.ts `mayControl`).
 */
import { useMutation } from '@urql/preact';
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { errorMessage } from '../api.js';
import { ConfirmButton } from '../dialogs.js';
import { SelectField, TextField } from '../fields.js';
import { graphql, type ResultOf } from '../graphql.js';
import { Loading, Notice } from '../notice.js';
import { useSession } from '../session.js';
import { Page, QueryError, useGraphql } from '../ui.js';
import { givableOrgRoles, mayControl, type OrgRoleName } from './people.js';
import { AccountControls } from './user-account.js';

const QUERY = graphql(`query ConsoleUser($id: Int!, $perms: Boolean!, $teams: Boolean!) {
  user(id: $id) {
    id login name email isDisabled isServiceAdmin
    orgs { orgId role }
    permissions @include(if: $perms) { action scope }
    teams @include(if: $teams) { id name }
  }
}`);

const UPDATE = graphql(`mutation ConsoleUpdateUser($id: Int!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { id } }`);
const ORG_ROLE = graphql(`mutation ConsoleOrgRole($orgId: Int!, $userId: Int!, $role: OrgRole!) {
  updateOrgUserRole(orgId: $orgId, userId: $userId, role: $role) { role }
}`);
const REMOVE = graphql(`mutation ConsoleRemoveOrgUser($orgId: Int!, $userId: Int!) {
  removeOrgUser(orgId: $orgId, userId: $userId) { message }
}`);

/** The user as the page shows it. */
export type UserDetail = ResultOf<typeof QUERY>['user'];

export function UserPage() {
  const { access, viewer } = useSession();
  const { query } = useLocation();
  const id = Number(query.id ?? 0) || 0;
  const variables = {
    id,
    perms: access.can('users.permissions:read', `users:id:${id}`),
    teams: access.can('teams:read'),
  };
  const { data, error, fetching, refresh } = useGraphql(QUERY, variables, id === 0);
  const [done, setDone] = useState<string | null>(null);
  // Set once the user is deleted or left this organization: the page no longer asks for it.
  const [gone, setGone] = useState(false);
  const said = (message: string, left = false) => {
    setDone(message);
    if (left) setGone(true);
    else refresh();
  };
  const user = gone ? undefined : data?.user;
  const orgId = viewer?.orgId ?? 0;
  const member = user?.orgs.find((o) => o.orgId === orgId);

  return (
    <Page title={user ? `User ${user.login}` : 'User'}>
      <p>
        <a href="/users">All users</a>
      </p>
      {id === 0 && <Notice kind="info">Choose a user on the Users page.</Notice>}
      {done && <Notice kind="status">{done}</Notice>}
      {!gone && <QueryError error={error} />}
      {!data && fetching && <Loading what="the user" />}
      {user && (
        <>
          <Profile key={`${user.id}-${user.login}-${user.email}-${user.name}`} user={user} onSaved={said} />
          <section aria-labelledby="membership-heading">
            <h2 id="membership-heading">In this organization</h2>
            {member ? (
              <OrgRole key={member.role} user={user} orgId={orgId} role={member.role} onChanged={said} />
            ) : (
              <p>{user.login} is not a member of this organization.</p>
            )}
            {user.teams && <p>{user.teams.length === 0 ? 'Member of no team.' : `Teams: ${user.teams.map((t) => t.name).join(', ')}.`}</p>}
            {(access.can('users.roles:read', `users:id:${user.id}`) || variables.perms) && (
              <p>
                <a href={`/assignments?user=${user.id}`}>Roles and permissions of {user.login}</a>
              </p>
            )}
          </section>
          <AccountControls user={user} onChanged={said} />
        </>
      )}
    </Page>
  );
}

/** Login, email and name: a form for those who may write them, else the values. */
function Profile({ user, onSaved }: { user: UserDetail; onSaved: (message: string) => void }) {
  const { access, viewer } = useSession();
  const [, update] = useMutation(UPDATE);
  const [login, setLogin] = useState(user.login);
  const [email, setEmail] = useState(user.email);
  const [name, setName] = useState(user.name);
  const [error, setError] = useState<string | null>(null);
  const editable = access.can('users:write', `global.users:id:${user.id}`) && mayControl(access, viewer, user);
  useEffect(() => setError(null), [user]);

  if (!editable) {
    return (
      <section aria-labelledby="profile-heading">
        <h2 id="profile-heading">Details</h2>
        <dl class="facts">
          <dt>Login</dt>
          <dd>{user.login}</dd>
          <dt>Email</dt>
          <dd class="break">{user.email}</dd>
          <dt>Name</dt>
          <dd>{user.name || '(none)'}</dd>
        </dl>
      </section>
    );
  }
  const submit = async (e: Event) => {
    e.preventDefault();
    const result = await update({ id: user.id, input: { login: login.trim(), email: email.trim(), name: name.trim() } });
    if (result.error) setError(errorMessage(result.error));
    else onSaved(`User “${login.trim()}” saved.`);
  };
  return (
    <section aria-labelledby="profile-heading">
      <h2 id="profile-heading">Details</h2>
      <form class="card form-grid" onSubmit={submit} aria-label={`Details of ${user.login}`}>
        <TextField id="user-login" label="Login" required maxLength={190} value={login} onValue={setLogin} />
        <TextField id="user-email" label="Email" type="email" required value={email} onValue={setEmail} />
        <TextField id="user-name" label="Name" value={name} onValue={setName} />
        <div class="field field-end">
          <button type="submit">Save details</button>
        </div>
        {error && <Notice kind="error">{error}</Notice>}
      </form>
    </section>
  );
}

/** The member's org role here: a choice and Change for those who may, and removal from the organization. */
function OrgRole(props: { user: UserDetail; orgId: number; role: string; onChanged: (message: string, left?: boolean) => void }) {
  const { access, viewer } = useSession();
  const { user } = props;
  const [, setRole] = useMutation(ORG_ROLE);
  const [, remove] = useMutation(REMOVE);
  const [chosen, setChosen] = useState(props.role as OrgRoleName);
  const [error, setError] = useState<string | null>(null);
  const choices = givableOrgRoles(viewer);
  const writable = access.can('org.users:write', `users:id:${user.id}`) && (choices as string[]).includes(props.role);
  const removable = access.can('org.users:remove', `users:id:${user.id}`);

  const submit = async (e: Event) => {
    e.preventDefault();
    const result = await setRole({ orgId: props.orgId, userId: user.id, role: chosen });
    if (result.error) setError(errorMessage(result.error));
    else props.onChanged(`${user.login} is now ${chosen} in this organization.`);
  };
  return (
    <>
      {writable ? (
        <form class="card form-grid" onSubmit={submit} aria-label={`Org role of ${user.login}`}>
          <SelectField id="user-org-role" label="Org role" value={chosen} onValue={setChosen} choices={choices} />
          <div class="field field-end">
            <button type="submit">Change org role</button>
          </div>
          {error && <Notice kind="error">{error}</Notice>}
        </form>
      ) : (
        <p>
          Org role: <strong>{props.role}</strong>.
        </p>
      )}
      {removable && (
        <ConfirmButton
          class="danger"
          title={`Remove ${user.login} from this organization?`}
          question="The user loses its org role, its roles and its teams here at once. The account itself stays."
          confirmLabel="Remove from organization"
          onConfirm={() => remove({ orgId: props.orgId, userId: user.id })}
          onDone={() => props.onChanged(`${user.login} removed from this organization.`, !viewer?.isServiceAdmin)}
        >
          Remove from organization
        </ConfirmButton>
      )}
    </>
  );
}

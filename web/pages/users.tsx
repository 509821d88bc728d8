/**
 * Users: the members of the organization the caller acts in, with their org role and state
 * (`orgUsers`, org.users:read), or for those with users:read on global.users:* every user of the
 * server (`userSearch`), searched by login, email or name as you type. Creating a user
 * (`createUser`, users:create) takes login, email, name, password and the org role in this
 * organization, at most the caller's own. Each login opens the user's page (user.tsx).
 */
import { useMutation } from '@urql/preact';
import { useState } from 'preact/hooks';
import { errorMessage } from '../api.js';
import { Segmented, SelectField, TextField } from '../fields.js';
import { graphql } from '../graphql.js';
import { Loading, NotAllowed, Notice } from '../notice.js';
import { useSession } from '../session.js';
import { Page, QueryError, useGraphql } from '../ui.js';
import { givableOrgRoles, type OrgRoleName } from './people.js';

const QUERY = graphql(`query ConsoleUsers($query: String, $org: Boolean!, $all: Boolean!) {
  orgUsers(query: $query, page: 1, perPage: 200) @include(if: $org) {
    role user { id login name email isDisabled isServiceAdmin }
  }
  userSearch(query: $query, perPage: 200) @include(if: $all) {
    totalCount users { id login name email isDisabled isServiceAdmin }
  }
}`);

const CREATE = graphql(`mutation ConsoleCreateUser($input: CreateUserInput!) { createUser(input: $input) { id login } }`);

type Scope = 'org' | 'all';

/** One row of the list: a user, with its org role here when listing the organization. */
interface Row {
  id: number;
  login: string;
  name: string;
  email: string;
  isDisabled: boolean;
  isServiceAdmin: boolean;
  role?: string;
}

export function UsersPage() {
  const { access } = useSession();
  const orgRead = access.can('org.users:read');
  const allRead = access.can('users:read', 'global.users:*');
  const [scope, setScope] = useState<Scope>(orgRead ? 'org' : 'all');
  const [text, setText] = useState('');
  const [done, setDone] = useState<{ message: string; id?: number } | null>(null);
  const query = text.trim() || null;
  const { data, error, fetching, refresh } = useGraphql(QUERY, { query, org: scope === 'org' && orgRead, all: scope === 'all' && allRead });
  const rows: Row[] = scope === 'org' ? (data?.orgUsers ?? []).map((m) => ({ ...m.user, role: m.role })) : (data?.userSearch?.users ?? []);

  if (!orgRead && !allRead) {
    return (
      <Page title="Users">
        <NotAllowed what="list users" needs="org.users:read" />
      </Page>
    );
  }
  return (
    <Page title="Users" intro="The people who sign in: their org role, whether they may sign in, and their details.">
      {done && (
        <Notice kind="status">
          {done.message} {done.id !== undefined && <a href={`/users/edit?id=${done.id}`}>Open the user</a>}
        </Notice>
      )}
      {access.can('users:create') && (
        <NewUser
          onCreated={(user) => {
            setDone({ message: `User “${user.login}” created.`, id: user.id });
            refresh();
          }}
        />
      )}
      <section aria-labelledby="users-heading">
        <h2 id="users-heading">{scope === 'org' ? 'Members of this organization' : 'Every user of the server'}</h2>
        <div class="toolbar">
          {orgRead && allRead && (
            <Segmented
              legend="List"
              name="user-scope"
              value={scope}
              onValue={setScope}
              choices={[
                { value: 'org', label: 'This organization' },
                { value: 'all', label: 'Every user' },
              ]}
            />
          )}
          <TextField id="user-search" label="Search by login, email or name" type="search" value={text} onValue={setText} />
        </div>
        <QueryError error={error} />
        {!data && fetching && <Loading what="users" />}
        {data && (rows.length === 0 ? <p>No user matches.</p> : <UserTable rows={rows} withRole={scope === 'org'} />)}
      </section>
    </Page>
  );
}

function UserTable({ rows, withRole }: { rows: readonly Row[]; withRole: boolean }) {
  return (
    <table class="responsive">
      <caption class="visually-hidden">Users</caption>
      <thead>
        <tr>
          <th scope="col">Login</th>
          <th scope="col">Name</th>
          <th scope="col">Email</th>
          {withRole && <th scope="col">Org role</th>}
          <th scope="col">State</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((u) => (
          <tr key={u.id}>
            <td data-label="Login">
              <a href={`/users/edit?id=${u.id}`}>{u.login}</a>
            </td>
            <td data-label="Name">{u.name}</td>
            <td data-label="Email" class="break">
              {u.email}
            </td>
            {withRole && <td data-label="Org role">{u.role}</td>}
            <td data-label="State">
              {u.isDisabled ? <span class="badge badge-warn">disabled</span> : 'Active'}
              {u.isServiceAdmin && <span class="badge">Service Admin</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The form creating a user in this organization. */
function NewUser({ onCreated }: { onCreated: (user: { id: number; login: string }) => void }) {
  const { viewer } = useSession();
  const roles = givableOrgRoles(viewer).filter((r) => r !== 'None');
  const [, create] = useMutation(CREATE);
  const [login, setLogin] = useState('');
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [orgRole, setOrgRole] = useState<OrgRoleName>('Viewer');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    const input = { login: login.trim(), email: email.trim(), password, orgRole, ...(name.trim() && { name: name.trim() }) };
    const result = await create({ input });
    setBusy(false);
    if (result.error || !result.data) {
      setError(errorMessage(result.error));
      return;
    }
    for (const reset of [setLogin, setEmail, setName, setPassword]) reset('');
    onCreated(result.data.createUser);
  };

  return (
    <form class="card form-grid" onSubmit={submit} aria-labelledby="new-user-heading">
      <h3 id="new-user-heading">New user</h3>
      <TextField id="new-user-login" label="Login" required maxLength={190} autocomplete="off" value={login} onValue={setLogin} />
      <TextField id="new-user-email" label="Email" type="email" required value={email} onValue={setEmail} />
      <TextField id="new-user-name" label="Name (optional)" value={name} onValue={setName} />
      <TextField
        id="new-user-password"
        label="Password"
        type="password"
        required
        minLength={4}
        autocomplete="new-password"
        value={password}
        onValue={setPassword}
      />
      <SelectField id="new-user-role" label="Org role" value={orgRole} onValue={setOrgRole} choices={roles} />
      <div class="field field-end">
        <button type="submit" disabled={busy}>
          Create user
        </button>
      </div>
      {error && <Notice kind="error">{error}</Notice>}
    </form>
  );
}

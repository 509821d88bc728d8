/**
 * Organizations, for those who read every one (orgs:read on orgs:*, a Service Admin's): each
 * organization, renamed with `updateOrganization` (orgs:write on orgs:id:<id>) or deleted with
 * `deleteOrganization` (orgs:delete on orgs:id:<id>; never the one the caller acts in), and a new
 * one created with `createOrganization` (orgs:create; the caller becomes its Admin).
 */
import { useMutation } from '@urql/preact';
import { useState } from 'preact/hooks';
import { errorMessage } from '../api.js';
import { ConfirmButton } from '../dialogs.js';
import { TextField } from '../fields.js';
import { graphql } from '../graphql.js';
import { Loading, NotAllowed, Notice } from '../notice.js';
import { useSession } from '../session.js';
import { Page, QueryError, useGraphql } from '../ui.js';

const QUERY = graphql(`query ConsoleOrgs { searchOrganizations(perPage: 1000) { id name } }`);
const CREATE = graphql(`mutation ConsoleCreateOrg($name: String!) { createOrganization(input: { name: $name }) { id name } }`);
const RENAME = graphql(
  `mutation ConsoleRenameOrg($id: Int!, $name: String!) { updateOrganization(id: $id, input: { name: $name }) { id } }`,
);
const DELETE = graphql(`mutation ConsoleDeleteOrg($id: Int!) { deleteOrganization(id: $id) { message } }`);

export function OrgsPage() {
  const session = useSession();
  const { access, viewer } = session;
  const readable = access.can('orgs:read', 'orgs:*');
  const { data, error, fetching, refresh } = useGraphql(QUERY, {}, !readable);
  const [done, setDone] = useState<string | null>(null);
  const [, remove] = useMutation(DELETE);
  const said = (message: string) => {
    setDone(message);
    refresh();
    // The organization switcher lists the caller's organizations: a new or renamed one shows there.
    void session.reload();
  };
  if (!readable) {
    return (
      <Page title="Organizations">
        <NotAllowed what="list every organization" needs="orgs:read on orgs:*" />
      </Page>
    );
  }
  return (
    <Page title="Organizations" intro="Organizations are the walls between tenants: each has its own members, teams, roles and keys.">
      {done && <Notice kind="status">{done}</Notice>}
      {access.can('orgs:create') && <NewOrg onCreated={(name) => said(`Organization “${name}” created; you are its Admin.`)} />}
      <QueryError error={error} />
      {!data && fetching && <Loading what="organizations" />}
      {data && (
        <ul class="assigned org-list">
          {data.searchOrganizations.map((o) => (
            <li key={o.id} class="card">
              <OrgRow org={o} onRenamed={(name) => said(`Organization ${o.id} renamed “${name}”.`)} />
              {o.id !== viewer?.orgId && access.can('orgs:delete', `orgs:id:${o.id}`) && (
                <ConfirmButton
                  class="danger small"
                  label={`Delete organization ${o.name}`}
                  title={`Delete organization “${o.name}”?`}
                  question="It is deleted with its members, teams, API keys, service accounts and roles. This cannot be undone."
                  confirmLabel="Delete organization"
                  onConfirm={() => remove({ id: o.id })}
                  onDone={() => said(`Organization “${o.name}” deleted.`)}
                >
                  Delete
                </ConfirmButton>
              )}
            </li>
          ))}
        </ul>
      )}
    </Page>
  );
}

/** An organization's name: a rename form for those who may, else the name. */
function OrgRow({ org, onRenamed }: { org: { id: number; name: string }; onRenamed: (name: string) => void }) {
  const { access } = useSession();
  const [, rename] = useMutation(RENAME);
  const [name, setName] = useState(org.name);
  const [error, setError] = useState<string | null>(null);
  if (!access.can('orgs:write', `orgs:id:${org.id}`)) return <span class="role-title">{org.name}</span>;
  const submit = async (e: Event) => {
    e.preventDefault();
    const result = await rename({ id: org.id, name: name.trim() });
    if (result.error) setError(errorMessage(result.error));
    else onRenamed(name.trim());
  };
  return (
    <form class="form-grid" onSubmit={submit} aria-label={`Name of organization ${org.name}`}>
      <TextField id={`org-${org.id}-name`} label={`Organization ${org.id}`} required maxLength={190} value={name} onValue={setName} />
      <div class="field field-end">
        <button type="submit" class="secondary" aria-label={`Rename organization ${org.name}`}>
          Rename
        </button>
      </div>
      {error && <Notice kind="error">{error}</Notice>}
    </form>
  );
}

function NewOrg({ onCreated }: { onCreated: (name: string) => void }) {
  const [, create] = useMutation(CREATE);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const result = await create({ name: name.trim() });
    if (result.error) {
      setError(errorMessage(result.error));
      return;
    }
    setName('');
    setError(null);
    onCreated(name.trim());
  };
  return (
    <form class="card form-grid" onSubmit={submit} aria-labelledby="new-org-heading">
      <h3 id="new-org-heading">New organization</h3>
      <TextField id="new-org-name" label="Name" required maxLength={190} value={name} onValue={setName} />
      <div class="field field-end">
        <button type="submit">Create organization</button>
      </div>
      {error && <Notice kind="error">{error}</Notice>}
    </form>
  );
}

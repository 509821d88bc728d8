/**
 * The service accounts part of the API key settings page (api-keys.tsx): each account with its
 * org role and tokens, forms to create an account and to add a token (its secret shown once),
 * and deletion of either after a question. Controls follow serviceaccounts:create, and
 * serviceaccounts:write / :delete on serviceaccounts:id:<id>.
 */
import { useMutation } from '@urql/preact';
import { useState } from 'preact/hooks';
import { errorMessage } from '../api.js';
import { ConfirmButton, SecretReveal } from '../dialogs.js';
import { SelectField, TextField } from '../fields.js';
import { when } from '../format.js';
import { type FragmentOf, graphql, type ResultOf, readFragment } from '../graphql.js';
import { NotAllowed, Notice } from '../notice.js';
import { useSession } from '../session.js';
import {
  DEFAULT_LIFETIME,
  type GrantableRole,
  grantableRoles,
  LIFETIMES,
  lifetime,
  type Status,
  useSecretCreation,
} from './credentials.js';

/** A service account as the API key settings page lists it, with its tokens (read with `readFragment`). */
export const ServiceAccountFields = graphql(`
  fragment ServiceAccountFields on ServiceAccount {
    id name login role isDisabled
    tokens { id name created expiration hasExpired lastUsedAt }
  }
`);
type ServiceAccount = ResultOf<typeof ServiceAccountFields>;

const CREATE_ACCOUNT = graphql(`mutation ConsoleCreateServiceAccount($input: CreateServiceAccountInput!) {
  createServiceAccount(input: $input) { id name }
}`);
const DELETE_ACCOUNT = graphql(`mutation ConsoleDeleteServiceAccount($id: Int!) { deleteServiceAccount(id: $id) { message } }`);
const CREATE_TOKEN = graphql(`mutation ConsoleCreateToken($serviceAccountId: Int!, $name: String!, $secondsToLive: Int) {
  createServiceAccountToken(serviceAccountId: $serviceAccountId, name: $name, secondsToLive: $secondsToLive) { id name key }
}`);
const DELETE_TOKEN = graphql(`mutation ConsoleDeleteToken($serviceAccountId: Int!, $tokenId: Int!) {
  deleteServiceAccountToken(serviceAccountId: $serviceAccountId, tokenId: $tokenId) { message }
}`);

/** The service accounts the caller may read, a form to create one, and each account's tokens. */
export function ServiceAccountsSection(props: {
  accounts: readonly FragmentOf<typeof ServiceAccountFields>[];
  onChanged: () => void;
  status: Status;
}) {
  const { access, viewer } = useSession();
  const [, createAccount] = useMutation(CREATE_ACCOUNT);
  const roles = grantableRoles(viewer?.orgRole ?? 'Viewer', viewer?.isServiceAdmin ?? false);
  const [name, setName] = useState('');
  const [role, setRole] = useState<GrantableRole>(roles[0] ?? 'Viewer');
  const [error, setError] = useState<string | null>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const result = await createAccount({ input: { name: name.trim(), role } });
    if (result.error) {
      setError(errorMessage(result.error));
      return;
    }
    setName('');
    props.onChanged();
  };

  return (
    <section aria-labelledby="accounts-heading">
      <h2 id="accounts-heading">Service accounts and their tokens</h2>
      <p class="hint">A service account is a non-human user with an org role and roles of its own; programs sign in with its tokens.</p>
      {access.can('serviceaccounts:create') && (
        <form class="card form-grid" onSubmit={submit} aria-labelledby="new-account-heading">
          <h3 id="new-account-heading">New service account</h3>
          <TextField id="account-name" label="Name" required maxLength={190} value={name} onValue={setName} />
          <SelectField id="account-role" label="Org role" value={role} onValue={setRole} choices={roles} />
          <div class="field field-end">
            <button type="submit">Create service account</button>
          </div>
          {error && <Notice kind="error">{error}</Notice>}
        </form>
      )}
      {props.accounts.length === 0 && <p>You see no service accounts in this organization.</p>}
      {readFragment(ServiceAccountFields, props.accounts).map((sa) => (
        <ServiceAccountCard key={sa.id} account={sa} onChanged={props.onChanged} status={props.status} />
      ))}
    </section>
  );
}

function ServiceAccountCard({ account, onChanged, status }: { account: ServiceAccount; onChanged: () => void; status: Status }) {
  const { access } = useSession();
  const creation = useSecretCreation(CREATE_TOKEN, (d) => d.createServiceAccountToken, onChanged);
  const [, deleteToken] = useMutation(DELETE_TOKEN);
  const [, deleteAccount] = useMutation(DELETE_ACCOUNT);
  const scope = `serviceaccounts:id:${account.id}`;
  const canWrite = access.can('serviceaccounts:write', scope);
  const [name, setName] = useState('');
  const [ttl, setTtl] = useState(DEFAULT_LIFETIME);
  const { secret, error } = creation;
  const ids = `sa-${account.id}`;

  const submit = async (e: Event) => {
    e.preventDefault();
    if (await creation.create({ serviceAccountId: account.id, name: name.trim(), ...lifetime(ttl) })) setName('');
  };

  return (
    <article class="card" aria-labelledby={`${ids}-heading`}>
      <div class="card-head">
        <h3 id={`${ids}-heading`}>{account.name}</h3>
        <span class="badge">{account.role}</span>
        {account.isDisabled && <span class="badge badge-warn">disabled</span>}
        {access.can('serviceaccounts:delete', scope) && (
          <ConfirmButton
            class="danger small push-right"
            label={`Delete service account ${account.name}`}
            title={`Delete service account “${account.name}”?`}
            question="Its tokens stop working at once and its role assignments are removed. This cannot be undone."
            confirmLabel="Delete service account"
            onOpen={status.cleared}
            onConfirm={() => deleteAccount({ id: account.id })}
            onDone={() => status.said(`Service account “${account.name}” deleted.`)}
          >
            Delete service account
          </ConfirmButton>
        )}
      </div>
      {secret && (
        <SecretReveal
          title={`Token “${secret.name}” created`}
          secret={secret.key}
          usage="Send it as the header Authorization: Bearer <token>."
          onDone={creation.dismiss}
        />
      )}
      {account.tokens === null ? (
        <NotAllowed what="see its tokens" needs={`serviceaccounts:read on ${scope}`} />
      ) : account.tokens.length === 0 ? (
        <p>No tokens.</p>
      ) : (
        <table class="responsive">
          <caption class="visually-hidden">Tokens of {account.name}</caption>
          <thead>
            <tr>
              <th scope="col">Token</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {account.tokens.map((t) => (
              <tr key={t.id}>
                <td data-label="Token">{t.name}</td>
                <td data-label="Expires">
                  {when(t.expiration)} {t.hasExpired && <span class="badge badge-warn">expired</span>}
                </td>
                <td data-label="Last used">{when(t.lastUsedAt, 'Not yet')}</td>
                <td class="row-actions">
                  {canWrite && (
                    <ConfirmButton
                      class="danger small"
                      label={`Delete token ${t.name} of ${account.name}`}
                      title={`Delete token “${t.name}”?`}
                      question="Programs using this token stop working at once. This cannot be undone."
                      confirmLabel="Delete token"
                      onOpen={status.cleared}
                      onConfirm={() => deleteToken({ serviceAccountId: account.id, tokenId: t.id })}
                      onDone={() => status.said(`Token “${t.name}” deleted.`)}
                    >
                      Delete
                    </ConfirmButton>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {canWrite && !secret && (
        <form class="form-grid" onSubmit={submit} aria-label={`New token for ${account.name}`}>
          <TextField id={`${ids}-token-name`} label="Token name" required maxLength={190} value={name} onValue={setName} />
          <SelectField id={`${ids}-token-ttl`} label="Time to live" value={ttl} onValue={setTtl} choices={LIFETIMES} />
          <div class="field field-end">
            <button type="submit">Add token</button>
          </div>
          {error && <Notice kind="error">{error}</Notice>}
        </form>
      )}
    </article>
  );
}

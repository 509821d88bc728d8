/**
 * API key settings: the organization's API keys and, beside them, its service accounts with
 * their tokens (service-account-tokens.tsx). Each list shows expiry and last use; creating shows
 * the secret once (kept only in memory until "I have copied it", credentials.ts); deleting asks
 * first. Controls follow the caller's permissions: apikey:read / apikey:create / apikey:delete on
 * apikey:id:<id>, serviceaccounts:read / :create / :write and :delete on serviceaccounts:id:<id>.
 */
import { useMutation } from '@urql/preact';
import { useState } from 'preact/hooks';
import { ConfirmButton, SecretReveal } from '../dialogs.js';
import { SelectField, TextField } from '../fields.js';
import { when } from '../format.js';
import { graphql, type ResultOf } from '../graphql.js';
import { apiKeysOffer } from '../nav.js';
import { Loading, Notice } from '../notice.js';
import { useSession } from '../session.js';
import { Page, QueryError, useGraphql } from '../ui.js';
import {
  DEFAULT_LIFETIME,
  type GrantableRole,
  grantableRoles,
  LIFETIMES,
  lifetime,
  type Status,
  useSecretCreation,
} from './credentials.js';
import { ServiceAccountFields, ServiceAccountsSection } from './service-account-tokens.js';

const QUERY = graphql(
  `query ConsoleApiKeys($keys: Boolean!, $accounts: Boolean!) {
    apiKeys(includeExpired: true) @include(if: $keys) { id name role expiration lastUsedAt }
    serviceAccounts @include(if: $accounts) { ...ServiceAccountFields }
  }`,
  [ServiceAccountFields],
);

const CREATE_KEY = graphql(`mutation ConsoleCreateApiKey($input: CreateApiKeyInput!) {
  createApiKey(input: $input) { id name key }
}`);
const DELETE_KEY = graphql(`mutation ConsoleDeleteApiKey($id: Int!) { deleteApiKey(id: $id) { message } }`);

type ApiKey = NonNullable<ResultOf<typeof QUERY>['apiKeys']>[number];

function isExpired(expiration: string | null): boolean {
  return expiration !== null && new Date(expiration).getTime() <= Date.now();
}

/** The page: the API keys section, or why it is hidden, and the service accounts section. */
export function ApiKeysPage() {
  const { access } = useSession();
  const keys = access.can('apikey:read', 'apikey:*');
  // The navigation's name for this page: "Service account tokens" to those who may not list keys.
  const title = apiKeysOffer(access)?.label ?? 'API key settings';
  const accounts = access.can('serviceaccounts:read');
  const { data, error, fetching, refresh } = useGraphql(QUERY, { keys, accounts });
  const [done, setDone] = useState<string | null>(null);
  const status: Status = {
    said: (message) => {
      setDone(message);
      refresh();
    },
    cleared: () => setDone(null),
  };

  return (
    <Page
      title={title}
      intro="Keys and tokens let programs call this service. Each secret is shown once, when it is created: store it in your program's secret store."
    >
      {done && <Notice kind="status">{done}</Notice>}
      <QueryError error={error} />
      {!data && fetching && <Loading what="keys" />}
      {keys ? (
        data?.apiKeys && <ApiKeysSection keys={data.apiKeys} onChanged={refresh} status={status} />
      ) : (
        <section aria-labelledby="keys-heading">
          <h2 id="keys-heading">API keys</h2>
          <Notice kind="info">
            Listing API keys needs <code>apikey:read</code> on <code>apikey:*</code>.
          </Notice>
        </section>
      )}
      {accounts && data?.serviceAccounts && <ServiceAccountsSection accounts={data.serviceAccounts} onChanged={refresh} status={status} />}
    </Page>
  );
}

function ApiKeysSection({ keys, onChanged, status }: { keys: readonly ApiKey[]; onChanged: () => void; status: Status }) {
  const { access, viewer } = useSession();
  const creation = useSecretCreation(CREATE_KEY, (d) => d.createApiKey, onChanged);
  const [, deleteKey] = useMutation(DELETE_KEY);
  const roles = grantableRoles(viewer?.orgRole ?? 'Viewer', viewer?.isServiceAdmin ?? false);
  const [name, setName] = useState('');
  const [role, setRole] = useState<GrantableRole>(roles[0] ?? 'Viewer');
  const [ttl, setTtl] = useState(DEFAULT_LIFETIME);
  const { secret, error, busy } = creation;

  const submit = async (e: Event) => {
    e.preventDefault();
    if (await creation.create({ input: { name: name.trim(), role, ...lifetime(ttl) } })) setName('');
  };

  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      {secret && (
        <SecretReveal
          title={`API key “${secret.name}” created`}
          secret={secret.key}
          usage="Send it as the header Authorization: Bearer <key>, or as basic auth with the user api_key."
          onDone={creation.dismiss}
        />
      )}
      {access.can('apikey:create') && !secret && (
        <form class="card form-grid" onSubmit={submit} aria-labelledby="new-key-heading">
          <h3 id="new-key-heading">New API key</h3>
          <TextField id="key-name" label="Name" required maxLength={190} value={name} onValue={setName} />
          <SelectField id="key-role" label="Role" value={role} onValue={setRole} choices={roles} />
          <SelectField id="key-ttl" label="Time to live" value={ttl} onValue={setTtl} choices={LIFETIMES} />
          <div class="field field-end">
            <button type="submit" disabled={busy}>
              Create API key
            </button>
          </div>
          {error && <Notice kind="error">{error}</Notice>}
        </form>
      )}
      {keys.length === 0 ? (
        <p>This organization has no API keys.</p>
      ) : (
        <table class="responsive">
          <caption class="visually-hidden">API keys of the organization</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id}>
                <td data-label="Name">{k.name}</td>
                <td data-label="Role">{k.role}</td>
                <td data-label="Expires">
                  {when(k.expiration)} {isExpired(k.expiration) && <span class="badge badge-warn">expired</span>}
                </td>
                <td data-label="Last used">{when(k.lastUsedAt, 'Not yet')}</td>
                <td class="row-actions">
                  {access.can('apikey:delete', `apikey:id:${k.id}`) && (
                    <ConfirmButton
                      class="danger small"
                      label={`Delete API key ${k.name}`}
                      title={`Delete API key “${k.name}”?`}
                      question="Programs using this key stop working at once. This cannot be undone."
                      confirmLabel="Delete API key"
                      onOpen={status.cleared}
                      onConfirm={() => deleteKey({ id: k.id })}
                      onDone={() => status.said(`API key “${k.name}” deleted.`)}
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
    </section>
  );
}

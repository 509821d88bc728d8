/**
 * API key settings: the organization's API keys and, beside them, its service accounts with
 * their tokens. Each list shows expiry and last use; creating shows the secret once (kept only
 * in memory until "I have copied it"); deleting asks first. Controls follow the caller's
 * permissions: apikey:read / apikey:create / apikey:delete on apikey:id:<id>,
 * serviceaccounts:read / :create / :write and :delete on serviceaccounts:id:<id>.
 */
import { useClient, useMutation } from '@urql/preact';
import { useState } from 'preact/hooks';
import { errorMessage } from '../api.js';
import { type Choice, SelectField, TextField } from '../fields.js';
import { useSession } from '../session.js';
import { ConfirmButton, Loading, Notice, Page, QueryError, SecretReveal, useGraphql, when } from '../ui.js';

const QUERY = `query ConsoleApiKeys($keys: Boolean!, $accounts: Boolean!) {
  apiKeys(includeExpired: true) @include(if: $keys) { id name role expiration lastUsedAt }
  serviceAccounts @include(if: $accounts) {
    id name login role isDisabled
    tokens { id name created expiration hasExpired lastUsedAt }
  }
}`;

const CREATE_KEY = `mutation ConsoleCreateApiKey($input: CreateApiKeyInput!) {
  createApiKey(input: $input) { id name key }
}`;
const DELETE_KEY = `mutation ConsoleDeleteApiKey($id: Int!) { deleteApiKey(id: $id) { message } }`;
const CREATE_ACCOUNT = `mutation ConsoleCreateServiceAccount($input: CreateServiceAccountInput!) {
  createServiceAccount(input: $input) { id name }
}`;
const DELETE_ACCOUNT = `mutation ConsoleDeleteServiceAccount($id: Int!) { deleteServiceAccount(id: $id) { message } }`;
const CREATE_TOKEN = `mutation ConsoleCreateToken($serviceAccountId: Int!, $name: String!, $secondsToLive: Int) {
  createServiceAccountToken(serviceAccountId: $serviceAccountId, name: $name, secondsToLive: $secondsToLive) { id name key }
}`;
const DELETE_TOKEN = `mutation ConsoleDeleteToken($serviceAccountId: Int!, $tokenId: Int!) {
  deleteServiceAccountToken(serviceAccountId: $serviceAccountId, tokenId: $tokenId) { message }
}`;

interface ApiKey {
  id: number;
  name: string;
  role: string;
  expiration: string | null;
  lastUsedAt: string | null;
}
interface Token {
  id: number;
  name: string;
  created: string;
  expiration: string | null;
  hasExpired: boolean;
  lastUsedAt: string | null;
}
interface ServiceAccount {
  id: number;
  name: string;
  login: string;
  role: string;
  isDisabled: boolean;
  tokens: Token[];
}
interface Data {
  apiKeys?: ApiKey[];
  serviceAccounts?: ServiceAccount[];
}

const ROLE_ORDER = ['Viewer', 'Editor', 'Admin'];

/** Roles a key or account may get: at most the caller's own org role (any for a Service Admin). */
function grantableRoles(orgRole: string, isServiceAdmin: boolean): string[] {
  if (isServiceAdmin) return ROLE_ORDER;
  return ROLE_ORDER.slice(0, ROLE_ORDER.indexOf(orgRole) + 1);
}

function isExpired(expiration: string | null): boolean {
  return expiration !== null && new Date(expiration).getTime() <= Date.now();
}

const DAY = 86_400;
/** Lifetimes offered when creating a key or a token, in seconds (0: never expires). */
const LIFETIMES: Choice[] = (
  [
    ['1 hour', 3600],
    ['1 day', DAY],
    ['7 days', 7 * DAY],
    ['30 days', 30 * DAY],
    ['90 days', 90 * DAY],
    ['1 year', 365 * DAY],
    ['Never expires', 0],
  ] as const
).map(([label, seconds]) => ({ label, value: String(seconds) }));
const DEFAULT_LIFETIME = String(30 * DAY);

/** `secondsToLive` for a chosen lifetime: absent when it never expires. */
function lifetime(seconds: string): { secondsToLive?: number } {
  return seconds === '0' ? {} : { secondsToLive: Number(seconds) };
}

/** The page's status line: `said` after a deletion (and the lists load again), `cleared` when a new question opens. */
interface Status {
  said: (message: string) => void;
  cleared: () => void;
}

export function ApiKeysPage() {
  const { access } = useSession();
  const keys = access.can('apikey:read', 'apikey:*');
  const accounts = access.can('serviceaccounts:read');
  const { data, error, fetching, refresh } = useGraphql<Data>(QUERY, { keys, accounts });
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
      title="API key settings"
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

/** A created key or token: its secret is in the answer this once. */
interface Secret {
  name: string;
  key: string;
}

/**
 * Creating a key or a token (`field` of the mutation's answer): the secret lives in this hook's
 * state until `dismiss` ("I have copied it"). Sent through the client, not useMutation, whose
 * state would keep the answer, secret included, for as long as the page stays open.
 * `create` resolves true once created (and `onCreated` has run), false with `error` set.
 */
function useSecretCreation(document: string, field: string, onCreated: () => void) {
  const client = useClient();
  const [secret, setSecret] = useState<Secret | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const create = async (variables: Record<string, unknown>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    const result = await client.mutation(document, variables).toPromise();
    setBusy(false);
    const created = (result.data as Record<string, Secret | null> | undefined)?.[field];
    if (result.error || !created) {
      setError(errorMessage(result.error));
      return false;
    }
    setSecret({ name: created.name, key: created.key });
    onCreated();
    return true;
  };
  return { secret, error, busy, create, dismiss: () => setSecret(null) };
}

function ApiKeysSection({ keys, onChanged, status }: { keys: ApiKey[]; onChanged: () => void; status: Status }) {
  const { access, viewer } = useSession();
  const creation = useSecretCreation(CREATE_KEY, 'createApiKey', onChanged);
  const [, deleteKey] = useMutation(DELETE_KEY);
  const roles = grantableRoles(viewer?.orgRole ?? 'Viewer', viewer?.isServiceAdmin ?? false);
  const [name, setName] = useState('');
  const [role, setRole] = useState(roles[0] ?? 'Viewer');
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

function ServiceAccountsSection(props: { accounts: ServiceAccount[]; onChanged: () => void; status: Status }) {
  const { access, viewer } = useSession();
  const [, createAccount] = useMutation(CREATE_ACCOUNT);
  const roles = grantableRoles(viewer?.orgRole ?? 'Viewer', viewer?.isServiceAdmin ?? false);
  const [name, setName] = useState('');
  const [role, setRole] = useState(roles[0] ?? 'Viewer');
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
      {props.accounts.map((sa) => (
        <ServiceAccountCard key={sa.id} account={sa} onChanged={props.onChanged} status={props.status} />
      ))}
    </section>
  );
}

function ServiceAccountCard({ account, onChanged, status }: { account: ServiceAccount; onChanged: () => void; status: Status }) {
  const { access } = useSession();
  const creation = useSecretCreation(CREATE_TOKEN, 'createServiceAccountToken', onChanged);
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
      {account.tokens.length === 0 ? (
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

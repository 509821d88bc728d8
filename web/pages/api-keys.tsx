/**
 * API key settings: the organization's API keys and, beside them, its service accounts with
 * their tokens. Each list shows expiry and last use; creating shows the secret once (kept only
 * in memory until "I have copied it"); deleting asks first. Controls follow the caller's
 * permissions: apikey:read / apikey:create / apikey:delete on apikey:id:<id>,
 * serviceaccounts:read / :create / :write and :delete on serviceaccounts:id:<id>.
 */
import { useMutation } from '@urql/preact';
import { useState } from 'preact/hooks';
import { errorMessage } from '../api.js';
import { useSession } from '../session.js';
import { ConfirmDialog, LIFETIMES, Loading, Notice, Page, QueryError, SecretReveal, useGraphql, when } from '../ui.js';

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

interface Pending {
  title: string;
  body: string;
  confirmLabel: string;
  /** Said once it is done. */
  done: string;
  run: () => Promise<{ error?: unknown }>;
}

export function ApiKeysPage() {
  const { access } = useSession();
  const keys = access.can('apikey:read', 'apikey:*');
  const accounts = access.can('serviceaccounts:read');
  const { data, error, fetching, refresh } = useGraphql<Data>(QUERY, { keys, accounts });
  const [pending, setPending] = useState<Pending | null>(null);
  const [pendingError, setPendingError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);

  const confirm = async () => {
    if (!pending) return;
    setBusy(true);
    const result = await pending.run();
    setBusy(false);
    if (result.error) {
      setPendingError(errorMessage(result.error));
      return;
    }
    setDone(pending.done);
    setPending(null);
    setPendingError(null);
    refresh();
  };
  const ask = (p: Pending) => {
    setDone(null);
    setPendingError(null);
    setPending(p);
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
        data?.apiKeys && <ApiKeysSection keys={data.apiKeys} onChanged={refresh} ask={ask} />
      ) : (
        <section aria-labelledby="keys-heading">
          <h2 id="keys-heading">API keys</h2>
          <Notice kind="info">
            Listing API keys needs <code>apikey:read</code> on <code>apikey:*</code>.
          </Notice>
        </section>
      )}
      {accounts && data?.serviceAccounts && <ServiceAccountsSection accounts={data.serviceAccounts} onChanged={refresh} ask={ask} />}
      {pending && (
        <ConfirmDialog
          title={pending.title}
          confirmLabel={pending.confirmLabel}
          busy={busy}
          error={pendingError}
          onConfirm={() => void confirm()}
          onCancel={() => {
            setPending(null);
            setPendingError(null);
          }}
        >
          <p>{pending.body}</p>
        </ConfirmDialog>
      )}
    </Page>
  );
}

function LifetimeSelect({ id, value, onChange }: { id: string; value: number; onChange: (seconds: number) => void }) {
  return (
    <select id={id} value={String(value)} onChange={(e) => onChange(Number(e.currentTarget.value))}>
      {LIFETIMES.map((l) => (
        <option key={l.seconds} value={String(l.seconds)}>
          {l.label}
        </option>
      ))}
    </select>
  );
}

function ApiKeysSection({ keys, onChanged, ask }: { keys: ApiKey[]; onChanged: () => void; ask: (p: Pending) => void }) {
  const { access, viewer } = useSession();
  const [, createKey] = useMutation(CREATE_KEY);
  const [, deleteKey] = useMutation(DELETE_KEY);
  const roles = grantableRoles(viewer?.orgRole ?? 'Viewer', viewer?.isServiceAdmin ?? false);
  const [name, setName] = useState('');
  const [role, setRole] = useState(roles[0] ?? 'Viewer');
  const [ttl, setTtl] = useState(30 * 86_400);
  const [error, setError] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ name: string; key: string } | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const input = { name: name.trim(), role, ...(ttl > 0 && { secondsToLive: ttl }) };
    const result = await createKey({ input });
    setBusy(false);
    const created = (result.data as { createApiKey?: { name: string; key: string } | null } | undefined)?.createApiKey;
    if (result.error || !created) {
      setError(errorMessage(result.error));
      return;
    }
    setSecret({ name: created.name, key: created.key });
    setName('');
    onChanged();
  };

  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      {secret && (
        <SecretReveal
          title={`API key “${secret.name}” created`}
          secret={secret.key}
          usage="Send it as the header Authorization: Bearer <key>, or as basic auth with the user api_key."
          onDone={() => setSecret(null)}
        />
      )}
      {access.can('apikey:create') && !secret && (
        <form class="card form-grid" onSubmit={submit} aria-labelledby="new-key-heading">
          <h3 id="new-key-heading">New API key</h3>
          <div class="field">
            <label for="key-name">Name</label>
            <input id="key-name" required maxLength={190} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="key-role">Role</label>
            <select id="key-role" value={role} onChange={(e) => setRole(e.currentTarget.value)}>
              {roles.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="key-ttl">Time to live</label>
            <LifetimeSelect id="key-ttl" value={ttl} onChange={setTtl} />
          </div>
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
                    <button
                      type="button"
                      class="danger small"
                      aria-label={`Delete API key ${k.name}`}
                      onClick={() =>
                        ask({
                          title: `Delete API key “${k.name}”?`,
                          body: 'Programs using this key stop working at once. This cannot be undone.',
                          confirmLabel: 'Delete API key',
                          done: `API key “${k.name}” deleted.`,
                          run: () => deleteKey({ id: k.id }),
                        })
                      }
                    >
                      Delete
                    </button>
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

function ServiceAccountsSection(props: { accounts: ServiceAccount[]; onChanged: () => void; ask: (p: Pending) => void }) {
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
          <div class="field">
            <label for="account-name">Name</label>
            <input id="account-name" required maxLength={190} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="account-role">Org role</label>
            <select id="account-role" value={role} onChange={(e) => setRole(e.currentTarget.value)}>
              {roles.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          </div>
          <div class="field field-end">
            <button type="submit">Create service account</button>
          </div>
          {error && <Notice kind="error">{error}</Notice>}
        </form>
      )}
      {props.accounts.length === 0 && <p>You see no service accounts in this organization.</p>}
      {props.accounts.map((sa) => (
        <ServiceAccountCard key={sa.id} account={sa} onChanged={props.onChanged} ask={props.ask} />
      ))}
    </section>
  );
}

function ServiceAccountCard({ account, onChanged, ask }: { account: ServiceAccount; onChanged: () => void; ask: (p: Pending) => void }) {
  const { access } = useSession();
  const [, createToken] = useMutation(CREATE_TOKEN);
  const [, deleteToken] = useMutation(DELETE_TOKEN);
  const [, deleteAccount] = useMutation(DELETE_ACCOUNT);
  const scope = `serviceaccounts:id:${account.id}`;
  const canWrite = access.can('serviceaccounts:write', scope);
  const [name, setName] = useState('');
  const [ttl, setTtl] = useState(30 * 86_400);
  const [error, setError] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ name: string; key: string } | null>(null);
  const ids = `sa-${account.id}`;

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const result = await createToken({ serviceAccountId: account.id, name: name.trim(), ...(ttl > 0 && { secondsToLive: ttl }) });
    const created = (result.data as { createServiceAccountToken?: { name: string; key: string } | null } | undefined)
      ?.createServiceAccountToken;
    if (result.error || !created) {
      setError(errorMessage(result.error));
      return;
    }
    setSecret({ name: created.name, key: created.key });
    setName('');
    onChanged();
  };

  return (
    <article class="card" aria-labelledby={`${ids}-heading`}>
      <div class="card-head">
        <h3 id={`${ids}-heading`}>{account.name}</h3>
        <span class="badge">{account.role}</span>
        {account.isDisabled && <span class="badge badge-warn">disabled</span>}
        {access.can('serviceaccounts:delete', scope) && (
          <button
            type="button"
            class="danger small push-right"
            aria-label={`Delete service account ${account.name}`}
            onClick={() =>
              ask({
                title: `Delete service account “${account.name}”?`,
                body: 'Its tokens stop working at once and its role assignments are removed. This cannot be undone.',
                confirmLabel: 'Delete service account',
                done: `Service account “${account.name}” deleted.`,
                run: () => deleteAccount({ id: account.id }),
              })
            }
          >
            Delete service account
          </button>
        )}
      </div>
      {secret && (
        <SecretReveal
          title={`Token “${secret.name}” created`}
          secret={secret.key}
          usage="Send it as the header Authorization: Bearer <token>."
          onDone={() => setSecret(null)}
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
                    <button
                      type="button"
                      class="danger small"
                      aria-label={`Delete token ${t.name} of ${account.name}`}
                      onClick={() =>
                        ask({
                          title: `Delete token “${t.name}”?`,
                          body: 'Programs using this token stop working at once. This cannot be undone.',
                          confirmLabel: 'Delete token',
                          done: `Token “${t.name}” deleted.`,
                          run: () => deleteToken({ serviceAccountId: account.id, tokenId: t.id }),
                        })
                      }
                    >
                      Delete
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {canWrite && !secret && (
        <form class="form-grid" onSubmit={submit} aria-label={`New token for ${account.name}`}>
          <div class="field">
            <label for={`${ids}-token-name`}>Token name</label>
            <input id={`${ids}-token-name`} required maxLength={190} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </div>
          <div class="field">
            <label for={`${ids}-token-ttl`}>Time to live</label>
            <LifetimeSelect id={`${ids}-token-ttl`} value={ttl} onChange={setTtl} />
          </div>
          <div class="field field-end">
            <button type="submit">Add token</button>
          </div>
          {error && <Notice kind="error">{error}</Notice>}
        </form>
      )}
    </article>
  );
}

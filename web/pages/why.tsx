/**
 * Why: may a user (or service account) do an action, on a scope? Answers allowed or denied with
 * the roles that grant it and how each reaches the user, or what is missing (`checkAccess`).
 * The question lives in the address (`/why?user=2&action=teams:read&scope=teams:id:1`), so an
 * answer can be shared. Checking someone else needs users.permissions:read on them; anyone may
 * check themselves.
 */

import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { SelectField, TextField } from '../fields.js';
import { permissionText, RoleName, sourceLabel } from '../format.js';
import { graphql, readFragment } from '../graphql.js';
import { Loading, Notice } from '../notice.js';
import { useSession } from '../session.js';
import { Page, QueryError, useGraphql } from '../ui.js';
import { GrantFields } from './effective-permissions.js';

const PICKERS = graphql(`query ConsoleWhyPickers($users: Boolean!, $accounts: Boolean!, $actions: Boolean!) {
  users @include(if: $users) { id login name }
  serviceAccounts @include(if: $accounts) { id name }
  actions @include(if: $actions) { action }
}`);
const CHECK = graphql(
  `query ConsoleWhy($userId: Int, $action: String!, $scopes: [String!]) {
    checkAccess(userId: $userId, action: $action, scopes: $scopes) {
      allowed
      grantedBy { ...GrantFields }
      missing { action scope }
    }
  }`,
  [GrantFields],
);

export function WhyPage() {
  const { access, viewer } = useSession();
  const { query, route } = useLocation();
  const others = access.can('users.permissions:read');
  const pickers = useGraphql(PICKERS, {
    users: others && access.can('org.users:read'),
    accounts: others && access.can('serviceaccounts:read'),
    actions: access.can('roles:read', 'roles:*'),
  });
  const asked = {
    userId: Number(query.user ?? viewer?.id ?? 0),
    action: (query.action ?? '').trim(),
    scope: (query.scope ?? '').trim(),
  };
  const check = useGraphql(
    CHECK,
    { userId: asked.userId, action: asked.action, ...(asked.scope && { scopes: [asked.scope] }) },
    asked.action === '',
  );

  const [userId, setUserId] = useState(String(asked.userId));
  const [action, setAction] = useState(asked.action);
  const [scope, setScope] = useState(asked.scope);
  useEffect(() => {
    setUserId(String(asked.userId));
    setAction(asked.action);
    setScope(asked.scope);
  }, [asked.userId, asked.action, asked.scope]);

  if (!viewer) return null;
  const actions = pickers.data?.actions?.map((a) => a.action) ?? access.actions();
  const people = [
    { id: viewer.id, label: `Yourself (${viewer.login})` },
    ...(pickers.data?.users ?? []).filter((u) => u.id !== viewer.id).map((u) => ({ id: u.id, label: u.login })),
    ...(pickers.data?.serviceAccounts ?? []).map((s) => ({ id: s.id, label: `${s.name} (service account)` })),
  ];
  const isAccount = (pickers.data?.serviceAccounts ?? []).some((s) => s.id === asked.userId);
  const who = people.find((p) => p.id === asked.userId)?.label ?? `user ${asked.userId}`;

  const submit = (e: Event) => {
    e.preventDefault();
    const params = new URLSearchParams({ user: userId, action: action.trim() });
    if (scope.trim()) params.set('scope', scope.trim());
    route(`/why?${params}`);
  };

  const answer = check.data?.checkAccess;
  return (
    <Page
      title="Why: check access"
      intro="Pick who, an action and optionally a scope: see whether it is allowed, and which roles grant it."
    >
      <form class="form-grid card" onSubmit={submit} aria-label="Access question">
        <SelectField
          id="why-user"
          label="Who"
          value={userId}
          onValue={setUserId}
          choices={people.map((p) => ({ value: String(p.id), label: p.label }))}
        />
        <TextField
          id="why-action"
          label="Action"
          required
          autocomplete="off"
          placeholder="teams:read"
          value={action}
          onValue={setAction}
          suggest={{ id: 'why-actions', values: actions }}
        />
        <TextField
          id="why-scope"
          label="Scope (optional)"
          hint="Empty: on any scope."
          autocomplete="off"
          placeholder="teams:id:1"
          value={scope}
          onValue={setScope}
        />
        <div class="field field-end">
          <button type="submit">Check</button>
        </div>
      </form>
      <QueryError error={pickers.error} />
      <QueryError error={check.error} />
      {check.fetching && <Loading what="the answer" />}
      {answer && (
        <section aria-labelledby="answer-heading" class={`answer ${answer.allowed ? 'answer-allowed' : 'answer-denied'}`}>
          <div role="status">
            <h2 id="answer-heading">
              {answer.allowed ? 'Allowed' : 'Denied'}: {who} {answer.allowed ? 'may' : 'may not'} do{' '}
              <span class="mono">{permissionText({ action: asked.action, scope: asked.scope })}</span>
            </h2>
          </div>
          {answer.allowed ? (
            <table class="responsive compact">
              <caption>Granted by</caption>
              <thead>
                <tr>
                  <th scope="col">Role</th>
                  <th scope="col">Comes from</th>
                  <th scope="col">Matching permission</th>
                </tr>
              </thead>
              <tbody>
                {readFragment(GrantFields, answer.grantedBy).map((g) => (
                  <tr key={`${g.role.uid} ${g.source} ${g.permission.scope}`}>
                    <td data-label="Role">
                      <RoleName role={g.role} />
                    </td>
                    <td data-label="From">{sourceLabel(g.source)}</td>
                    <td data-label="Permission" class="mono">
                      {permissionText(g.permission)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <>
              <p>No role of {who} grants it. Any one of these permissions would:</p>
              <ul>
                {answer.missing.map((m) => (
                  <li key={`${m.action} ${m.scope}`} class="mono">
                    {permissionText(m)}
                  </li>
                ))}
              </ul>
              {access.canManage('users.roles:add') && (
                <Notice kind="info">
                  To grant it, assign a role holding it on the{' '}
                  <a href={`/assignments?${isAccount ? 'sa' : 'user'}=${asked.userId}`}>Assignments</a> page.
                </Notice>
              )}
            </>
          )}
        </section>
      )}
    </Page>
  );
}

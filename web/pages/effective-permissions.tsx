/**
 * The effective permissions of a user or service account on the assignments page, each with the
 * role that grants it and where that role comes from (assigned directly, a team, the basic role of
 * the org role), filtered as you type. Rows come from GraphQL `userPermissionSources`.
 */
import { useState } from 'preact/hooks';
import { TextField } from '../fields.js';
import { plural, roleTitle, sourceLabel } from '../format.js';
import { type FragmentOf, graphql, readFragment } from '../graphql.js';

/**
 * One way a permission reaches a user: a row of `userPermissionSources` (this table) and of
 * `checkAccess.grantedBy` (the Why? page).
 */
export const GrantFields = graphql(`
  fragment GrantFields on AccessGrant { source role { uid name displayName } permission { action scope } }
`);

/** The table of the `grants` (GrantFields) of the subject called `name`, with a text filter. */
export function EffectivePermissions({ grants: refs, name }: { grants: readonly FragmentOf<typeof GrantFields>[]; name: string }) {
  const grants = readFragment(GrantFields, refs);
  const [text, setText] = useState('');
  const needle = text.trim().toLowerCase();
  const shown = grants.filter(
    (g) =>
      !needle ||
      g.permission.action.toLowerCase().includes(needle) ||
      g.permission.scope.toLowerCase().includes(needle) ||
      roleTitle(g.role).toLowerCase().includes(needle) ||
      sourceLabel(g.source).toLowerCase().includes(needle),
  );
  const distinct = new Set(grants.map((g) => `${g.permission.action} ${g.permission.scope}`)).size;
  return (
    <section aria-labelledby="effective-heading">
      <h2 id="effective-heading">Effective permissions of {name}</h2>
      <p>
        {plural(distinct, 'permission')} from {plural(new Set(grants.map((g) => g.role.uid)).size, 'role')}
        {grants.length === distinct
          ? '.'
          : `, in ${plural(grants.length, 'row')}: a permission granted several ways has a row for each way.`}
        {shown.length < grants.length && ` Showing ${shown.length} of ${plural(grants.length, 'row')}.`}
      </p>
      <TextField id="effective-filter" label="Filter by action, scope, role or source" type="search" value={text} onValue={setText} />
      <table class="responsive compact">
        <caption class="visually-hidden">Effective permissions of {name} and where each comes from</caption>
        <thead>
          <tr>
            <th scope="col">Action</th>
            <th scope="col">Scope</th>
            <th scope="col">Granted by role</th>
            <th scope="col">Comes from</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((g) => (
            <tr key={`${g.permission.action} ${g.permission.scope} ${g.role.uid} ${g.source}`}>
              <td data-label="Action" class="mono">
                {g.permission.action}
              </td>
              <td data-label="Scope" class="mono">
                {g.permission.scope || '(none)'}
              </td>
              <td data-label="Role">{roleTitle(g.role)}</td>
              <td data-label="From">{sourceLabel(g.source)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

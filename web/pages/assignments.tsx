/**
 * Assignments: pick a user, a team or a service account (`?user=<id>`, `?team=<id>`, `?sa=<id>`),
 * see the roles assigned to it with their windows ("expires in …", pending ones), add one of the
 * roles the caller may assign (`roles(delegatable: true)`) for good or for a while (windows.tsx),
 * or remove one, and for users and service accounts every effective permission with
 * where it comes from (assigned directly, through a team, or the basic role of the org role).
 * Everything the page shows comes in one GraphQL request, each part included only when the
 * caller may read it. A caller holding access:simulate may preview what assigning the chosen role
 * would give (change-preview.tsx) before assigning it.
 */
import { useClient, useMutation } from '@urql/preact';
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { errorMessage } from '../api.js';
import { ChangePreview } from '../change-preview.js';
import { ConfirmButton } from '../dialogs.js';
import { Segmented, SelectField } from '../fields.js';
import { KindTag, RoleName, roleTitle } from '../format.js';
import { type FragmentOf, graphql, type ResultOf, readFragment } from '../graphql.js';
import { Loading, NotAllowed, Notice } from '../notice.js';
import { useSession } from '../session.js';
import { Page, QueryError, useGraphql } from '../ui.js';
import { EffectivePermissions, GrantFields } from './effective-permissions.js';
import { type Duration, DurationFields, expiresAtOf, FOR_GOOD, windowText } from './windows.js';

type SubjectKind = 'user' | 'team' | 'sa';

/** A role as the page lists it: assigned to the subject, or assignable by the caller. */
const RoleRefFields = graphql(`fragment RoleRefFields on Role { uid name displayName global }`);
type RoleRef = ResultOf<typeof RoleRefFields>;
/** An assigned role with its window. */
const AssignmentFields = graphql(`fragment AssignmentFields on RoleAssignment { role { ...RoleRefFields } notBefore expiresAt }`, [
  RoleRefFields,
]);

const QUERY = graphql(
  `query ConsoleAssignments(
    $users: Boolean!, $teams: Boolean!, $accounts: Boolean!, $assignable: Boolean!, $id: Int!,
    $isUser: Boolean!, $isTeam: Boolean!, $isSa: Boolean!, $roles: Boolean!, $sources: Boolean!
  ) {
    users @include(if: $users) { id login name }
    teams @include(if: $teams) { id name }
    serviceAccounts @include(if: $accounts) { id name }
    assignable: roles(delegatable: true) @include(if: $assignable) { ...RoleRefFields }
    user(id: $id) @include(if: $isUser) { id login name roles: roleAssignments @include(if: $roles) { ...AssignmentFields } }
    team(id: $id) @include(if: $isTeam) {
      id name members { id login } roles: roleAssignments @include(if: $roles) { ...AssignmentFields }
    }
    serviceAccount(id: $id) @include(if: $isSa) { id name role roles: roleAssignments @include(if: $roles) { ...AssignmentFields } }
    userPermissionSources(userId: $id) @include(if: $sources) { ...GrantFields }
  }`,
  [RoleRefFields, GrantFields, AssignmentFields],
);

const USER_ROLES = graphql(`query ConsoleUserRoles($id: Int!) { user(id: $id) { roles { uid } } }`);
const ADD_USER = graphql(`mutation ConsoleAddUserRole($userId: Int!, $roleUid: String!, $expiresAt: DateTime) {
  addUserRole(userId: $userId, roleUid: $roleUid, expiresAt: $expiresAt) { message }
}`);
const REMOVE_USER = graphql(`mutation ConsoleRemoveUserRole($userId: Int!, $roleUid: String!, $global: Boolean) {
  removeUserRole(userId: $userId, roleUid: $roleUid, global: $global) { message }
}`);
const ADD_TEAM = graphql(`mutation ConsoleAddTeamRole($teamId: Int!, $roleUid: String!, $expiresAt: DateTime) {
  addTeamRole(teamId: $teamId, roleUid: $roleUid, expiresAt: $expiresAt) { message }
}`);
const REMOVE_TEAM = graphql(
  `mutation ConsoleRemoveTeamRole($teamId: Int!, $roleUid: String!) { removeTeamRole(teamId: $teamId, roleUid: $roleUid) { message } }`,
);

const KINDS: { value: SubjectKind; label: string }[] = [
  { value: 'user', label: 'User' },
  { value: 'team', label: 'Team' },
  { value: 'sa', label: 'Service account' },
];

export function AssignmentsPage() {
  const { access } = useSession();
  const { query, route } = useLocation();
  const kind: SubjectKind = 'team' in query ? 'team' : 'sa' in query ? 'sa' : 'user';
  const id = Number(query[kind] ?? 0) || 0;
  const subjectScope = kind === 'team' ? `teams:id:${id}` : `users:id:${id}`;
  const roleRead = kind === 'team' ? 'teams.roles:read' : 'users.roles:read';
  const [add, remove] = kind === 'team' ? ['teams.roles:add', 'teams.roles:delete'] : ['users.roles:add', 'users.roles:delete'];
  const variables = {
    users: access.can('org.users:read'),
    teams: access.can('teams:read'),
    accounts: access.can('serviceaccounts:read'),
    assignable: access.can('roles:read', 'roles:*') && access.canManage(add),
    id,
    isUser: kind === 'user' && id > 0,
    isTeam: kind === 'team' && id > 0,
    isSa: kind === 'sa' && id > 0,
    roles: id > 0 && access.can(roleRead, subjectScope),
    sources: id > 0 && kind !== 'team' && access.can('users.permissions:read', subjectScope),
  };
  const { data, error, fetching, refresh } = useGraphql(QUERY, variables);
  const [status, setStatus] = useState<string | null>(null);

  const choose = (next: SubjectKind, nextId = 0) => {
    setStatus(null);
    route(nextId > 0 ? `/assignments?${next}=${nextId}` : `/assignments${next === 'user' ? '' : `?${next}=`}`);
  };

  const subjects =
    kind === 'user'
      ? (data?.users ?? []).map((u) => ({ id: u.id, name: u.name && u.name !== u.login ? `${u.login} (${u.name})` : u.login }))
      : kind === 'team'
        ? (data?.teams ?? [])
        : (data?.serviceAccounts ?? []);
  const subject = data?.user ?? data?.team ?? data?.serviceAccount;
  const subjectName = data?.user?.login ?? data?.team?.name ?? data?.serviceAccount?.name ?? '';
  const listable = kind === 'user' ? variables.users : kind === 'team' ? variables.teams : variables.accounts;

  return (
    <Page
      title="Assignments"
      intro="Roles assigned to a user, a team or a service account, and where each of their permissions comes from."
    >
      <div class="toolbar">
        <Segmented legend="Show the roles of a" name="subject-kind" value={kind} onValue={choose} choices={KINDS} />
        {listable ? (
          <SelectField
            id="subject"
            label={KINDS.find((k) => k.value === kind)?.label ?? ''}
            value={String(id)}
            onValue={(v) => choose(kind, Number(v))}
            choices={[{ value: '0', label: 'Choose…' }, ...subjects.map((s) => ({ value: String(s.id), label: s.name }))]}
          />
        ) : (
          <NotAllowed
            what={`list ${kind === 'sa' ? 'service accounts' : `${kind}s`}`}
            needs={kind === 'user' ? 'org.users:read' : kind === 'team' ? 'teams:read' : 'serviceaccounts:read'}
          />
        )}
      </div>
      {status && <Notice kind="status">{status}</Notice>}
      <QueryError error={error} />
      {!data && fetching && <Loading what="assignments" />}
      {subject && (
        <>
          <AssignedRoles
            key={`${kind}-${id}`}
            kind={kind}
            id={id}
            name={subjectName}
            roles={subject.roles}
            assignable={data?.assignable}
            canAdd={access.canManage(add)}
            canRemove={access.canManage(remove)}
            readNeeds={`${roleRead} on ${subjectScope}`}
            onChanged={(message) => {
              setStatus(message);
              refresh();
            }}
          />
          {data?.team && (
            <section aria-labelledby="members-heading">
              <h2 id="members-heading">Members</h2>
              <p>
                {data.team.members.length === 0
                  ? 'The team has no members.'
                  : `Every member holds the team's roles: ${data.team.members.map((m) => m.login).join(', ')}.`}
              </p>
            </section>
          )}
          {kind !== 'team' &&
            (data?.userPermissionSources ? (
              <EffectivePermissions grants={data.userPermissionSources} name={subjectName} />
            ) : (
              <NotAllowed what="see these permissions" needs={`users.permissions:read on ${subjectScope}`} />
            ))}
        </>
      )}
    </Page>
  );
}

function AssignedRoles(props: {
  kind: SubjectKind;
  id: number;
  name: string;
  /** Null or absent: the caller may not read them. */
  roles: readonly FragmentOf<typeof AssignmentFields>[] | null | undefined;
  assignable: readonly FragmentOf<typeof RoleRefFields>[] | undefined;
  canAdd: boolean;
  canRemove: boolean;
  readNeeds: string;
  onChanged: (message: string) => void;
}) {
  const { viewer, access } = useSession();
  const client = useClient();
  const team = props.kind === 'team';
  const [, addUser] = useMutation(ADD_USER);
  const [, removeUser] = useMutation(REMOVE_USER);
  const [, addTeam] = useMutation(ADD_TEAM);
  const [, removeTeam] = useMutation(REMOVE_TEAM);
  const [chosen, setChosen] = useState('');
  const [duration, setDuration] = useState<Duration>(FOR_GOOD);
  const [error, setError] = useState<string | null>(null);
  const assignments = props.roles ? readFragment(AssignmentFields, props.roles) : null;
  const roles = assignments?.map((a) => ({ ...readFragment(RoleRefFields, a.role), window: windowText(a) })) ?? null;
  const assigned = new Set((roles ?? []).map((r) => r.uid));
  const choices = readFragment(RoleRefFields, props.assignable ?? []).filter((r) => !assigned.has(r.uid));

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!chosen) {
      setError('Choose a role to assign.');
      return;
    }
    const expiresAt = expiresAtOf(duration);
    if (expiresAt === undefined) {
      setError('Choose the moment the role ends.');
      return;
    }
    setError(null);
    const result = team
      ? await addTeam({ teamId: props.id, roleUid: chosen, expiresAt })
      : await addUser({ userId: props.id, roleUid: chosen, expiresAt });
    if (result.error) {
      setError(errorMessage(result.error));
      return;
    }
    const role = choices.find((r) => r.uid === chosen);
    setChosen('');
    setDuration(FOR_GOOD);
    const until = expiresAt ? ` until ${new Date(expiresAt).toLocaleString()}` : '';
    props.onChanged(`Role “${role ? roleTitle(role) : chosen}” assigned to ${props.name}${until}.`);
  };

  const remove = async (role: RoleRef) => {
    const result = team
      ? await removeTeam({ teamId: props.id, roleUid: role.uid })
      : await removeUser({ userId: props.id, roleUid: role.uid });
    if (result.error || team || !role.global || !viewer?.isServiceAdmin) return result;
    // A global role may also be assigned globally (in every organization): remove that too.
    const still = await client.query(USER_ROLES, { id: props.id }).toPromise();
    const held = still.data?.user.roles ?? [];
    return held.some((r) => r.uid === role.uid) ? removeUser({ userId: props.id, roleUid: role.uid, global: true }) : result;
  };

  return (
    <section aria-labelledby="assigned-heading">
      <h2 id="assigned-heading">Roles of {props.name}</h2>
      {!roles ? (
        <NotAllowed what="see these roles" needs={props.readNeeds} />
      ) : roles.length === 0 ? (
        <p>No roles assigned{team ? '' : ' directly (the basic role of the org role and team roles still apply)'}.</p>
      ) : (
        <ul class="assigned">
          {roles.map((r, i) => (
            <li key={`${r.uid}-${i}`}>
              <KindTag name={r.name} />
              <RoleName role={r} />
              {r.window && <span class="window">{r.window}</span>}
              {props.canRemove && (
                <ConfirmButton
                  class="danger small push-right"
                  label={`Remove role ${roleTitle(r)} from ${props.name}`}
                  title={`Remove role “${roleTitle(r)}”?`}
                  question={`${props.name} ${team ? 'and its members lose' : 'loses'} the permissions of this role at once, unless another role grants them.`}
                  confirmLabel="Remove role"
                  onConfirm={() => remove(r)}
                  onDone={() => props.onChanged(`Role “${roleTitle(r)}” removed from ${props.name}.`)}
                >
                  Remove
                </ConfirmButton>
              )}
            </li>
          ))}
        </ul>
      )}
      {props.canAdd && props.assignable && (
        <form class="form-grid card" onSubmit={submit} aria-label={`Assign a role to ${props.name}`}>
          <SelectField
            id="assign-role"
            label="Role to assign"
            wide
            hint="Only the roles you may assign: those whose permissions you hold."
            value={chosen}
            onValue={setChosen}
            choices={[
              { value: '', label: 'Choose a role…' },
              ...choices.map((r) => ({ value: r.uid, label: r.displayName ? `${r.displayName} (${r.name})` : r.name })),
            ]}
          />
          <DurationFields value={duration} onValue={setDuration} />
          <div class="field field-end">
            <button type="submit">Assign role</button>
          </div>
          {error && <Notice kind="error">{error}</Notice>}
        </form>
      )}
      {props.canAdd && chosen && access.can('access:simulate') && (
        <ChangePreview
          key={chosen}
          changes={() => [
            team
              ? { kind: 'TEAM_ROLE_ADD', teamId: props.id, roleUid: chosen }
              : { kind: 'USER_ROLE_ADD', userId: props.id, roleUid: chosen },
          ]}
        />
      )}
    </section>
  );
}

/**
 * One team (`/teams/edit?id=<id>`): its name and email, changed with `updateTeam` (teams:write on
 * teams:id:<id>); its members, added from the organization's members with `addTeamMember` and
 * removed with `removeTeamMember` (teams:write or teams.permissions:write on teams:id:<id>; adding
 * also needs every permission of the team's roles, or users.roles:add on permissions:type:escalate,
 * as the server's delegation rule); its roles, managed on the assignments page; and deleting it
 * (`deleteTeam`, teams:delete on teams:id:<id>).
 */
import { useMutation } from '@urql/preact';
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ESCALATE } from '../access.js';
import { errorMessage } from '../api.js';
import { ConfirmButton } from '../dialogs.js';
import { SelectField, TextField } from '../fields.js';
import { KindTag, roleTitle } from '../format.js';
import { graphql, type ResultOf } from '../graphql.js';
import { Loading, NotAllowed, Notice } from '../notice.js';
import { useSession } from '../session.js';
import { Page, QueryError, useGraphql } from '../ui.js';
import { personName } from './people.js';

const QUERY = graphql(`query ConsoleTeam($id: Int!, $roles: Boolean!, $users: Boolean!) {
  team(id: $id) {
    id name email memberCount
    members(first: 1000) { id login name }
    roles @include(if: $roles) { uid name displayName permissions { action scope } }
  }
  orgUsers(page: 1, perPage: 1000) @include(if: $users) { user { id login name } }
}`);

const UPDATE = graphql(`mutation ConsoleUpdateTeam($id: Int!, $input: UpdateTeamInput!) { updateTeam(id: $id, input: $input) { id } }`);
const ADD = graphql(
  `mutation ConsoleAddTeamMember($teamId: Int!, $userId: Int!) { addTeamMember(teamId: $teamId, userId: $userId) { id } }`,
);
const REMOVE = graphql(`mutation ConsoleRemoveTeamMember($teamId: Int!, $userId: Int!) {
  removeTeamMember(teamId: $teamId, userId: $userId) { id }
}`);
const DELETE = graphql(`mutation ConsoleDeleteTeam($id: Int!) { deleteTeam(id: $id) { message } }`);

type Team = ResultOf<typeof QUERY>['team'];

export function TeamPage() {
  const { access } = useSession();
  const { query } = useLocation();
  const id = Number(query.id ?? 0) || 0;
  const scope = `teams:id:${id}`;
  const membersWritable = access.can('teams:write', scope) || access.can('teams.permissions:write', scope);
  const variables = { id, roles: access.can('teams.roles:read', scope), users: membersWritable && access.can('org.users:read') };
  const { data, error, fetching, refresh } = useGraphql(QUERY, variables, id === 0);
  const [done, setDone] = useState<string | null>(null);
  const [gone, setGone] = useState(false);
  const said = (message: string) => {
    setDone(message);
    refresh();
  };
  const team = gone ? undefined : data?.team;
  const [, remove] = useMutation(DELETE);

  return (
    <Page title={team ? `Team ${team.name}` : 'Team'}>
      <p>
        <a href="/teams">All teams</a>
      </p>
      {id === 0 && <Notice kind="info">Choose a team on the Teams page.</Notice>}
      {done && <Notice kind="status">{done}</Notice>}
      {!gone && <QueryError error={error} />}
      {!data && fetching && <Loading what="the team" />}
      {team && (
        <>
          <Details key={`${team.name}-${team.email}`} team={team} onSaved={said} />
          <Members team={team} writable={membersWritable} users={data?.orgUsers?.map((m) => m.user)} onChanged={said} />
          <section aria-labelledby="team-roles-heading">
            <h2 id="team-roles-heading">Roles</h2>
            {team.roles ? (
              team.roles.length === 0 ? (
                <p>The team has no roles.</p>
              ) : (
                <ul class="assigned">
                  {team.roles.map((r) => (
                    <li key={r.uid}>
                      <KindTag name={r.name} />
                      <span class="role-title">{roleTitle(r)}</span>
                    </li>
                  ))}
                </ul>
              )
            ) : (
              <NotAllowed what="see the team's roles" needs={`teams.roles:read on ${scope}`} />
            )}
            {team.roles && (
              <p>
                <a href={`/assignments?team=${team.id}`}>Roles of {team.name} on the assignments page</a>
              </p>
            )}
          </section>
          {access.can('teams:delete', scope) && (
            <section aria-labelledby="team-delete-heading">
              <h2 id="team-delete-heading">Delete</h2>
              <ConfirmButton
                class="danger"
                title={`Delete team ${team.name}?`}
                question="The team is deleted with its memberships and role assignments: its members lose the team's roles at once. This cannot be undone."
                confirmLabel="Delete team"
                onConfirm={() => remove({ id: team.id })}
                onDone={() => {
                  setDone(`Team “${team.name}” deleted.`);
                  setGone(true);
                }}
              >
                Delete team
              </ConfirmButton>
            </section>
          )}
        </>
      )}
    </Page>
  );
}

/** Name and email: a form for those who may write them, else the values. */
function Details({ team, onSaved }: { team: Team; onSaved: (message: string) => void }) {
  const { access } = useSession();
  const [, update] = useMutation(UPDATE);
  const [name, setName] = useState(team.name);
  const [email, setEmail] = useState(team.email);
  const [error, setError] = useState<string | null>(null);
  if (!access.can('teams:write', `teams:id:${team.id}`)) {
    return <p>{team.email ? `Email: ${team.email}.` : 'The team has no email.'}</p>;
  }
  const submit = async (e: Event) => {
    e.preventDefault();
    const result = await update({ id: team.id, input: { name: name.trim(), email: email.trim() } });
    if (result.error) setError(errorMessage(result.error));
    else onSaved(`Team “${name.trim()}” saved.`);
  };
  return (
    <form class="card form-grid" onSubmit={submit} aria-label={`Details of team ${team.name}`}>
      <TextField id="team-name" label="Name" required maxLength={190} value={name} onValue={setName} />
      <TextField id="team-email" label="Email (optional)" type="email" value={email} onValue={setEmail} />
      <div class="field field-end">
        <button type="submit">Save team</button>
      </div>
      {error && <Notice kind="error">{error}</Notice>}
    </form>
  );
}

function Members(props: {
  team: Team;
  writable: boolean;
  users: readonly { id: number; login: string; name: string }[] | undefined;
  onChanged: (message: string) => void;
}) {
  const { access } = useSession();
  const { team } = props;
  const [, add] = useMutation(ADD);
  const [, remove] = useMutation(REMOVE);
  const [chosen, setChosen] = useState('');
  const [error, setError] = useState<string | null>(null);
  const inTeam = new Set(team.members.map((m) => m.id));
  const candidates = (props.users ?? []).filter((u) => !inTeam.has(u.id));
  const held = team.roles?.flatMap((r) => r.permissions) ?? [];
  const mayAdd = props.writable && props.users !== undefined && (access.can('users.roles:add', ESCALATE) || access.covers(held));

  const submit = async (e: Event) => {
    e.preventDefault();
    const user = candidates.find((u) => String(u.id) === chosen);
    if (!user) {
      setError('Choose a member to add.');
      return;
    }
    const result = await add({ teamId: team.id, userId: user.id });
    if (result.error) {
      setError(errorMessage(result.error));
      return;
    }
    setChosen('');
    setError(null);
    props.onChanged(`${user.login} added to team ${team.name}.`);
  };
  return (
    <section aria-labelledby="team-members-heading">
      <h2 id="team-members-heading">Members ({team.memberCount})</h2>
      {team.members.length === 0 ? (
        <p>The team has no members.</p>
      ) : (
        <ul class="assigned">
          {team.members.map((m) => (
            <li key={m.id}>
              <a href={`/users/edit?id=${m.id}`}>{personName(m)}</a>
              {props.writable && (
                <ConfirmButton
                  class="danger small push-right"
                  label={`Remove ${m.login} from team ${team.name}`}
                  title={`Remove ${m.login} from team ${team.name}?`}
                  question={`${m.login} loses the team's roles at once, unless another source grants them.`}
                  confirmLabel="Remove member"
                  onConfirm={() => remove({ teamId: team.id, userId: m.id })}
                  onDone={() => props.onChanged(`${m.login} removed from team ${team.name}.`)}
                >
                  Remove
                </ConfirmButton>
              )}
            </li>
          ))}
        </ul>
      )}
      {mayAdd && (
        <form class="card form-grid" onSubmit={submit} aria-label={`Add a member to team ${team.name}`}>
          <SelectField
            id="team-add-member"
            label="Member of the organization"
            value={chosen}
            onValue={setChosen}
            choices={[{ value: '', label: 'Choose a member…' }, ...candidates.map((u) => ({ value: String(u.id), label: personName(u) }))]}
          />
          <div class="field field-end">
            <button type="submit">Add member</button>
          </div>
          {error && <Notice kind="error">{error}</Notice>}
        </form>
      )}
    </section>
  );
}

/**
 * Teams: the teams of the organization the caller may read (`teamSearch`, teams:read), searched
 * by name as you type, with their email and number of members; creating one (`createTeam`,
 * teams:create). Each name opens the team's page (team.tsx).
 */
import { useMutation } from '@urql/preact';
import { useState } from 'preact/hooks';
import { errorMessage } from '../api.js';
import { TextField } from '../fields.js';
import { graphql } from '../graphql.js';
import { Loading, NotAllowed, Notice } from '../notice.js';
import { useSession } from '../session.js';
import { Page, QueryError, useGraphql } from '../ui.js';

const QUERY = graphql(`query ConsoleTeams($query: String) {
  teamSearch(query: $query, perPage: 200) { totalCount teams { id name email memberCount } }
}`);

const CREATE = graphql(`mutation ConsoleCreateTeam($input: CreateTeamInput!) { createTeam(input: $input) { id name } }`);

export function TeamsPage() {
  const { access } = useSession();
  const readable = access.can('teams:read');
  const [text, setText] = useState('');
  const [done, setDone] = useState<{ message: string; id: number } | null>(null);
  const { data, error, fetching, refresh } = useGraphql(QUERY, { query: text.trim() || null }, !readable);

  if (!readable) {
    return (
      <Page title="Teams">
        <NotAllowed what="list teams" needs="teams:read" />
      </Page>
    );
  }
  const teams = data?.teamSearch.teams ?? [];
  return (
    <Page title="Teams" intro="Teams group members of the organization: every member holds the team's roles.">
      {done && (
        <Notice kind="status">
          {done.message} <a href={`/teams/edit?id=${done.id}`}>Open the team</a>
        </Notice>
      )}
      {access.can('teams:create') && (
        <NewTeam
          onCreated={(team) => {
            setDone({ message: `Team “${team.name}” created.`, id: team.id });
            refresh();
          }}
        />
      )}
      <section aria-labelledby="teams-heading">
        <h2 id="teams-heading">Teams of this organization</h2>
        <div class="toolbar">
          <TextField id="team-search" label="Search by name" type="search" value={text} onValue={setText} />
        </div>
        <QueryError error={error} />
        {!data && fetching && <Loading what="teams" />}
        {data &&
          (teams.length === 0 ? (
            <p>No team matches.</p>
          ) : (
            <table class="responsive">
              <caption class="visually-hidden">Teams</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Email</th>
                  <th scope="col">Members</th>
                </tr>
              </thead>
              <tbody>
                {teams.map((t) => (
                  <tr key={t.id}>
                    <td data-label="Name">
                      <a href={`/teams/edit?id=${t.id}`}>{t.name}</a>
                    </td>
                    <td data-label="Email" class="break">
                      {t.email}
                    </td>
                    <td data-label="Members">{t.memberCount}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
      </section>
    </Page>
  );
}

function NewTeam({ onCreated }: { onCreated: (team: { id: number; name: string }) => void }) {
  const [, create] = useMutation(CREATE);
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const result = await create({ input: { name: name.trim(), ...(email.trim() && { email: email.trim() }) } });
    if (result.error || !result.data) {
      setError(errorMessage(result.error));
      return;
    }
    setName('');
    setEmail('');
    onCreated(result.data.createTeam);
  };
  return (
    <form class="card form-grid" onSubmit={submit} aria-labelledby="new-team-heading">
      <h3 id="new-team-heading">New team</h3>
      <TextField id="new-team-name" label="Name" required maxLength={190} value={name} onValue={setName} />
      <TextField id="new-team-email" label="Email (optional)" type="email" value={email} onValue={setEmail} />
      <div class="field field-end">
        <button type="submit">Create team</button>
      </div>
      {error && <Notice kind="error">{error}</Notice>}
    </form>
  );
}

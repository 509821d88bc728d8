/**
 * Access requests: the "Request access" form (a role the caller may ask for, for how long, and
 * why), the caller's own requests (with "Cancel" while pending), and, to those who may decide
 * (access.requests:approve), the approver's queue: the organization's pending requests of other
 * people with "Approve" and "Deny". The server decides every rule (who may approve which role,
 * delegation in time, caps); the page offers only what the caller's permissions allow.
 */
import { useMutation } from '@urql/preact';
import { useState } from 'preact/hooks';
import { errorMessage } from '../api.js';
import { SelectField, TextField } from '../fields.js';
import { when } from '../format.js';
import { graphql, type ResultOf } from '../graphql.js';
import { Loading, Notice } from '../notice.js';
import { useSession } from '../session.js';
import { Page, QueryError, useGraphql } from '../ui.js';

const QUERY = graphql(`query ConsoleAccessRequests($create: Boolean!, $decide: Boolean!) {
  requestableRoles @include(if: $create) { uid name displayName maxRequestSeconds }
  mine: accessRequests(filter: { mine: true }, perPage: 50) {
    requests { ...AccessRequestFields }
  }
  queue: accessRequests(filter: { status: "pending" }, perPage: 100) @include(if: $decide) {
    requests { ...AccessRequestFields }
  }
}
fragment AccessRequestFields on AccessRequest {
  id status roleName roleDisplayName requesterId requesterLogin durationSeconds justification expiresAt grantExpiresAt decidedByLogin
}`);

const REQUEST = graphql(`mutation ConsoleRequestAccess($role: String!, $seconds: Int!, $why: String!) {
  requestAccess(roleUid: $role, durationSeconds: $seconds, justification: $why) { id }
}`);
const APPROVE = graphql(`mutation ConsoleApproveAccess($id: Int!) { approveAccessRequest(id: $id) { id status } }`);
const DENY = graphql(`mutation ConsoleDenyAccess($id: Int!) { denyAccessRequest(id: $id) { id status } }`);
const CANCEL = graphql(`mutation ConsoleCancelAccess($id: Int!) { cancelAccessRequest(id: $id) { id status } }`);

type Data = ResultOf<typeof QUERY>;
type Request = NonNullable<Data['mine']>['requests'][number];
type Role = NonNullable<Data['requestableRoles']>[number];

/** The durations offered, in hours (each only when the role allows it). */
const HOURS = [1, 2, 4, 8, 24];

/** "1 hour", "8 hours", "30 min": a duration for people. */
function duration(seconds: number): string {
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  const hours = seconds / 3600;
  return Number.isInteger(hours) ? `${hours} hour${hours === 1 ? '' : 's'}` : `${hours.toFixed(1)} hours`;
}

export function AccessRequestsPage() {
  const { access, viewer } = useSession();
  const create = access.can('access.requests:create');
  const decide = access.can('access.requests:approve');
  const { data, error, fetching, refresh } = useGraphql(QUERY, { create, decide });
  const [done, setDone] = useState<string | null>(null);
  const said = (message: string) => {
    setDone(message);
    refresh();
  };
  const queue = (data?.queue?.requests ?? []).filter((r) => r.requesterId !== viewer?.id);
  return (
    <Page
      title="Access requests"
      intro="Ask for a role for a while, with a reason. Someone who may grant the role approves or denies it; unanswered requests expire."
    >
      {done && <Notice kind="status">{done}</Notice>}
      <QueryError error={error} />
      {!data && fetching && <Loading what="access requests" />}
      {create && data?.requestableRoles && <RequestForm roles={data.requestableRoles} onDone={said} />}
      {data && <MyRequests requests={data.mine.requests} onDone={said} />}
      {decide && data?.queue && <Queue requests={queue} onDone={said} />}
    </Page>
  );
}

function RequestForm({ roles, onDone }: { roles: readonly Role[]; onDone: (message: string) => void }) {
  const [uid, setUid] = useState('');
  const [hours, setHours] = useState('1');
  const [why, setWhy] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [{ fetching }, request] = useMutation(REQUEST);
  const role = roles.find((r) => r.uid === uid);
  const offered = HOURS.filter((h) => !role || h * 3600 <= role.maxRequestSeconds);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    if (!role) return setError('Choose a role.');
    const result = await request({ role: role.uid, seconds: Number(hours) * 3600, why: why.trim() });
    if (result.error) return setError(errorMessage(result.error));
    setWhy('');
    onDone(`Access to “${role.displayName || role.name}” for ${duration(Number(hours) * 3600)} requested.`);
  };
  return (
    <section aria-labelledby="request-heading">
      <form class="card form-grid" onSubmit={submit} aria-labelledby="request-heading">
        <h2 id="request-heading">Request access</h2>
        <SelectField
          id="request-role"
          label="Role"
          value={uid}
          onValue={setUid}
          choices={[{ value: '', label: 'Choose…' }, ...roles.map((r) => ({ value: r.uid, label: r.displayName || r.name }))]}
        />
        <SelectField
          id="request-for"
          label="For how long"
          hint={role ? `At most ${duration(role.maxRequestSeconds)} for this role.` : undefined}
          value={hours}
          onValue={setHours}
          choices={offered.map((h) => ({ value: String(h), label: `For ${duration(h * 3600)}` }))}
        />
        <TextField id="request-why" label="Justification" required maxLength={1000} value={why} onValue={setWhy} />
        <div class="field field-end">
          <button type="submit" disabled={fetching}>
            Request access
          </button>
        </div>
        {error && <Notice kind="error">{error}</Notice>}
      </form>
    </section>
  );
}

/** The state of a request as people read it. */
function stateText(r: Request): string {
  if (r.status === 'pending') return `pending, expires ${when(r.expiresAt)}`;
  if (r.status === 'approved') return `approved by ${r.decidedByLogin ?? '?'}, held until ${when(r.grantExpiresAt)}`;
  if (r.status === 'denied') return `denied by ${r.decidedByLogin ?? '?'}`;
  return r.status;
}

function MyRequests({ requests, onDone }: { requests: readonly Request[]; onDone: (message: string) => void }) {
  const [, cancel] = useMutation(CANCEL);
  const [error, setError] = useState<string | null>(null);
  return (
    <section aria-labelledby="mine-heading">
      <h2 id="mine-heading">My requests</h2>
      {error && <Notice kind="error">{error}</Notice>}
      {requests.length === 0 ? (
        <p>You have asked for nothing yet.</p>
      ) : (
        <ul class="requests">
          {requests.map((r) => (
            <li key={r.id} class="card">
              <strong>{r.roleDisplayName || r.roleName}</strong> for {duration(r.durationSeconds)}: {stateText(r)}
              <p class="hint">{r.justification}</p>
              {r.status === 'pending' && (
                <button
                  type="button"
                  class="secondary small"
                  aria-label={`Cancel the request for ${r.roleDisplayName || r.roleName}`}
                  onClick={async () => {
                    const result = await cancel({ id: r.id });
                    if (result.error) setError(errorMessage(result.error));
                    else onDone('Request cancelled.');
                  }}
                >
                  Cancel
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Queue({ requests, onDone }: { requests: readonly Request[]; onDone: (message: string) => void }) {
  const [, approve] = useMutation(APPROVE);
  const [, deny] = useMutation(DENY);
  const [error, setError] = useState<string | null>(null);
  const answer = async (r: Request, verb: 'approve' | 'deny') => {
    setError(null);
    const result = await (verb === 'approve' ? approve({ id: r.id }) : deny({ id: r.id }));
    if (result.error) return setError(errorMessage(result.error));
    onDone(`Request of ${r.requesterLogin} for “${r.roleDisplayName || r.roleName}” ${verb === 'approve' ? 'approved' : 'denied'}.`);
  };
  return (
    <section aria-labelledby="queue-heading">
      <h2 id="queue-heading">Waiting for an answer</h2>
      {error && <Notice kind="error">{error}</Notice>}
      {requests.length === 0 ? (
        <p>No request is waiting.</p>
      ) : (
        <ul class="requests">
          {requests.map((r) => {
            const role = r.roleDisplayName || r.roleName;
            return (
              <li key={r.id} class="card">
                <strong>{r.requesterLogin}</strong> asks for <strong>{role}</strong> for {duration(r.durationSeconds)}
                <p class="hint">
                  “{r.justification}”. Expires {when(r.expiresAt)}.
                </p>
                <div class="row-actions">
                  <button
                    type="button"
                    class="small"
                    aria-label={`Approve ${r.requesterLogin}'s request for ${role}`}
                    onClick={() => void answer(r, 'approve')}
                  >
                    Approve
                  </button>
                  <button
                    type="button"
                    class="secondary small"
                    aria-label={`Deny ${r.requesterLogin}'s request for ${role}`}
                    onClick={() => void answer(r, 'deny')}
                  >
                    Deny
                  </button>
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

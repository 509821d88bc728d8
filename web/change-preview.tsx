/**
 * The preview of a change before it is saved (GraphQL `simulateAccessChange`): a button that asks
 * the gateway what the proposed changes would do, and its answer in one line per direction ("12
 * people gain teams:delete on teams:*; 3 lose users:write on users:*"), with what the caller's save
 * would be refused for. Shown to callers holding access:simulate; nothing is written.
 */
import { useClient } from '@urql/preact';
import { useState } from 'preact/hooks';
import { errorMessage } from './api.js';
import { graphql, type VariablesOf } from './graphql.js';
import { Notice } from './notice.js';

const SIMULATE = graphql(`query ConsoleSimulate($changes: [AccessChangeInput!]!) {
  simulateAccessChange(changes: $changes, first: 1) {
    affected allowed
    changes { allowed refusal { message } }
    summary { action scope gained lost }
  }
}`);

/** The proposed changes, as the query takes them. */
export type ProposedChanges = VariablesOf<typeof SIMULATE>['changes'];

type Answer = { text: string; refusals: string[] } | { error: string };

const people = (n: number) => (n === 1 ? '1 person' : `${n} people`);
const named = (row: { action: string; scope: string }) => (row.scope ? `${row.action} on ${row.scope}` : row.action);

/** "12 people gain a; 3 people lose b", or that nobody's permissions move. */
export function previewText(summary: readonly { action: string; scope: string; gained: number; lost: number }[]): string {
  const parts = [
    ...summary.filter((r) => r.gained > 0).map((r) => `${people(r.gained)} ${r.gained === 1 ? 'gains' : 'gain'} ${named(r)}`),
    ...summary.filter((r) => r.lost > 0).map((r) => `${people(r.lost)} ${r.lost === 1 ? 'loses' : 'lose'} ${named(r)}`),
  ];
  return parts.length > 0 ? parts.join('; ') : 'Nobody would gain or lose a permission.';
}

/** The preview button and its answer for `changes` (see the module comment). */
export function ChangePreview({ changes }: { changes: () => ProposedChanges }) {
  const client = useClient();
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [busy, setBusy] = useState(false);
  const preview = async () => {
    setBusy(true);
    const result = await client.query(SIMULATE, { changes: changes() }, { requestPolicy: 'network-only' }).toPromise();
    setBusy(false);
    const data = result.data?.simulateAccessChange;
    if (result.error || !data) {
      setAnswer({ error: result.error ? errorMessage(result.error) : 'No answer' });
      return;
    }
    const refusals = data.changes.flatMap((c) => (c.refusal ? [c.refusal.message] : []));
    setAnswer({ text: previewText(data.summary), refusals });
  };
  return (
    <div class="stack" data-testid="change-preview">
      <p class="actions">
        <button type="button" class="secondary" disabled={busy} onClick={preview}>
          Preview who gains and loses
        </button>
      </p>
      {answer && 'error' in answer && <Notice kind="error">{answer.error}</Notice>}
      {answer && 'text' in answer && (
        <Notice kind="info">
          <span data-testid="preview-text">{answer.text}</span>
          {answer.refusals.map((r) => (
            <span key={r}> Saving would be refused: {r}</span>
          ))}
        </Notice>
      )}
    </div>
  );
}

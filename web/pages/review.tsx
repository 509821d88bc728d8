/**
 * Access review: who in the organization holds an action (on a scope), and through what,
 * exported whole as a file (CSV, one line per path, or JSON lines, one line per subject). The
 * export streams from the REST export (review-export.ts) with a progress line ("12,400 of
 * 100,000 subjects, 3 s") and a Cancel button while it runs; the file is offered for download
 * when it is complete. Offered to callers holding access.review:read (the server checks it too).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage } from '../api.js';
import { SelectField, TextField } from '../fields.js';
import { NotAllowed, NotInEdition, Notice } from '../notice.js';
import { downloadExport, type ExportedFile, type ExportFormat, type ExportProgress, exportUrl, progressText } from '../review-export.js';
import { useSession } from '../session.js';
import { Page } from '../ui.js';

const FORMATS = [
  { value: 'csv', label: 'CSV (one line per path)' },
  { value: 'ndjson', label: 'JSON lines (one line per subject)' },
] as const;

type Run = { progress: ExportProgress; seconds: number; state: 'running' | 'done' | 'cancelled' | 'failed' };

export function ReviewPage() {
  const { access, rbac } = useSession();
  const [action, setAction] = useState('');
  const [scope, setScope] = useState('');
  const [format, setFormat] = useState<ExportFormat>('csv');
  const [run, setRun] = useState<Run | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [file, setFile] = useState<(ExportedFile & { href: string }) | null>(null);
  const controller = useRef<AbortController | null>(null);
  const link = useRef<HTMLAnchorElement>(null);

  // The file's address lives as long as the offer; leaving the page cancels a running export.
  useEffect(() => () => file && URL.revokeObjectURL(file.href), [file]);
  useEffect(() => () => controller.current?.abort(), []);
  // The download starts by itself once the file is complete; the link stays to save it again.
  useEffect(() => {
    if (file) link.current?.click();
  }, [file]);

  if (!rbac || !access.can('access.review:read')) {
    return (
      <Page title="Access review">
        {rbac ? <NotAllowed what="review the organization's access" needs="access.review:read" /> : <NotInEdition what="Access reviews" />}
      </Page>
    );
  }

  const start = async (e: Event) => {
    e.preventDefault();
    if (controller.current) return;
    const abort = new AbortController();
    controller.current = abort;
    setError(null);
    setFile(null);
    const began = performance.now();
    const seconds = () => (performance.now() - began) / 1000;
    let progress: ExportProgress = { received: 0, total: null };
    setRun({ progress, seconds: 0, state: 'running' });
    // The seconds move on while the server is still reading, between two chunks.
    const clock = setInterval(() => setRun((r) => (r?.state === 'running' ? { ...r, seconds: seconds() } : r)), 1000);
    try {
      const exported = await downloadExport(exportUrl(action.trim(), scope.trim(), format), format, abort.signal, (p) => {
        progress = p;
        setRun({ progress: p, seconds: seconds(), state: 'running' });
      });
      setRun({ progress, seconds: seconds(), state: 'done' });
      setFile({ ...exported, href: URL.createObjectURL(exported.blob) });
    } catch (err) {
      const cancelled = abort.signal.aborted;
      setRun({ progress, seconds: seconds(), state: cancelled ? 'cancelled' : 'failed' });
      if (!cancelled) setError(errorMessage(err));
    } finally {
      clearInterval(clock);
      controller.current = null;
    }
  };

  const running = run?.state === 'running';
  return (
    <Page
      title="Access review"
      intro="Who in this organization holds an action (on a scope), and through what: a direct role, a team, a basic role or Service Admin. Export the whole answer as a file."
    >
      <form class="form-grid card" onSubmit={start} aria-label="Access review export">
        <TextField
          id="review-action"
          label="Action"
          required
          autocomplete="off"
          placeholder="teams:delete"
          value={action}
          onValue={setAction}
          suggest={{ id: 'review-actions', values: access.actions() }}
        />
        <TextField
          id="review-scope"
          label="Scope (optional)"
          hint="Empty: on any scope."
          autocomplete="off"
          placeholder="teams:id:1"
          value={scope}
          onValue={setScope}
        />
        <SelectField id="review-format" label="Format" value={format} onValue={setFormat} choices={FORMATS} />
        <div class="field field-end">
          <button type="submit">Export</button>
          {running && (
            <button type="button" class="secondary" onClick={() => controller.current?.abort()}>
              Cancel
            </button>
          )}
        </div>
      </form>
      {run && (
        <p class="progress" role="status" data-testid="export-progress">
          {progressText(run.progress, run.seconds)}
          {run.state === 'running' && ': exporting…'}
          {run.state === 'done' && ': done.'}
          {run.state === 'cancelled' && ': cancelled.'}
        </p>
      )}
      {error && <Notice kind="error">{error}</Notice>}
      {file && (
        <p>
          <a ref={link} href={file.href} download={file.fileName}>
            Save {file.fileName}
          </a>{' '}
          ({file.subjects.toLocaleString('en-US')} subjects at revision {file.revision})
        </p>
      )}
    </Page>
  );
}

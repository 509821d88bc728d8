/**
 * The access review's export as a streamed body: CSV (one line per path) or NDJSON (a header
 * line, one line per subject, a trailer line), pulled from the rows as the client reads, so the
 * server holds one chunk of members at a time whatever the organization's size (holders.ts).
 */
import { DomainError } from '../../kernel/errors.js';
import type { ReviewRow } from './holders.js';
import type { WhoHasExport } from './service.js';

/**
 * The response header announcing how many subjects the export holds (users, service accounts and
 * API keys, counted at the revision of `x-access-revision`): what a client's progress line
 * counts towards, sent when the client asks for it (`count=true`). The NDJSON header line then
 * carries the same number as `subjects`.
 */
export const SUBJECTS_HEADER = 'x-review-subjects';

/** Columns of the CSV export, its first line. */
export const CSV_COLUMNS = [
  'subject_kind',
  'subject_id',
  'login',
  'org_role',
  'is_service_admin',
  'source',
  'role_uid',
  'role_name',
  'action',
  'scope',
] as const;

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, a quote or a line break. A text a
 * spreadsheet would read as a formula (starting with =, +, -, @, a tab or a carriage return) is
 * prefixed with an apostrophe (OWASP "CSV injection"): logins and role names come from users.
 */
export function csvCell(value: string | number | boolean): string {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The CSV lines of one subject: one per path. */
export function csvLines(row: ReviewRow): string {
  const { subject: s } = row;
  return row.paths
    .map((p) =>
      [s.kind, s.id, s.login, s.orgRole, s.isServiceAdmin, p.source, p.role.uid, p.role.name, p.permission.action, p.permission.scope]
        .map(csvCell)
        .join(','),
    )
    .map((line) => `${line}\r\n`)
    .join('');
}

/** A subject as JSON: the subject and its paths, roles by uid and name. */
export function rowJson(row: ReviewRow) {
  return {
    subject: row.subject,
    paths: row.paths.map((p) => ({ role: { uid: p.role.uid, name: p.role.name }, source: p.source, permission: p.permission })),
  };
}

/**
 * The export's body and headers (module comment): `x-access-revision`, the revision the rows are
 * read at, and SUBJECTS_HEADER, how many subjects they hold (when counted). NDJSON starts with
 * `{"header": {"revision", "subjects", "action", "scope"}}` and ends with a trailer line
 * `{"trailer": {"subjects", "revision", "revisionAtEnd"}}`, or `{"error": {"code", "message"}}`
 * when reading failed; a CSV export that fails is cut short (the client sees the body end early).
 */
export function exportResponse(exported: WhoHasExport, filter: { action: string; scope?: string | null }): Response {
  const encoder = new TextEncoder();
  const rows = exported.rows[Symbol.asyncIterator]();
  const csv = exported.format === 'csv';
  let subjects = 0;
  let done = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const header = csv
        ? `${CSV_COLUMNS.join(',')}\r\n`
        : `${JSON.stringify({ header: { revision: exported.revision, ...(exported.subjects !== null && { subjects: exported.subjects }), ...filter } })}\n`;
      controller.enqueue(encoder.encode(header));
    },
    async pull(controller) {
      if (done) return;
      try {
        const next = await rows.next();
        if (!next.done) {
          subjects++;
          controller.enqueue(encoder.encode(csv ? csvLines(next.value) : `${JSON.stringify(rowJson(next.value))}\n`));
          return;
        }
        done = true;
        if (!csv) {
          const trailer = { subjects, revision: exported.revision, revisionAtEnd: await exported.revisionNow() };
          controller.enqueue(encoder.encode(`${JSON.stringify({ trailer })}\n`));
        }
        controller.close();
      } catch (error) {
        done = true;
        if (csv) return controller.error(error);
        const known =
          error instanceof DomainError ? { code: error.code, message: error.message } : { code: 'INTERNAL', message: 'Internal error' };
        controller.enqueue(encoder.encode(`${JSON.stringify({ error: known })}\n`));
        controller.close();
      }
    },
    async cancel() {
      done = true;
      await rows.return?.();
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      'content-disposition': `attachment; filename="access-review.${csv ? 'csv' : 'ndjson'}"`,
      'x-access-revision': String(exported.revision),
      ...(exported.subjects !== null && { [SUBJECTS_HEADER]: String(exported.subjects) }),
      'cache-control': 'no-store',
    },
  });
}

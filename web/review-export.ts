/**
 * The access review's export as the console downloads it: the REST export
 * (`GET /api/access-control/review/who-has/export`, docs/api.md "Access review") read with a
 * stream reader as it arrives, its subjects counted on the way against the total the server
 * announces (`x-review-subjects`, counted at the export's revision), then handed over as a Blob.
 * An AbortSignal stops it (the request and the server's walk end with it).
 */
import { ApiError } from './api.js';

/** The export's file formats: CSV (one line per path) or NDJSON (one line per subject). */
export type ExportFormat = 'csv' | 'ndjson';

/** How far an export is: subjects received so far of `total` (null until the answer's headers came). */
export interface ExportProgress {
  received: number;
  total: number | null;
}

/** A finished export: the file, its name and how many subjects it holds. */
export interface ExportedFile {
  blob: Blob;
  fileName: string;
  subjects: number;
  revision: number;
}

/**
 * Counts the subjects in an export's text, fed chunk by chunk as it arrives. NDJSON: one subject
 * per line, the header, trailer and error lines aside. CSV: the lines of one subject follow each
 * other (one per path), so a subject starts where the first two cells (kind, id: never quoted)
 * change; the column line aside, and the continuation of a quoted cell holding a line break.
 */
export class SubjectCounter {
  private rest = '';
  private first = true;
  private previous = '';
  /** Inside a quoted CSV cell that holds a line break: the line continues the previous one. */
  private quoted = false;
  count = 0;

  constructor(private readonly format: ExportFormat) {}

  /** Feeds the next piece of text (`end`: the last one). */
  feed(text: string, end = false): void {
    const lines = (this.rest + text).split('\n');
    this.rest = end ? '' : (lines.pop() ?? '');
    for (const raw of lines) {
      const line = raw.replace(/\r$/, '');
      if (line === '') continue;
      if (this.first) {
        this.first = false;
        continue;
      }
      if (this.format === 'ndjson') {
        if (line.startsWith('{"subject"')) this.count++;
        continue;
      }
      const continued = this.quoted;
      if ((line.split('"').length - 1) % 2 === 1) this.quoted = !this.quoted;
      if (continued) continue;
      const key = line.split(',', 2).join(',');
      if (key !== this.previous) this.count++;
      this.previous = key;
    }
  }
}

/** The export's address for `action` (on `scope` when not empty) in `format`. */
export function exportUrl(action: string, scope: string, format: ExportFormat): string {
  const query = new URLSearchParams({ action, format, count: 'true' });
  if (scope) query.set('scope', scope);
  return `/api/access-control/review/who-has/export?${query}`;
}

/**
 * Downloads the export at `url`, calling `onProgress` as subjects arrive.
 * @throws ApiError when the server refuses (its message and code); the signal's AbortError when
 *   cancelled; ApiError EXPORT_FAILED when an NDJSON export ends with an error line.
 */
export async function downloadExport(
  url: string,
  format: ExportFormat,
  signal: AbortSignal,
  onProgress: (progress: ExportProgress) => void,
): Promise<ExportedFile> {
  // Cancel ends the wait at once, also while the request is still held on the way (a proxy).
  const aborted = new Promise<never>((_, reject) => {
    const fail = () => reject(signal.reason);
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  aborted.catch(() => undefined);
  const response = await Promise.race([fetch(url, { credentials: 'same-origin', signal }), aborted]);
  if (!response.ok || !response.body) {
    const body = (await response.json().catch(() => ({}))) as { message?: string; code?: string };
    throw new ApiError(body.message ?? `The server answered ${response.status}.`, response.status, body.code);
  }
  const announced = response.headers.get('x-review-subjects');
  const total = announced === null ? null : Number(announced);
  const counter = new SubjectCounter(format);
  const decoder = new TextDecoder();
  const chunks: BlobPart[] = [];
  let tail = '';
  onProgress({ received: 0, total });
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await Promise.race([reader.read(), aborted]);
    if (done) break;
    chunks.push(value);
    const text = decoder.decode(value, { stream: true });
    counter.feed(text);
    tail = (tail + text).slice(-4096);
    onProgress({ received: counter.count, total });
  }
  counter.feed(decoder.decode(), true);
  onProgress({ received: counter.count, total });
  const failed = format === 'ndjson' ? /\{"error":(\{.*\})\}\s*$/.exec(tail) : null;
  if (failed) {
    const error = JSON.parse(failed[1] as string) as { message?: string; code?: string };
    throw new ApiError(error.message ?? 'The export failed.', 500, error.code ?? 'EXPORT_FAILED');
  }
  return {
    blob: new Blob(chunks, { type: response.headers.get('content-type') ?? 'application/octet-stream' }),
    fileName: `access-review.${format === 'csv' ? 'csv' : 'ndjson'}`,
    subjects: counter.count,
    revision: Number(response.headers.get('x-access-revision')),
  };
}

/** "12,400 of 100,000 subjects, 3 s" (the total left out until known). */
export function progressText({ received, total }: ExportProgress, seconds: number): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const of = total === null ? '' : ` of ${n(total)}`;
  return `${n(received)}${of} ${total === 1 ? 'subject' : 'subjects'}, ${Math.floor(seconds)} s`;
}

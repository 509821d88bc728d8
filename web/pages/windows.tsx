/**
 * Time-bound assignments in the console: the duration chosen when assigning ("for good", "for 1
 * hour", "for 8 hours", "until ..."), and how a listed assignment reads ("expires in 2 h",
 * "pending: starts in 10 min"). The server decides with its own clock; these words are for people.
 */
import { SelectField, TextField } from '../fields.js';

/** The durations offered, in hours; "" is for good, "until" a moment typed in. */
const DURATIONS = [
  { value: '', label: 'For good' },
  { value: '1', label: 'For 1 hour' },
  { value: '8', label: 'For 8 hours' },
  { value: '24', label: 'For 24 hours' },
  { value: 'until', label: 'Until…' },
];

/** The duration as chosen: one of DURATIONS, and the moment typed for "until". */
export interface Duration {
  choice: string;
  until: string;
}

export const FOR_GOOD: Duration = { choice: '', until: '' };

/** The `expiresAt` the choice means now (ISO 8601), null for good; undefined when "until" holds no valid moment. */
export function expiresAtOf(duration: Duration, now = Date.now()): string | null | undefined {
  if (duration.choice === '') return null;
  if (duration.choice === 'until') {
    const moment = new Date(duration.until);
    return Number.isNaN(moment.getTime()) ? undefined : moment.toISOString();
  }
  return new Date(now + Number(duration.choice) * 3_600_000).toISOString();
}

/** The duration fields of an assignment form. */
export function DurationFields(props: { value: Duration; onValue: (value: Duration) => void }) {
  return (
    <>
      <SelectField
        id="assign-for"
        label="For how long"
        value={props.value.choice}
        onValue={(choice) => props.onValue({ ...props.value, choice })}
        choices={DURATIONS}
      />
      {props.value.choice === 'until' && (
        <TextField
          id="assign-until"
          label="Until"
          type="datetime-local"
          hint="Your local time. The role is refused from that moment on."
          value={props.value.until}
          onValue={(until) => props.onValue({ ...props.value, until })}
        />
      )}
    </>
  );
}

/** "3 min", "2 h 5 min", "4 d": a span for people. */
function span(ms: number): string {
  const minutes = Math.max(1, Math.round(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  return `${Math.round(hours / 24)} d`;
}

/** How an assignment's window reads now: "pending: starts in …", "expires in …", or "" for good. */
export function windowText(window: { notBefore?: unknown; expiresAt?: unknown }, now = Date.now()): string {
  const start = typeof window.notBefore === 'string' ? Date.parse(window.notBefore) : Number.NaN;
  const end = typeof window.expiresAt === 'string' ? Date.parse(window.expiresAt) : Number.NaN;
  if (start > now) return `pending: starts in ${span(start - now)}${Number.isNaN(end) ? '' : `, for ${span(end - start)}`}`;
  if (end > now) return `expires in ${span(end - now)}`;
  return '';
}

/**
 * Small building blocks every page uses: the page frame (title, focus on navigation), notices,
 * the confirmation dialog and its button, the once-shown secret, and formatting of dates and
 * roles. Form fields are in fields.tsx.
 */

import { type AnyVariables, type CombinedError, type DocumentInput, useQuery } from '@urql/preact';
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { errorMessage, isUnauthenticated } from './api.js';
import { useSession } from './session.js';

/** False until the first page has shown: a page load keeps the browser's own focus (skip link first). */
let navigated = false;

/**
 * The page's heading and title. After a navigation inside the console focus moves to the
 * heading, so keyboard and screen-reader users start at the new page's top.
 */
export function Page({ title, intro, children }: { title: string; intro?: ComponentChildren; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · portcullis`;
    if (navigated) heading.current?.focus();
    navigated = true;
  }, [title]);
  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        {title}
      </h1>
      {intro && <p class="intro">{intro}</p>}
      {children}
    </>
  );
}

/** A message: `status` is announced politely, `error` at once. */
export function Notice({ kind, children }: { kind: 'status' | 'error' | 'info'; children: ComponentChildren }) {
  if (kind === 'error') {
    return (
      <div class="notice notice-error" role="alert">
        {children}
      </div>
    );
  }
  return (
    <div class={`notice notice-${kind}`} role={kind === 'status' ? 'status' : undefined}>
      {children}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  );
}

/** Why something is not shown: the permission it needs. */
export function NotAllowed({ what, needs }: { what: string; needs: string }) {
  return (
    <Notice kind="info">
      You may not {what}: it needs <code>{needs}</code>.
    </Notice>
  );
}

/** Query hook: always from the network, with a `refresh` that fetches again; a 401 ends the session in the page. */
export function useGraphql<Data, Variables extends AnyVariables = AnyVariables>(
  query: DocumentInput<Data, Variables>,
  variables: Variables,
  pause = false,
): { data: Data | undefined; error: CombinedError | undefined; fetching: boolean; refresh: () => void } {
  const [result, execute] = useQuery<Data, Variables>({ query, variables, pause, requestPolicy: 'network-only' } as never);
  const { reload } = useSession();
  const signedOut = isUnauthenticated(result.error);
  useEffect(() => {
    // The session ended (expired, revoked, signed out elsewhere): the frame shows the sign-in page.
    if (signedOut) void reload();
  }, [signedOut, reload]);
  return {
    data: result.data,
    error: result.error,
    fetching: result.fetching,
    refresh: () => execute({ requestPolicy: 'network-only' }),
  };
}

/** The error of a query, or nothing. */
export function QueryError({ error }: { error: CombinedError | undefined }) {
  if (!error) return null;
  return <Notice kind="error">{errorMessage(error)}</Notice>;
}

/**
 * A modal confirmation (native `<dialog>`: focus stays inside, Escape cancels, focus returns to
 * the control that opened it). `onConfirm` does the thing and resolves with its result: an
 * `error` is shown in the dialog, which stays open; otherwise the caller closes it (or changes
 * the question). The confirm button is disabled while it runs.
 */
export function ConfirmDialog(props: {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => Promise<{ error?: CombinedError | undefined }>;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    const failure = await props.onConfirm().then(
      (result) => result.error,
      (thrown: unknown) => thrown,
    );
    setBusy(false);
    if (failure) setError(errorMessage(failure));
  };
  return (
    <dialog
      ref={dialog}
      class="dialog"
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        props.onCancel();
      }}
    >
      <h2 id={titleId}>{props.title}</h2>
      <div class="dialog-body">{props.children}</div>
      {error && <Notice kind="error">{error}</Notice>}
      <div class="actions">
        <button type="button" class="danger" disabled={busy} onClick={() => void confirm()}>
          {props.confirmLabel}
        </button>
        <button type="button" class="secondary" onClick={props.onCancel} autofocus>
          Cancel
        </button>
      </div>
    </dialog>
  );
}

/**
 * A button that asks first (delete, remove, reset): it opens a ConfirmDialog with `title`,
 * `question` and `confirmLabel`; `onConfirm` runs the change (its error keeps the dialog open
 * and shown), then `onDone` follows and the dialog closes. `label` is the button's accessible
 * name when its text alone ("Delete") does not say what it acts on; `onOpen` runs as it opens.
 */
export function ConfirmButton(props: {
  class: string;
  label?: string;
  children: ComponentChildren;
  title: string;
  question: string;
  confirmLabel: string;
  onOpen?: () => void;
  onConfirm: () => Promise<{ error?: CombinedError | undefined }>;
  onDone: () => void;
}) {
  const [open, setOpen] = useState(false);
  const confirm = async () => {
    const result = await props.onConfirm();
    if (!result.error) {
      setOpen(false);
      props.onDone();
    }
    return result;
  };
  return (
    <>
      <button
        type="button"
        class={props.class}
        aria-label={props.label}
        onClick={() => {
          props.onOpen?.();
          setOpen(true);
        }}
      >
        {props.children}
      </button>
      {open && (
        <ConfirmDialog title={props.title} confirmLabel={props.confirmLabel} onConfirm={confirm} onCancel={() => setOpen(false)}>
          <p>{props.question}</p>
        </ConfirmDialog>
      )}
    </>
  );
}

/**
 * A secret shown once (an API key, a token): kept only in this component's memory, never in
 * storage; copy button, and the field selected for a manual copy when the clipboard is not
 * available (plain http on another host).
 */
export function SecretReveal({ title, secret, usage, onDone }: { title: string; secret: string; usage?: string; onDone: () => void }) {
  const box = useRef<HTMLElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const id = useId();
  useEffect(() => {
    box.current?.focus();
  }, []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      field.current?.select();
      setCopied('The clipboard is not available here: the key is selected, press Ctrl+C (⌘C) to copy it.');
    }
  };
  return (
    <section class="secret" ref={box} tabIndex={-1} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{title}</h3>
      <p>
        <strong>Copy it now: it is shown only this once.</strong> The server keeps only a hash of it.
      </p>
      <label for={`${id}-value`}>Secret</label>
      <div class="secret-row">
        <input
          id={`${id}-value`}
          ref={field}
          class="mono"
          type="text"
          readOnly
          value={secret}
          autocomplete="off"
          spellcheck={false}
          onFocus={(e) => e.currentTarget.select()}
        />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      {usage && <p class="hint">{usage}</p>}
      <p class="hint" role="status">
        {copied}
      </p>
      <button type="button" class="secondary" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}

const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A timestamp for people; `never` when null. */
export function when(value: string | null | undefined, never = 'Never'): string {
  if (!value) return never;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : DATE.format(date);
}

export type RoleKind = 'basic' | 'fixed' | 'product' | 'custom';

/** The kind of a role, from its name's prefix (Grafana's naming). */
export function roleKind(name: string): RoleKind {
  if (name.startsWith('basic:')) return 'basic';
  if (name.startsWith('fixed:')) return 'fixed';
  if (name.startsWith('plugins:')) return 'product';
  return 'custom';
}

/** A role's kind as a coloured tag (basic, fixed, product, custom). */
export function KindTag({ name }: { name: string }) {
  const kind = roleKind(name);
  return <span class={`kind kind-${kind}`}>{kind}</span>;
}

/** What people call a role: its display name, else its name. */
export function roleTitle(role: { name: string; displayName: string }): string {
  return role.displayName || role.name;
}

/** How a role reaches a user, for people: direct, team X, basic role Viewer... */
export function sourceLabel(source: string): string {
  if (source === 'direct') return 'Assigned directly';
  if (source.startsWith('team:')) return `Team ${source.slice('team:'.length)}`;
  if (source.startsWith('basic:')) {
    const role = source.slice('basic:'.length);
    return `Basic role ${role.charAt(0).toUpperCase()}${role.slice(1)}`;
  }
  if (source === 'service-admin') return 'Service Admin';
  if (source === 'api-key') return 'API key role';
  return source;
}

/** A permission as text: `action on scope`, or the action alone. */
export function permissionText(p: { action: string; scope: string }): string {
  return p.scope ? `${p.action} on ${p.scope}` : p.action;
}

/** `1 role`, `3 roles`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

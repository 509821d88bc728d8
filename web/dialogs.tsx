/**
 * Asking first and showing once: the confirmation dialog and its button, the once-shown secret,
 * and where focus lands when either one's control goes away (WCAG 2.4.3, focus order: a removed
 * control must not leave focus on <body>, where keyboard and screen-reader users lose their place).
 */
import type { CombinedError } from '@urql/preact';
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { errorMessage } from './api.js';
import { Notice } from './notice.js';

/** Focusable from script without joining the Tab order (headings are not focusable by default). */
function focusable(el: HTMLElement): HTMLElement {
  if (!el.hasAttribute('tabindex')) el.tabIndex = -1;
  return el;
}

/** The heading naming the closest `selector` around `from` (its `aria-labelledby`), if any. */
function headingAround(from: Element | null | undefined, selector: string): HTMLElement | null {
  const labelled = from?.closest(selector)?.getAttribute('aria-labelledby');
  const heading = labelled ? document.getElementById(labelled) : null;
  return heading?.isConnected ? heading : null;
}

/**
 * Moves focus, once the change has rendered (after the current task), to where the user continues
 * after the control `from` acted and was removed or replaced (a row deleted, a secret dismissed):
 * with `prefer: 'notice'` the page's status notice saying what happened, when there is one; else
 * the heading of the section (`within` selects which ancestors count, nearest first) `from` was
 * in, captured now, before the change removes it; else the page's h1.
 */
export function landFocus(from: Element | null, { prefer, within }: { prefer: 'notice' | 'heading'; within: string }): void {
  const heading = headingAround(from, within);
  setTimeout(() => {
    const notice = prefer === 'notice' ? document.querySelector<HTMLElement>('main .notice-status') : null;
    const target = notice ?? (heading?.isConnected ? heading : null) ?? document.querySelector<HTMLElement>('main h1');
    if (target) focusable(target).focus();
  }, 0);
}

/**
 * A modal confirmation (native `<dialog>`: focus stays inside, Escape cancels, focus returns to
 * the control that opened it). `onConfirm` does the thing and resolves with its result: an
 * `error` is shown in the dialog, which stays open, and takes the focus; otherwise the caller
 * closes it (and moves focus on with `landFocus`, since the opener may be gone) or changes the
 * question. The confirm button is disabled while it runs.
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
  useEffect(() => {
    // Disabling the focused confirm button while it ran dropped focus: still open (an error, or a
    // new question), the dialog gives it to the error, else back to the confirm button.
    const d = dialog.current;
    if (busy || !d?.open || d.contains(document.activeElement)) return;
    (d.querySelector<HTMLElement>('.notice-error') ?? d.querySelector<HTMLElement>('button.danger'))?.focus();
  }, [busy, error]);
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

/** The sections whose heading focus falls back to after a confirmed change (an article is often what was deleted). */
const CHANGE_SECTIONS = 'section[aria-labelledby]';

/**
 * A button that asks first (delete, remove, reset): it opens a ConfirmDialog with `title`,
 * `question` and `confirmLabel`; `onConfirm` runs the change (its error keeps the dialog open
 * and shown), then `onDone` follows, the dialog closes and focus lands on the page's status
 * notice (else the section's heading: the button itself may be gone with its row). `label` is
 * the button's accessible name when its text alone ("Delete") does not say what it acts on;
 * `onOpen` runs as it opens.
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
  const opener = useRef<HTMLButtonElement>(null);
  const [open, setOpen] = useState(false);
  const confirm = async () => {
    const result = await props.onConfirm();
    if (!result.error) {
      setOpen(false);
      props.onDone();
      landFocus(opener.current, { prefer: 'notice', within: CHANGE_SECTIONS });
    }
    return result;
  };
  return (
    <>
      <button
        ref={opener}
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
 * available (plain http on another host). "I have copied it" calls `onDone`, which removes it,
 * and focus goes to the heading of the section or card it was shown in.
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
  const done = () => {
    landFocus(box.current?.parentElement ?? null, { prefer: 'heading', within: 'section[aria-labelledby], article[aria-labelledby]' });
    onDone();
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
      <button type="button" class="secondary" onClick={done}>
        I have copied it
      </button>
    </section>
  );
}

/**
 * Messages on a page: notices (done, failed, for your information), "loading", and why something
 * is not shown (a permission the caller lacks, a part the server's edition leaves out).
 */
import type { ComponentChildren } from 'preact';

/**
 * A message: `status` is announced politely, `error` at once. Both can take focus from script
 * (tabIndex -1, not in the Tab order): after a change removes the control that had focus, focus
 * lands on the notice saying what happened (dialogs.tsx `landFocus`, WCAG 2.4.3).
 */
export function Notice({ kind, children }: { kind: 'status' | 'error' | 'info'; children: ComponentChildren }) {
  if (kind === 'error') {
    return (
      <div class="notice notice-error" role="alert" tabIndex={-1}>
        {children}
      </div>
    );
  }
  if (kind === 'status') {
    return (
      <div class="notice notice-status" role="status" tabIndex={-1}>
        {children}
      </div>
    );
  }
  return <div class="notice notice-info">{children}</div>;
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

/**
 * Why a page is empty on a server of the oss edition (EDITION=oss, `session.rbac` false): its
 * GraphQL and REST have no role-based access control, so roles, assignments and permission
 * checks do not exist there; asking for the permission would mislead.
 */
export function NotInEdition({ what }: { what: string }) {
  return (
    <Notice kind="info">
      {what} are not available in this edition: this server runs the oss edition, where role-based access control is off. Org Admins manage
      the <a href="/api-keys">API keys</a>.
    </Notice>
  );
}

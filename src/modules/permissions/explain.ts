/**
 * The answer of a check (service.ts `check`, batch.ts): allowed, and its reason, the grants of
 * kernel/grants.ts.
 */
import type { PermissionPair } from '../../kernel/catalogue.js';
import type { AccessGrant } from '../../kernel/grants.js';

/** The answer of a check. */
export interface AccessCheck {
  allowed: boolean;
  /** When allowed: until when at the latest (the longest of `grantedBy`); null: for good, or denied. */
  allowedUntil: Date | null;
  grantedBy: AccessGrant[];
  /** What would be needed when denied: the action on each target scope (one of them suffices). */
  missing: PermissionPair[];
  /** The subject's account is disabled: it holds nothing while disabled (`allowed` is false). */
  subjectDisabled: boolean;
}

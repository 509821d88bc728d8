/**
 * The edition guard. Role-based access control exists only in the enterprise edition; in the
 * oss edition every `/api/access-control/*` path and every RBAC GraphQL field answers 404
 * (upstream-behaviour.md "Editions"; Grafana OSS has no RBAC API). API keys and the directory
 * exist in both editions.
 */
import { DomainError } from './errors.js';

/** `enterprise` (default) or `oss`. */
export type Edition = 'enterprise' | 'oss';

/** Checks that the RBAC API is available; services call it first. */
export interface EditionGuard {
  readonly edition: Edition;
  /** @throws DomainError ACCESS_CONTROL_UNAVAILABLE (404) in the oss edition. */
  assertAvailable(): void;
}

/** The message of every oss-edition 404, on both doors. */
export const UNAVAILABLE_MESSAGE = 'Role-based access control is not available in this edition';

/** Guard for `edition`. */
export function editionGuard(edition: Edition): EditionGuard {
  return {
    edition,
    assertAvailable() {
      if (edition !== 'enterprise') throw new DomainError('ACCESS_CONTROL_UNAVAILABLE', UNAVAILABLE_MESSAGE);
    },
  };
}

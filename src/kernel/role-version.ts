/**
 * The one rule for role versions, wherever a version is written: the REST and GraphQL create and
 * update doors, provisioning files, and the automatic bumps of a basic-role reset, a product's
 * re-registration and the seed.
 *
 * Versions are whole numbers from 0 to 2147483647 (GraphQL's Int is 32-bit, so a larger stored
 * version could not be answered). An update must send a higher version than the stored one
 * (Grafana: "the provided role version is smaller than or equal to stored role"); a role at the
 * ceiling has no higher version, so it accepts the ceiling again and never becomes read-only. A
 * role is created at most one below the ceiling, so the usual next version (stored + 1) of its
 * first update always exists. Automatic bumps stop at the ceiling.
 */

/** Highest version any role may hold. */
export const MAX_ROLE_VERSION = 2_147_483_647;

/** Highest version a role may be created with: one below the ceiling, leaving room for an update. */
export const MAX_CREATE_VERSION = MAX_ROLE_VERSION - 1;

/** True when an update sending `sent` may replace a role stored at `stored` (module comment). */
export function acceptsVersion(sent: number, stored: number): boolean {
  return sent > stored || (sent === MAX_ROLE_VERSION && stored === MAX_ROLE_VERSION);
}

/** The version after an automatic change of a role stored at `stored`: one higher, at most the ceiling. */
export function bumpedVersion(stored: number): number {
  return Math.min(stored + 1, MAX_ROLE_VERSION);
}

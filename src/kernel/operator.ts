/**
 * The local operator: whoever runs the CLI on the machine that holds the database. Having the
 * database file already gives full control, so the CLI acts as a Service Admin (and org Admin of
 * the organization it names) without credentials, through the same core services as both doors.
 */
import type { Principal, UserPrincipal } from './principal.js';

/** Principal id of the local operator: no users row has id 0. */
export const LOCAL_OPERATOR_ID = 0;

/** The CLI's principal, acting in `orgId` as a Service Admin and org Admin. */
export function localOperator(orgId: number): UserPrincipal {
  return {
    kind: 'user',
    id: LOCAL_OPERATOR_ID,
    login: 'local-operator',
    orgId,
    orgRole: 'Admin',
    isServiceAdmin: true,
    authMethod: 'local',
  };
}

/** True for the CLI's principal, which has no users row (so it cannot become a member of anything). */
export function isLocalOperator(principal: Principal): boolean {
  return principal.kind === 'user' && principal.id === LOCAL_OPERATOR_ID && principal.authMethod === 'local';
}

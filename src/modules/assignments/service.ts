/**
 * The assignments feature's public face: the subject-assignment core (core.ts) and its user and
 * team adapters with their requirements (stores.ts), and the events of time-bound assignments'
 * starts and ends (boundaries.ts). Other modules import from here only.
 */

export { type AssignableRole, assignableRole } from './assignable.js';
export { AssignmentBoundaries } from './boundaries.js';
export { SubjectAssignments } from './core.js';
export { teamRoleRequirements, teamStore, userRoleRequirements, userStore } from './stores.js';

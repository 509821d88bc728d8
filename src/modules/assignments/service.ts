/**
 * The assignments feature's public face: the subject-assignment core (core.ts) and its user and
 * team adapters with their requirements (stores.ts). Other modules import from here only.
 */
export { SubjectAssignments } from './core.js';
export { teamRoleRequirements, teamStore, userRoleRequirements, userStore } from './stores.js';

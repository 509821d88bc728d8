/** Inputs of organizations and their memberships, shared by every door. */
import { z } from 'zod';
import { idInput, nameInput, orgRoleInput } from '../../kernel/inputs.js';

/** createOrganization input. */
export const createOrganizationInput = z.object({ name: nameInput('name') }, { error: 'input must be an object' });
/** addOrgUser / removeOrgUser arguments. */
export const membershipInput = z.object({ orgId: idInput('orgId'), userId: idInput('userId') });
/** addOrgUser / updateOrgUserRole arguments. */
export const orgUserRoleInput = membershipInput.extend({ role: orgRoleInput });

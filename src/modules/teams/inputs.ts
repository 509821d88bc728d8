/** Inputs of teams (createTeam, updateTeam, addTeamMember, removeTeamMember), shared by every door. */
import { z } from 'zod';
import { emailInput, idInput, nameInput } from '../../kernel/inputs.js';

/** "" (none) or an email address. */
const teamEmail = z.union([z.literal(''), emailInput('email')], { error: 'email must be an email address or ""' });

/** createTeam input. */
export const createTeamInput = z.object({ name: nameInput('name'), email: teamEmail.nullish() }, { error: 'input must be an object' });

/** updateTeam input: omitted fields keep their value. */
export const updateTeamInput = z.object(
  { name: nameInput('name').nullish(), email: teamEmail.nullish() },
  { error: 'input must be an object' },
);

/** addTeamMember / removeTeamMember arguments. */
export const memberInput = z.object({ teamId: idInput('teamId'), userId: idInput('userId') });

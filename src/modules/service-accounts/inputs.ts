/** Inputs of service accounts (createServiceAccount, updateServiceAccount), shared by every door. */
import { z } from 'zod';
import { nameInput, orgRoleInput } from '../../kernel/inputs.js';

/** createServiceAccount input; `role` defaults to Viewer. */
export const createServiceAccountInput = z.object(
  { name: nameInput('name'), role: orgRoleInput.nullish() },
  { error: 'input must be an object' },
);

/** updateServiceAccount input: omitted fields keep their value; the login never changes. */
export const updateServiceAccountInput = z.object(
  {
    name: nameInput('name').nullish(),
    role: orgRoleInput.nullish(),
    isDisabled: z.boolean({ error: 'isDisabled must be a boolean' }).nullish(),
  },
  { error: 'input must be an object' },
);

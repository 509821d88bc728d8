/**
 * Inputs of service accounts (createServiceAccount, updateServiceAccount, serviceAccountSearch),
 * shared by every door; the REST bodies are Grafana's CreateServiceAccountForm and
 * UpdateServiceAccountForm.
 */
import { z } from 'zod';
import { nameInput, OBJECT_ERROR, orgRoleInput } from '../../kernel/inputs.js';
import { DEFAULT_PER_PAGE, pageNumberInput, pageSizeInput } from '../shared/paging.js';

const isDisabledInput = z.boolean({ error: 'isDisabled must be a boolean' });

/** createServiceAccount input; `role` defaults to Viewer, `isDisabled` to false. */
export const createServiceAccountInput = z.object(
  { name: nameInput('name'), role: orgRoleInput.nullish(), isDisabled: isDisabledInput.nullish() },
  { error: 'input must be an object' },
);

/** updateServiceAccount input: omitted fields keep their value; the login never changes. */
export const updateServiceAccountInput = z.object(
  {
    name: nameInput('name').nullish(),
    role: orgRoleInput.nullish(),
    isDisabled: isDisabledInput.nullish(),
  },
  { error: 'input must be an object' },
);

/**
 * serviceAccountSearch / `GET /api/serviceaccounts/search` parameters: `query` (part of the name
 * or login), `disabled` (only disabled accounts), paging; `accessControl` asks for Grafana's
 * per-account map of the caller's actions.
 */
export const serviceAccountSearchInput = z.object(
  {
    query: z.string({ error: 'query must be a string' }).nullish(),
    disabled: z.boolean({ error: 'disabled must be a boolean' }).nullish(),
    page: pageNumberInput('page'),
    perPage: pageSizeInput('perPage', DEFAULT_PER_PAGE),
    accessControl: z.boolean({ error: 'accessControl must be a boolean' }).nullish(),
  },
  OBJECT_ERROR,
);

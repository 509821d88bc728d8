import { ORG_ROLES } from '../../kernel/principal.js';
import { builder } from './builder.js';

/** Org role of a user, service account or API key in an organization. */
export const OrgRoleEnum = builder.enumType('OrgRole', {
  description: 'Role in an organization: None < Viewer < Editor < Admin.',
  values: ORG_ROLES,
});

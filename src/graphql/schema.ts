/** Imports every type module, then builds the schema. */
import { builder } from './builder.js';
import './types/scalars.js';
import './types/message.js';
import './types/permission.js';
import './types/org-role.js';
import './types/role.js';
import './types/organization.js';
import './types/user.js';
import './types/service-account.js';
import './types/team.js';
import './types/viewer.js';
import './types/api-key.js';
import './types/assignments.js';

export const schema = builder.toSchema({ sortSchema: true });

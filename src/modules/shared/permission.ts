import type { PermissionPair } from '../../kernel/catalogue.js';
import { builder } from './builder.js';

builder.prismaObject('Permission', {
  description: 'One permission of a role: an action and an optional scope ("" when none).',
  fields: (t) => ({
    action: t.exposeString('action'),
    scope: t.exposeString('scope'),
    created: t.expose('created', { type: 'DateTime' }),
    updated: t.expose('updated', { type: 'DateTime' }),
  }),
});

/** An (action, scope) pair held by a principal, as in the user permission listings. */
export const PermissionEntry = builder.objectRef<PermissionPair>('PermissionEntry').implement({
  description: 'A permission held by a principal: action and scope ("" when none).',
  fields: (t) => ({
    action: t.exposeString('action'),
    scope: t.exposeString('scope'),
  }),
});

export const PermissionInput = builder.inputType('PermissionInput', {
  description: 'A permission of a role: action `<area>:<operation>`, optional scope.',
  fields: (t) => ({
    action: t.string({ required: true }),
    scope: t.string({ required: false, description: 'Omitted or "" for no scope; `*` only at the end, after `:`.' }),
  }),
});

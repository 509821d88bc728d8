/**
 * GraphQL door of RBAC provisioning: the reload mutation, calling the same ProvisioningService
 * method as POST /api/admin/provisioning/access-control/reload.
 */
import { needs } from '../../kernel/requirements.js';
import { builder } from '../shared/builder.js';
import { MessagePayload } from '../shared/message.js';
import { provisioningRequirements } from './service.js';

builder.mutationFields((t) => ({
  reloadAccessControlProvisioning: t.field({
    type: MessagePayload,
    description: `Applies the provisioning files again (access-control/*.yaml and plugins/*), all in one transaction: a bad file changes nothing and the error names file, line and problem. ${needs(provisioningRequirements.reload)}`,
    resolve: (_root, _args, ctx) => ctx.services.provisioning.reload(ctx.principal),
  }),
}));

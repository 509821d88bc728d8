/**
 * RBAC provisioning: the files under `<PROVISIONING_PATH>` (Grafana's `[paths]
 * provisioning`, default `./provisioning`) are applied after migrate + seed at every start and on
 * POST /api/admin/provisioning/access-control/reload:
 * - `plugins/<productId>.json|yaml`: `{productId, roles}`, product role registrations
 *   (products/service.ts), applied first so the files below can assign product roles;
 * - `access-control/*.yaml|yml`: Grafana's apiVersion 2 (inputs.ts, apply.ts), every file's
 *   roles first, then every file's teams, files in name order.
 * All files go in ONE transaction through `access.write`: a bad file (syntax, unknown key, bad
 * scope, unknown role or team, fixed role changed) changes nothing and the error names the file,
 * the line and column, the path inside it and the problem. Applying twice changes nothing.
 */

import { Action, Scope } from '../../kernel/catalogue.js';
import { permission } from '../../kernel/evaluator.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { requireSignedIn } from '../../kernel/guards.js';
import type { Message } from '../../kernel/message.js';
import type { Principal } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import { productFileInput, productRolesInput } from '../products/inputs.js';
import { applyProductRoles } from '../products/service.js';
import { type ApplySummary, applyRole, applyTeam, emptySummary } from './apply.js';
import { parseAt, problemAt, readProvisioning } from './files.js';
import { accessControlFileInput } from './inputs.js';

/** What a reload needs (Grafana: provisioning:reload on provisioners:accesscontrol). */
export const provisioningRequirements = {
  reload: requirement([], () => permission(Action.ProvisioningReload, Scope.ProvisionersAccessControl)),
};

/** What one run applied. */
export interface ProvisioningResult extends ApplySummary {
  files: string[];
  products: string[];
}

export class ProvisioningService {
  constructor(
    private readonly deps: FeatureDeps,
    /** `PROVISIONING_PATH`: the directory holding `access-control/` and `plugins/`. */
    private readonly root: string,
  ) {}

  /**
   * Applies every provisioning file (module comment) in one transaction. Called at start, before
   * the server listens; no caller, no permission check (the files are the operator's). Does
   * nothing in the oss edition.
   * @returns what was applied; all counts 0 when nothing changed (a restart).
   * @throws DomainError PROVISIONING_INVALID (400) naming file, line, path and problem; nothing
   *   was changed.
   */
  async apply(): Promise<ProvisioningResult> {
    // The oss edition has no RBAC: nothing to provision.
    if (this.deps.edition.edition !== 'enterprise') return { ...emptySummary(), files: [], products: [] };
    const { accessControl, products } = readProvisioning(this.root);
    // Parse everything before opening the transaction: syntax and shape errors need no lock.
    const registrations = products.map((file) => {
      const head = parseAt(file, [], productFileInput, file.data);
      if (head.productId !== file.stem) {
        throw problemAt(file, ['productId'], `productId "${head.productId}" does not match the file name "${file.stem}"`);
      }
      return { productId: head.productId, roles: parseAt(file, ['roles'], productRolesInput(head.productId), head.roles) };
    });
    const documents = accessControl.map((file) => ({ file, doc: parseAt(file, [], accessControlFileInput, file.data) }));

    const summary = emptySummary();
    if (registrations.length + documents.length > 0) {
      await this.deps.access.write(async (tx) => {
        for (const r of registrations) {
          const changed = await applyProductRoles(tx, r.productId, r.roles);
          summary.rolesCreated += changed.created.length;
          summary.rolesUpdated += changed.updated.length;
          summary.rolesDeleted += changed.deleted.length;
        }
        for (const { file, doc } of documents) {
          for (const [i, value] of (doc.roles ?? []).entries()) await applyRole(tx, { file, path: ['roles', i], value }, summary);
        }
        for (const { file, doc } of documents) {
          for (const [i, value] of (doc.teams ?? []).entries()) await applyTeam(tx, { file, path: ['teams', i], value }, summary);
        }
      });
    }
    return { ...summary, files: [...products, ...accessControl].map((f) => f.name), products: registrations.map((r) => r.productId) };
  }

  /**
   * POST /api/admin/provisioning/access-control/reload and `reloadAccessControlProvisioning`:
   * applies the files again (apply). Needs provisioning:reload on provisioners:accesscontrol.
   * @throws DomainError PROVISIONING_INVALID (400, nothing changed), UNAUTHENTICATED (401),
   *   ACCESS_DENIED (403), 404 in oss.
   */
  async reload(caller: Principal): Promise<Message> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    await this.deps.access.check(caller, provisioningRequirements.reload.for({}));
    const result = await this.apply();
    const changes = result.rolesCreated + result.rolesUpdated + result.rolesDeleted + result.assignmentsAdded + result.assignmentsRemoved;
    return { message: `Access control provisioning reloaded: ${result.files.length} file(s), ${changes} change(s)` };
  }
}

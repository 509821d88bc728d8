/**
 * The scene of the REST roles tests (roles-rest-*.test.ts), one per file: a viewer, a `writer`
 * (org Viewer with roles read/write/delete on delegate and a few other permissions) and
 * `otherAdmin`, Admin of a second organization `org2`.
 */
import { createTestApp, type TestApp } from '../support/app.js';
import { type Actor, createOrg, createUser } from '../support/subjects.js';

export interface RolesRestScene {
  app: TestApp;
  viewer: Actor;
  writer: Actor;
  otherAdmin: Actor;
  org2: number;
}

const WRITER_PERMISSIONS = [
  { action: 'roles:read', scope: 'roles:*' },
  { action: 'roles:write', scope: 'permissions:type:delegate' },
  { action: 'roles:delete', scope: 'permissions:type:delegate' },
  { action: 'teams:read', scope: 'teams:*' },
  { action: 'users:read', scope: 'global.users:id:*' },
];

export async function rolesRestScene(): Promise<RolesRestScene> {
  const app = await createTestApp();
  const viewer = await createUser(app, 'viewer', { orgRole: 'Viewer' });
  const writer = await createUser(app, 'writer', { orgRole: 'Viewer', permissions: WRITER_PERMISSIONS });
  const org2 = (await createOrg(app, 'Second Org')).id;
  const otherAdmin = await createUser(app, 'admin2', { orgRole: 'Admin', orgId: org2 });
  return { app, viewer, writer, otherAdmin, org2 };
}

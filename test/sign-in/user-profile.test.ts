/**
 * `GET /api/user` answers Grafana's UserProfileDTO (pkg/services/user/model.go, the
 * `UserProfileDTO` schema of Grafana's OpenAPI document in test/conformance/fixtures): every
 * field of it (`accessControl` aside: Grafana omits it unless asked), valid against the schema,
 * `isGrafanaAdmin` the Service Admin flag (what grafana-client's `get_actual_user()["isGrafanaAdmin"]`
 * reads), `orgId` the organization the request acts in, plus this service's `isServiceAdmin`.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAnswer } from '../conformance/grafana-schemas.js';
import { ADMIN, createTestApp, type TestApp } from '../support/app.js';
import { emailAvatar } from '../support/effects.js';
import { createUser } from '../support/subjects.js';

const SPEC = JSON.parse(readFileSync(new URL('../conformance/fixtures/grafana-openapi3.json', import.meta.url), 'utf8')) as {
  components: { schemas: { UserProfileDTO: { properties: Record<string, unknown> } } };
};
/** Every field Grafana answers on GET /api/user (accessControl only when asked for). */
const PROFILE_FIELDS = Object.keys(SPEC.components.schemas.UserProfileDTO.properties).filter((k) => k !== 'accessControl');

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

async function me(init: Parameters<TestApp['request']>[1] = {}) {
  const res = await app.request('/api/user', init);
  expect(res.status).toBe(200);
  const body = (await res.json()) as Record<string, unknown>;
  expect(checkAnswer('GET', '/api/user', 200, body).problems).toEqual([]);
  return body;
}

describe('GET /api/user', () => {
  it("answers every field of Grafana's UserProfileDTO", async () => {
    expect(PROFILE_FIELDS).toEqual(expect.arrayContaining(['isGrafanaAdmin', 'avatarUrl', 'theme', 'isGrafanaAdminExternallySynced']));
    const body = await me();
    expect(Object.keys(body)).toEqual(expect.arrayContaining(PROFILE_FIELDS));
    const row = await app.database.prisma.user.findUniqueOrThrow({ where: { login: ADMIN.login } });
    expect(body).toEqual({
      id: row.id,
      email: row.email,
      name: row.name,
      login: ADMIN.login,
      theme: '',
      orgId: 1,
      isGrafanaAdmin: true,
      isServiceAdmin: true,
      isDisabled: false,
      isExternal: false,
      isExternallySynced: false,
      isGrafanaAdminExternallySynced: false,
      authLabels: [],
      updatedAt: row.updated.toISOString(),
      createdAt: row.created.toISOString(),
      avatarUrl: emailAvatar(row.email),
    });
  });

  it('isGrafanaAdmin is the Service Admin flag; orgId is the organization the request acts in', async () => {
    const org = await app.database.prisma.org.create({ data: { name: 'profile-second' } });
    const u = await createUser(app, 'profile-viewer', { alsoIn: [{ orgId: org.id, orgRole: 'Editor' }] });
    const plain = await me({ auth: u.auth });
    expect(plain).toMatchObject({ id: u.id, login: u.login, isGrafanaAdmin: false, isServiceAdmin: false, orgId: 1 });
    const grafanaClient = await me({ auth: u.auth, headers: { 'x-grafana-org-id': String(org.id) } });
    expect(grafanaClient).toMatchObject({ isGrafanaAdmin: false, orgId: org.id });
  });

  it('a user of an identity provider is external and synced by it, with its provider label', async () => {
    const identity = { login: 'profile-oauth', email: 'profile-oauth@idp.test', name: 'P O', isServiceAdmin: false };
    const id = await app.services.signIn.syncExternalUser(
      { ...identity, orgRoles: [{ orgId: 1, role: 'Viewer' }] },
      'oauth_generic_oauth',
      true,
    );
    const token = await app.services.sessions.start(id, 'oauth_generic_oauth', { clientIp: '', userAgent: '' });
    const body = await me({ auth: null, headers: { cookie: `portcullis_session=${token}` } });
    expect(body).toMatchObject({
      id,
      login: identity.login,
      isExternal: true,
      isExternallySynced: true,
      isGrafanaAdminExternallySynced: true,
      authLabels: ['Generic OAuth'],
    });
  });
});

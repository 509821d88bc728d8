/**
 * Test actors, seeded through the public GraphQL interface exactly as a client would (issue #3
 * item 6), so fixtures exercise the same checks as the tests that use them.
 *
 * Org 1 ("Main Org."): admin (seeded Service Admin, org Admin), orgAdmin (org Admin, not a
 * Service Admin), editor, viewer, a service account (Viewer), a team with editor and viewer.
 * Org 2: created by admin (who becomes its Admin too, as in Grafana), with its own admin user
 * (member of org 2 only), a team with that admin, and a service account.
 */
import { ADMIN, type Credentials, type TestApp } from './app.js';

/** A user with basic credentials. */
export interface Actor {
  id: number;
  login: string;
  email: string;
  password: string;
}

export interface ServiceAccountFixture {
  id: number;
  login: string;
  name: string;
  orgId: number;
}

export interface TeamFixture {
  id: number;
  name: string;
  orgId: number;
  memberIds: number[];
}

export interface Fixtures {
  /** The seeded Service Admin, Admin of org 1 and org 2. */
  admin: Actor;
  /** Admin of org 1, not a Service Admin. */
  orgAdmin: Actor;
  /** Editor of org 1. */
  editor: Actor;
  /** Viewer of org 1. */
  viewer: Actor;
  /** Service account of org 1 with org role Viewer. */
  serviceAccount: ServiceAccountFixture;
  /** Team of org 1 whose members are editor and viewer. */
  team: TeamFixture;
  org2: {
    id: number;
    name: string;
    /** Admin of org 2, member of no other organization. */
    admin: Actor;
    /** Team of org 2 whose member is org2.admin. */
    team: TeamFixture;
    /** Service account of org 2 with org role Editor. */
    serviceAccount: ServiceAccountFixture;
  };
}

/** Basic credentials of an actor. */
export function credentials(actor: Actor): Credentials {
  return { login: actor.login, password: actor.password };
}

/**
 * Runs a GraphQL operation and returns its data.
 * @throws Error with the response when it carries errors.
 */
export async function mustGraphql<T = Record<string, unknown>>(
  app: TestApp,
  query: string,
  variables?: Record<string, unknown>,
  options?: { auth?: Credentials | null; orgId?: number },
): Promise<T> {
  const res = await app.graphql<T>(query, variables, options);
  if (res.body.errors?.length || !res.body.data) {
    throw new Error(`GraphQL operation failed (${res.status}): ${JSON.stringify(res.body)}\n${query}`);
  }
  return res.body.data;
}

const CREATE_USER = 'mutation($input: CreateUserInput!) { createUser(input: $input) { id login email } }';
const CREATE_TEAM = 'mutation($input: CreateTeamInput!) { createTeam(input: $input) { id name orgId } }';
const ADD_MEMBER = 'mutation($teamId: Int!, $userId: Int!) { addTeamMember(teamId: $teamId, userId: $userId) { id members { id } } }';
const CREATE_SA = 'mutation($input: CreateServiceAccountInput!) { createServiceAccount(input: $input) { id login name orgId } }';

async function createUser(
  app: TestApp,
  login: string,
  orgRole: string,
  options: { auth?: Credentials; orgId?: number } = {},
): Promise<Actor> {
  const password = `${login}-password`;
  const email = `${login}@example.test`;
  const data = await mustGraphql<{ createUser: { id: number } }>(app, CREATE_USER, { input: { login, email, password, orgRole } }, options);
  return { id: data.createUser.id, login, email, password };
}

async function createTeam(app: TestApp, name: string, memberIds: number[], auth: Credentials): Promise<TeamFixture> {
  const { createTeam: team } = await mustGraphql<{ createTeam: { id: number; name: string; orgId: number } }>(
    app,
    CREATE_TEAM,
    { input: { name, email: `${name}@example.test` } },
    { auth },
  );
  for (const userId of memberIds) await mustGraphql(app, ADD_MEMBER, { teamId: team.id, userId }, { auth });
  return { ...team, memberIds };
}

async function createServiceAccount(app: TestApp, name: string, role: string, auth: Credentials): Promise<ServiceAccountFixture> {
  const data = await mustGraphql<{ createServiceAccount: ServiceAccountFixture }>(app, CREATE_SA, { input: { name, role } }, { auth });
  return data.createServiceAccount;
}

/**
 * Seeds the actors above into a fresh test app (createTestApp) and returns their ids and
 * credentials. Costs about 20 GraphQL requests.
 */
export async function seedFixtures(app: TestApp): Promise<Fixtures> {
  const admin: Actor = { id: 1, login: ADMIN.login, email: `${ADMIN.login}@localhost`, password: ADMIN.password };
  const adminAuth = credentials(admin);
  const orgAdmin = await createUser(app, 'org-admin', 'Admin');
  const editor = await createUser(app, 'editor', 'Editor');
  const viewer = await createUser(app, 'viewer', 'Viewer');
  const serviceAccount = await createServiceAccount(app, 'fixture-bot', 'Viewer', adminAuth);
  const team = await createTeam(app, 'fixture-team', [editor.id, viewer.id], adminAuth);

  const { createOrganization: org2 } = await mustGraphql<{ createOrganization: { id: number; name: string } }>(
    app,
    'mutation($input: CreateOrganizationInput!) { createOrganization(input: $input) { id name } }',
    { input: { name: 'Second Org.' } },
  );
  // createUser joins the request's organization: act in org 2 through the header.
  const org2Admin = await createUser(app, 'org2-admin', 'Admin', { orgId: org2.id });
  const org2Auth = credentials(org2Admin);
  const org2Team = await createTeam(app, 'org2-team', [org2Admin.id], org2Auth);
  const org2ServiceAccount = await createServiceAccount(app, 'org2-bot', 'Editor', org2Auth);

  return {
    admin,
    orgAdmin,
    editor,
    viewer,
    serviceAccount,
    team,
    org2: { ...org2, admin: org2Admin, team: org2Team, serviceAccount: org2ServiceAccount },
  };
}

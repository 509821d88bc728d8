/** The GraphQL documents of the user tests (users*.test.ts) and a who-am-I probe. */
import type { Credentials, TestApp } from '../support/app.js';

export const USER_FIELDS = 'id login email name isServiceAdmin isDisabled created updated orgs { orgId userId role created updated }';
export const CREATE = `mutation($input: CreateUserInput!) { createUser(input: $input) { ${USER_FIELDS} } }`;
export const UPDATE = `mutation($id: Int!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { ${USER_FIELDS} } }`;
export const DELETE = 'mutation($id: Int!) { deleteUser(id: $id) { message } }';
export const USERS = `query($global: Boolean) { users(global: $global) { ${USER_FIELDS} } }`;
export const USER = `query($id: Int!) { user(id: $id) { ${USER_FIELDS} } }`;
const WHOAMI = '{ viewer { id login orgId orgRole } }';

export type UserData = { id: number; login: string; email: string; name: string; orgs: { orgId: number; role: string }[] };

/** Who `auth` is, in `orgId` when given (X-Service-Org-Id). */
export async function whoami(app: TestApp, auth: Credentials, orgId?: number) {
  return app.graphql<{ viewer: { id: number; orgId: number; orgRole: string } }>(WHOAMI, {}, { auth, ...(orgId && { orgId }) });
}

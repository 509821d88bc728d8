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

export const SET_PASSWORD = 'mutation($id: Int!, $password: String!) { setUserPassword(id: $id, password: $password) { message } }';
export const SET_SERVICE_ADMIN =
  'mutation($id: Int!, $isServiceAdmin: Boolean!) { setUserServiceAdmin(id: $id, isServiceAdmin: $isServiceAdmin) { message } }';
export const DISABLE = 'mutation($id: Int!) { disableUser(id: $id) { message } }';
export const ENABLE = 'mutation($id: Int!) { enableUser(id: $id) { message } }';
export const USER_SEARCH = `query($query: String, $page: Int, $perPage: Int) {
  userSearch(query: $query, page: $page, perPage: $perPage) { totalCount page perPage users { id login } } }`;
export const USER_GLOBAL = 'query($id: Int!) { user(id: $id, global: true) { id login isDisabled isServiceAdmin } }';
export const LOOKUP = 'query($v: String!) { userByLoginOrEmail(loginOrEmail: $v) { id login email } }';
export const USER_TEAMS = 'query($id: Int!) { user(id: $id) { teams { id name orgId } } }';

const COOKIE = 'portcullis_session';

/** Signs `login` in through POST /login and returns its session token. */
export async function signIn(app: TestApp, login: string, password: string): Promise<string> {
  const res = await app.request('/login', { method: 'POST', auth: null, json: { user: login, password } });
  if (res.status !== 200) throw new Error(`login of ${login} failed: ${res.status} ${await res.text()}`);
  for (const c of res.headers.getSetCookie()) {
    const m = new RegExp(`^${COOKIE}=([^;]*)`).exec(c);
    if (m?.[1]) return m[1];
  }
  throw new Error('no session cookie');
}

/** The status of GET /api/user with a session token (200 while the session lives). */
export async function sessionStatus(app: TestApp, token: string): Promise<number> {
  const res = await app.request('/api/user', { auth: null, headers: { cookie: `${COOKIE}=${token}` } });
  await res.body?.cancel();
  return res.status;
}

/**
 * Authentication once per request, started before the GraphQL body is read or parsed: the
 * GraphQL gate (use-graphql-gate.ts) calls it first, the context factory gets the same answer.
 * Every principal comes out of `AccessService.authenticate`, which opens the request's fence
 * (kernel/fence.ts) before the credentials are looked up.
 */
import type { AccessService } from '../kernel/access.js';
import type { Principal } from '../kernel/principal.js';
import { clientAddress } from './auth/cookies.js';
import type { Authenticator } from './authenticate.js';
import { requestIdOf } from './request-id.js';

/** The principal of a request, authenticated at most once per Request object. */
export type RequestAuth = (request: Request) => Promise<Principal>;

/** The principals of requests whose authentication succeeded, for the request log. */
const settled = new WeakMap<Request, Principal>();

/** The principal `request` was authenticated as, once its authentication succeeded (the request log names it); else undefined. */
export function authenticatedAs(request: Request): Principal | undefined {
  return settled.get(request);
}

/** Wraps `authenticate` so each request is authenticated once, under a fence of `access`. */
export function createRequestAuth(access: AccessService, authenticate: Authenticator): RequestAuth {
  const started = new WeakMap<Request, Promise<Principal>>();
  return (request) => {
    let principal = started.get(request);
    if (!principal) {
      principal = access
        .authenticate(() => authenticate(request), { clientAddress: clientAddress(request), requestId: requestIdOf(request) })
        .then((p) => {
          settled.set(request, p);
          return p;
        });
      started.set(request, principal);
    }
    return principal;
  };
}

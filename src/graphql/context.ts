/** The GraphQL context: read-only, built once per request after authentication. */
import type { Principal } from '../core/principal.js';
import type { Services } from '../core/services.js';

export interface GraphQLContext {
  readonly principal: Principal;
  readonly services: Services;
}

/** The GraphQL context: read-only, built once per request after authentication. */
import type { Principal } from '../../kernel/principal.js';
import type { Services } from '../services.js';

export interface GraphQLContext {
  readonly principal: Principal;
  readonly services: Services;
}

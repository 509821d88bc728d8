/** The GraphQL context: read-only, built once per request after authentication. */
import type { Principal } from '../../kernel/principal.js';
import type { Services } from '../services.js';

export interface GraphQLContext {
  readonly principal: Principal;
  readonly services: Services;
  /**
   * The request's SSE `Last-Event-ID` header as sent (null without one): the revision a resuming
   * `accessChanges` stream goes on after (modules/changes/streams.ts).
   */
  readonly lastEventId: string | null;
}

/** Relay's PageInfo, shared by every connection of the schema (audit events, roles). */
import { builder } from './builder.js';

/** Where a connection's page stands (GraphQL Cursor Connections Specification). */
export interface PageInfoShape {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

/** Relay's PageInfo (GraphQL Cursor Connections Specification). */
export const PageInfo = builder.objectRef<PageInfoShape>('PageInfo').implement({
  fields: (t) => ({
    hasNextPage: t.exposeBoolean('hasNextPage'),
    hasPreviousPage: t.exposeBoolean('hasPreviousPage'),
    startCursor: t.exposeString('startCursor', { nullable: true }),
    endCursor: t.exposeString('endCursor', { nullable: true }),
  }),
});

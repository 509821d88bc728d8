/** Options of `AccessService.write` (access.ts; rules in its comment). */
export interface WriteOptions {
  /** The write cannot change anyone's permissions: no invalidation. */
  grantsNothing?: boolean;
  /** The write changes only role assignments of these users (ids of users or service accounts): targeted invalidation. */
  reach?: { users: readonly number[] };
}

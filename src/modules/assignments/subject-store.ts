/**
 * What the assignment core (core.ts) and the listing (listing.ts) need to know about one kind of
 * subject: the SubjectStore adapter, implemented for users and for teams in stores.ts.
 */
import type { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.js';
import type { DomainError } from '../../kernel/errors.js';
import type { SignedInPrincipal } from '../../kernel/principal.js';
import type { Requirement } from '../../kernel/requirements.js';
import type { Db, Tx } from '../../platform/database.js';
import type { AssignableRole } from './assignable.js';
import type { AssignmentWindow } from './window.js';

/** One assignment row: role `roleId` assigned to subject `subjectId` (globally: org 0), held within `window`. */
export interface Assignment {
  subjectId: number;
  roleId: number;
  global: boolean;
  window: AssignmentWindow;
}

/** A role assigned in one scope, by uid, with its window (the audit snapshots, add's and set's checks). */
export interface HeldAssignment {
  uid: string;
  window: AssignmentWindow;
}

/** The optional window of a body. */
interface WindowInput {
  notBefore?: Date | null;
  expiresAt?: Date | null;
}

/** What the core needs to know about one kind of subject. */
export interface SubjectStore {
  /** Name of the id in paths and 400s: `userId` or `teamId`. */
  readonly idField: string;
  readonly requirements: { read: Requirement<'id'>; add: Requirement; remove: Requirement; set: Requirement };
  /** The role-management actions whose delegation (or escalation) add and remove check. */
  readonly actions: { add: string; remove: string };
  /** Bodies of add and set (users take `global`, teams do not). */
  readonly inputs: {
    add: z.ZodType<{ roleUid: string; global?: boolean | null } & WindowInput>;
    set: z.ZodType<{ roleUids: string[]; global?: boolean | null; includeHidden?: boolean | null } & WindowInput>;
  };
  /** Grafana's success texts. */
  readonly messages: { added: string; removed: string; set: string };
  /** The audit log's names: actions `<action>.add|remove|set` on the subject's resource kind. */
  readonly audit: { action: string; resourceKind: string };
  /**
   * Which of subjects `ids` are in the caller's organization (the organization wall). One query
   * per MAX_IDS_PER_QUERY ids (platform/database.ts loadInChunks).
   */
  inOrg(db: Db | Tx, caller: SignedInPrincipal, ids: readonly number[]): Promise<Set<number>>;
  /** The 404 of a subject behind the wall or unknown: USER_NOT_FOUND or TEAM_NOT_FOUND. */
  notFound(id: number): DomainError;
  /**
   * Which of subjects `ids` the caller may list the roles of without the `read` requirement
   * because they are its own (a team's member reading its team's); absent: none.
   */
  readsOwn?(db: Db, caller: SignedInPrincipal, ids: readonly number[]): Promise<Set<number>>;
  /**
   * The assignments of subjects `ids` visible in the caller's organization whose role matches
   * `roles`, as (subject, role) pairs ordered by role name then role id (a role assigned both in
   * the organization and globally comes twice), in force or pending at `now` (not those ended).
   * Filters of kernel/held-roles.ts, the rule the checks read.
   */
  assignments(db: Db, caller: SignedInPrincipal, ids: readonly number[], roles: Prisma.RoleWhereInput, now: Date): Promise<Assignment[]>;
  /** Roles (with permissions) assigned to `id` in assignment scope `orgId` (0 = global). */
  current(tx: Tx, caller: SignedInPrincipal, id: number, orgId: number): Promise<AssignableRole[]>;
  /** `current`'s roles by uid with their windows, without permissions (the audit snapshots, add's check). */
  currentHolds(tx: Tx, caller: SignedInPrincipal, id: number, orgId: number): Promise<HeldAssignment[]>;
  /**
   * Whose permissions a change of subject `id`'s assignments can change, when that is known
   * without reading anything: the users named (AccessService.write `reach`, targeted
   * invalidation). Absent: every principal (a team's members can change while the write runs, so
   * a team's change invalidates globally).
   */
  reach?(id: number): { users: readonly number[] };
  /** Adds assignments of `roleIds` (none of them assigned yet) in scope `orgId`, held within `window`. */
  assign(tx: Tx, id: number, orgId: number, roleIds: number[], window: AssignmentWindow): Promise<void>;
  /** Gives the assignments of `roleIds` in scope `orgId` the window `window` (their start and end are noted again). */
  rewindow(tx: Tx, id: number, orgId: number, roleIds: number[], window: AssignmentWindow): Promise<void>;
  /** Removes assignments of `roleIds` in scope `orgId`; absent ones are ignored. */
  unassign(tx: Tx, id: number, orgId: number, roleIds: number[]): Promise<void>;
}

/**
 * Organizations' JSON shapes, Grafana's DTOs (pkg/api/dtos/org.go: OrgDetailsDTO, OrgUserDTO,
 * SearchOrgUsersQueryResult), with the zod schemas the OpenAPI document and the conformance tests
 * check answers against, and the member rows they are built from.
 */
import { z } from 'zod';
import type { Org, OrgUser } from '../../generated/prisma/client.js';
import { AUTH_MODULE, authLabels } from '../../kernel/auth-module.js';
import { ORG_ROLES } from '../../kernel/principal.js';
import { ageString, avatarUrl, lastSeenAt as lastSeenOf } from '../shared/directory.js';
import { jsonId, jsonTime, searchPageSchema } from '../shared/rest.js';
import type { OrgMembersPage } from './members.js';

/** Grafana's OrgDetailsDTO. No postal address is kept here: its fields are "". */
export interface OrgDetailsJson {
  id: number;
  name: string;
  address: { address1: string; address2: string; city: string; zipCode: string; state: string; country: string };
}

/** OrgDetailsJson as a schema (Grafana's OrgDetailsDTO). */
export const orgDetailsDto = z
  .strictObject({
    id: jsonId(),
    name: z.string(),
    address: z
      .strictObject({
        address1: z.string(),
        address2: z.string(),
        city: z.string(),
        zipCode: z.string(),
        state: z.string(),
        country: z.string(),
      })
      .meta({ description: 'No postal address is kept here: every field is ""' }),
  })
  .meta({ id: 'OrgDetailsDTO' });

/** `GET /api/org`, `/api/orgs/:orgId`, `/api/orgs/name/:name`. */
export function orgDetailsJson(org: Pick<Org, 'id' | 'name'>): OrgDetailsJson {
  return { id: org.id, name: org.name, address: { address1: '', address2: '', city: '', zipCode: '', state: '', country: '' } };
}

/** Grafana's OrgUserDTO (`GET /api/org/users`, `/api/orgs/:orgId/users`). */
export interface OrgUserJson {
  orgId: number;
  userId: number;
  email: string;
  name: string;
  avatarUrl: string;
  login: string;
  role: string;
  lastSeenAt: string;
  lastSeenAtAge: string;
  isDisabled: boolean;
  authLabels: string[];
  isExternallySynced: boolean;
}

/** OrgUserJson as a schema (Grafana's OrgUserDTO). */
export const orgUserDto = z
  .strictObject({
    orgId: jsonId(),
    userId: jsonId(),
    email: z.string(),
    name: z.string(),
    avatarUrl: z.string(),
    login: z.string(),
    role: z.enum(ORG_ROLES),
    lastSeenAt: jsonTime().meta({ description: 'Its last authenticated request; never seen: 10 years before its creation, as Grafana' }),
    lastSeenAtAge: z.string().meta({ description: 'Grafana’s age text of lastSeenAt: "3y", "2M", "5d", "4h", "7m" or "< 1 minute"' }),
    isDisabled: z.boolean(),
    authLabels: z.array(z.string()),
    isExternallySynced: z.boolean(),
  })
  .meta({ id: 'OrgUserDTO' });

// orgUserDto has every field of orgUserJson's OrgUserJson, with a type it accepts (the role stored is one of ORG_ROLES).
const _orgUserJsonIsOrgUserDto: [z.infer<typeof orgUserDto>] extends [OrgUserJson] ? true : never = true;

/** The user fields a member row loads: its profile and when it was last seen. */
export const MEMBER_QUERY = {
  include: {
    user: {
      select: {
        login: true,
        email: true,
        name: true,
        isDisabled: true,
        authModule: true,
        created: true,
        lastSeenAt: true,
      },
    },
  },
};

type MemberRow = OrgUser & {
  user: {
    login: string;
    email: string;
    name: string;
    isDisabled: boolean;
    authModule: string;
    created: Date;
    lastSeenAt: Date | null;
  };
};

/** A member row as Grafana's OrgUserDTO; last seen = the user's last authenticated request (sessions/last-seen.ts), ages against `now`. */
export function orgUserJson(member: MemberRow, now: Date = new Date()): OrgUserJson {
  const { user } = member;
  const lastSeenAt = lastSeenOf(user.lastSeenAt, user.created);
  const external = user.authModule !== AUTH_MODULE.local;
  return {
    orgId: member.orgId,
    userId: member.userId,
    email: user.email,
    name: user.name,
    avatarUrl: avatarUrl(user.email),
    login: user.login,
    role: member.role,
    lastSeenAt: lastSeenAt.toISOString(),
    lastSeenAtAge: ageString(lastSeenAt, now),
    isDisabled: user.isDisabled,
    authLabels: authLabels(user.authModule),
    isExternallySynced: external,
  };
}

/** The page's members as OrgUserDTOs. */
export const members = (page: OrgMembersPage<OrgUser>) => (page.members as MemberRow[]).map((m) => orgUserJson(m));

/** Grafana's SearchOrgUsersQueryResult: `{totalCount, orgUsers, page, perPage}`. */
export const membersPageDto = searchPageSchema('SearchOrgUsersQueryResult', 'orgUsers', orgUserDto);
/** A members page as Grafana's SearchOrgUsersQueryResult. */
export const membersPage = (page: OrgMembersPage<OrgUser>) => ({
  totalCount: page.totalCount,
  orgUsers: members(page),
  page: page.page,
  perPage: page.perPage,
});

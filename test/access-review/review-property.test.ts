/**
 * Property test of the access review and the batch check against the kernel's evaluator: random
 * worlds (roles of random permissions, direct and global assignments, teams in two organizations,
 * basic-role grants, org roles, Service Admins, disabled accounts, API keys), changed at random
 * between rounds, and random questions. Every who-has answer (read in small pages) must name
 * exactly the subjects of organization 1 whose own index passes the evaluator, with exactly the
 * paths of their check's reason (kernel/grants.ts); every batch item must answer what the
 * evaluator answers on its subject's index. Seeded, so a failure is reproducible.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { permission } from '../../src/kernel/evaluator.js';
import { grantsOf } from '../../src/kernel/grants.js';
import { ORG_ROLES, principalOf, type SignedInPrincipal } from '../../src/kernel/principal.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { assignUserRole, createKey, createOrg, createRole, createUser, p, unique } from '../support/subjects.js';
import { keyPrincipal } from './review-scene.js';

let app: TestApp;
/** Rounds of random changes, and who-has questions asked after each (every answer read in pages of 4). */
const ROUNDS = 8;
const QUESTIONS = 15;
let org2: number;
const ACTIONS = ['notes:read', 'notes:write', 'teams:read'];
const SCOPES = ['notes:*', 'notes:id:1', 'notes:id:2', 'notes:id:*', 'teams:*', 'teams:id:1', '*', ''];
const TARGETS = ['notes:id:1', 'notes:id:2', 'notes:id:3', 'teams:id:1', 'teams:id:2', undefined];
const BASIC = ['Viewer', 'Editor', 'Admin', 'Service Admin'];
const reviewer = principalOf({ id: 1, login: 'admin', isServiceAccount: false, isServiceAdmin: true }, 1, 'Admin', 'basic');

/** mulberry32: a small seeded random source. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const next = random(2026);
const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;

const roleIds: number[] = [];
const userIds: number[] = [];
const teamIds: { id: number; orgId: number }[] = [];

beforeAll(async () => {
  app = await createTestApp();
  org2 = (await createOrg(app, unique('prop-org'))).id;
  await assignUserRole(app, 1, 'fixed:access.review:reader');
  const db = app.database.prisma;
  for (let i = 0; i < 14; i++) {
    const perms = Array.from({ length: 1 + Math.floor(next() * 3) }, () => p(pick(ACTIONS), pick(SCOPES)));
    const unique_ = [...new Map(perms.map((x) => [`${x.action}|${x.scope}`, x])).values()];
    roleIds.push((await createRole(app, unique('prop-role'), unique_, { orgId: next() < 0.2 ? 0 : pick([1, org2]) })).id);
  }
  for (let i = 0; i < 6; i++) {
    const orgId = next() < 0.7 ? 1 : org2;
    teamIds.push({ id: (await db.team.create({ data: { name: unique('prop-team'), orgId } })).id, orgId });
  }
  for (let i = 0; i < 30; i++) {
    const user = await createUser(app, unique('prop-user'), {
      orgRole: pick(ORG_ROLES),
      isServiceAdmin: next() < 0.1,
      ...(next() < 0.3 && { alsoIn: [{ orgId: org2, orgRole: pick(ORG_ROLES) }] }),
    });
    userIds.push(user.id);
  }
  for (let i = 0; i < 4; i++) await createKey(app, { name: unique('prop-key'), role: pick(['Viewer', 'Editor', 'Admin']) });
});

/** One random change to the world, straight to the database (the access service is told after). */
async function change(): Promise<void> {
  const db = app.database.prisma;
  const user = pick(userIds);
  switch (Math.floor(next() * 7)) {
    case 0:
    case 1:
      await db.userRole
        .createMany({ data: [{ userId: user, roleId: pick(roleIds), orgId: pick([0, 1, 1, org2]) }] })
        .catch(() => undefined);
      break;
    case 2:
      await db.userRole.deleteMany({ where: { userId: user, roleId: pick(roleIds) } });
      break;
    case 3: {
      const team = pick(teamIds);
      const member = await db.teamMember.findUnique({ where: { teamId_userId: { teamId: team.id, userId: user } } });
      if (member) await db.teamMember.delete({ where: { teamId_userId: { teamId: team.id, userId: user } } });
      else await db.teamMember.create({ data: { teamId: team.id, userId: user, orgId: team.orgId } });
      break;
    }
    case 4: {
      const team = pick(teamIds);
      await db.teamRole.createMany({ data: [{ teamId: team.id, roleId: pick(roleIds), orgId: team.orgId }] }).catch(() => undefined);
      break;
    }
    case 5:
      await db.basicRoleGrant
        .createMany({ data: [{ basicRole: pick(BASIC), roleId: pick(roleIds), orgId: pick([0, 1, org2]) }] })
        .catch(() => undefined);
      break;
    default:
      if (next() < 0.5) await db.orgUser.updateMany({ where: { userId: user, orgId: 1 }, data: { role: pick(ORG_ROLES) } });
      else await db.user.update({ where: { id: user }, data: { isDisabled: next() < 0.3 } });
  }
}

/** Every subject of organization 1 that can act, as the principal the evaluator is asked about. */
async function subjects(): Promise<{ key: string; principal: SignedInPrincipal }[]> {
  const db = app.database.prisma;
  const members = await db.orgUser.findMany({ where: { orgId: 1, user: { isDisabled: false } }, include: { user: true } });
  const keys = await db.apiKey.findMany({ where: { orgId: 1, serviceAccountId: null } });
  return [
    ...members.map((m) => {
      const principal = principalOf(m.user, 1, m.role, 'none');
      return { key: `${principal.kind}:${m.userId}`, principal };
    }),
    ...keys.map((k) => ({ key: `apiKey:${k.id}`, principal: keyPrincipal(k) })),
  ];
}

describe('the access review and the batch check agree with the evaluator over random worlds', () => {
  it('who-has (paged) and batch items match the evaluator on every subject, round after round of random changes', async () => {
    let questions = 0;
    let items = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (let c = 0; c < 6; c++) await change();
      app.services.access.freshness.applyToEveryone();
      const all = await subjects();
      for (let q = 0; q < QUESTIONS; q++) {
        const action = pick(ACTIONS);
        const scope = pick(TARGETS);
        const expected = new Map<string, string[]>();
        for (const { key, principal } of all) {
          const index = await app.services.access.permissionsOf(principal);
          if (!(scope ? permission(action, scope) : permission(action)).evaluate(index)) continue;
          const grants = await grantsOf(app.services.access, principal, action, scope ? [scope] : [], new Date());
          expected.set(key, grants.map((g) => `${g.role.uid}|${g.source}|${g.permission.scope}`).sort());
        }
        const got = new Map<string, string[]>();
        let after: string | undefined;
        for (;;) {
          const page = await app.services.accessReview.whoHas(reviewer, { action, scope, first: 4, after });
          for (const row of page.rows)
            got.set(
              `${row.subject.kind}:${row.subject.id}`,
              row.paths.map((x) => `${x.role.uid}|${x.source}|${x.permission.scope}`).sort(),
            );
          if (!page.endCursor) break;
          after = page.endCursor;
        }
        expect(got, `round ${round}: ${action} on ${scope ?? 'any scope'}`).toEqual(expected);
        questions++;
      }
      const batch = Array.from({ length: 150 }, (_, i) => {
        const userId = next() < 0.1 ? undefined : next() < 0.05 ? 999_999 : pick(userIds);
        const scopes = Array.from({ length: Math.floor(next() * 3) }, () => pick(TARGETS.filter((t) => t !== undefined)) as string);
        return { id: `r${round}-${i}`, ...(userId && { userId }), action: pick(ACTIONS), scopes };
      });
      const answer = await app.services.permissions.checkMany(reviewer, { items: batch });
      for (const [i, item] of batch.entries()) {
        const result = answer.results[i];
        const member =
          item.userId === undefined
            ? { role: 'Admin', user: { id: 1, login: 'admin', isServiceAccount: false, isServiceAdmin: true, isDisabled: false } }
            : await app.database.prisma.orgUser.findUnique({
                where: { orgId_userId: { orgId: 1, userId: item.userId } },
                include: { user: true },
              });
        if (!member) {
          expect(result?.error?.code, item.id).toBe('USER_NOT_FOUND');
          continue;
        }
        const index = await app.services.access.permissionsOf(principalOf(member.user, 1, member.role, 'none'));
        const allowed = !member.user.isDisabled && permission(item.action, ...item.scopes).evaluate(index);
        expect(result?.allowed, item.id).toBe(allowed);
        items++;
      }
    }
    expect(questions).toBe(ROUNDS * QUESTIONS);
    expect(items).toBeGreaterThan(ROUNDS * 100);
  }, 600_000);
});

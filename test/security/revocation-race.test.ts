/**
 * Revocation that cannot be outrun, deterministically: a request is held inside authentication or inside its
 * permission load (a latch on the database client), the caller is demoted through the one write
 * path and the demotion acknowledged, then the request is released. Its answer must never show
 * the revoked permission: 0 stale answers in RACE_TRIALS (default 1,000) trials, spread over org
 * role, Service Admin flag, team membership, role update and assignment removal (invalidating
 * every entry, and only the subject's as the assignment service does), and over both hold points. A write-path variant checks that a held self-grant is never committed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app.js';
import { localOperator } from '../../src/kernel/principal.js';
import type { Db } from '../../src/platform/database.js';
import { createLogger } from '../../src/platform/logger.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { createRole, createTeam, createUser, p } from '../support/subjects.js';

const TRIALS = Number(process.env.RACE_TRIALS ?? 1000);

type HoldPoint = 'authentication' | 'permissions';
let armed: { point: HoldPoint; reached: () => void; release: Promise<void> } | undefined;

/** Waits at the armed hold point once: authentication reads `user`, permission loads read `Permission`. */
async function hold(point: HoldPoint): Promise<void> {
  if (armed?.point !== point) return;
  const latch = armed;
  armed = undefined;
  latch.reached();
  await latch.release;
}

let base: TestApp;
let app: App;
let subject: { id: number; auth: { login: string; password: string } };
let teamId: number;
let roleId: number;
let updatedRoleId: number;
const write = <T>(work: Parameters<App['services']['access']['write']>[0]) => app.services.access.write(work) as Promise<T>;
/** `write` with the invalidation targeted at the subject (AccessService.write `reach`). */
const targeted = <T>(work: Parameters<App['services']['access']['write']>[0]) =>
  app.services.access.write(work, { reach: { users: [subject.id] } }) as Promise<T>;

beforeAll(async () => {
  base = await createTestApp();
  const held = base.database.prisma.$extends({
    query: {
      user: {
        async findFirst({ args, query }) {
          await hold('authentication');
          return query(args);
        },
      },
      // The permission load's own read (kernel/held-roles.ts permissionsByRole: raw SQL).
      async $queryRaw({ args, query }) {
        const sql = args as unknown as { sql?: string; strings?: readonly string[] };
        if ((sql.sql ?? sql.strings?.join('?') ?? '').includes('FROM "Permission"')) await hold('permissions');
        return query(args);
      },
    },
  }) as unknown as Db;
  app = createApp({ db: held, config: base.config, log: createLogger('silent') });
  const user = await createUser(base, 'racer', { orgRole: 'Viewer' });
  subject = { id: user.id, auth: user.auth as { login: string; password: string } };
  teamId = (await createTeam(base, 'race-team')).id;
  const teamRole = await createRole(base, 'race-team-role', [p('race:team')]);
  await base.database.prisma.teamRole.create({ data: { teamId, roleId: teamRole.id, orgId: 1 } });
  roleId = (await createRole(base, 'race-role', [p('race:assigned')])).id;
  updatedRoleId = (await createRole(base, 'race-updated', [p('race:kept')])).id;
  await base.database.prisma.userRole.create({ data: { userId: subject.id, roleId: updatedRoleId, orgId: 1 } });
});
afterAll(() => base.close());

async function permissionsNow(): Promise<{ status: number; actions: Set<string> }> {
  const res = await app.yoga.fetch('http://test/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`racer:${subject.auth.password}`).toString('base64')}`,
    },
    body: JSON.stringify({ query: '{ viewer { permissions { action } } }' }),
  });
  const body = (await res.json()) as { data?: { viewer: { permissions: { action: string }[] } } };
  return { status: res.status, actions: new Set(body.data?.viewer.permissions.map((x) => x.action) ?? []) };
}

/** One change: `grant` gives permissions that `revoke` takes back. */
interface Case {
  name: string;
  grant(): Promise<unknown>;
  revoke(): Promise<unknown>;
}

const cases: Case[] = [
  {
    name: 'org role Admin -> Viewer',
    grant: () => write((tx) => tx.orgUser.update({ where: { orgId_userId: { orgId: 1, userId: subject.id } }, data: { role: 'Admin' } })),
    revoke: () => write((tx) => tx.orgUser.update({ where: { orgId_userId: { orgId: 1, userId: subject.id } }, data: { role: 'Viewer' } })),
  },
  {
    name: 'Service Admin flag removed',
    grant: () => write((tx) => tx.user.update({ where: { id: subject.id }, data: { isServiceAdmin: true } })),
    revoke: () => write((tx) => tx.user.update({ where: { id: subject.id }, data: { isServiceAdmin: false } })),
  },
  {
    name: 'team membership removed',
    grant: () => write((tx) => tx.teamMember.create({ data: { teamId, userId: subject.id, orgId: 1 } })),
    revoke: () => write((tx) => tx.teamMember.deleteMany({ where: { teamId, userId: subject.id } })),
  },
  {
    name: 'role updated',
    grant: () => write((tx) => tx.permission.create({ data: { roleId: updatedRoleId, action: 'race:role', scope: '' } })),
    revoke: () => write((tx) => tx.permission.deleteMany({ where: { roleId: updatedRoleId, action: 'race:role' } })),
  },
  {
    name: 'assignment removed',
    grant: () => write((tx) => tx.userRole.create({ data: { userId: subject.id, roleId, orgId: 1 } })),
    revoke: () => write((tx) => tx.userRole.deleteMany({ where: { userId: subject.id, roleId } })),
  },
  {
    // As the assignment service writes it: the invalidation targeted at the subject only.
    name: 'assignment removed, targeted invalidation',
    grant: () => targeted((tx) => tx.userRole.create({ data: { userId: subject.id, roleId, orgId: 1 } })),
    revoke: () => targeted((tx) => tx.userRole.deleteMany({ where: { userId: subject.id, roleId } })),
  },
];

describe('revocation race', () => {
  it(`0 stale answers in ${TRIALS} trials (${cases.length} changes x 2 hold points)`, { timeout: 600_000 }, async () => {
    const tally: Record<string, { trials: number; stale: number; conflict: number }> = {};
    const per = Math.max(1, Math.floor(TRIALS / (cases.length * 2)));
    for (const c of cases) {
      await c.grant();
      const granted = (await permissionsNow()).actions;
      await c.revoke();
      const revoked = (await permissionsNow()).actions;
      const marker = [...granted].find((a) => !revoked.has(a)) ?? 'none';
      expect(marker, c.name).not.toBe('none');
      for (const point of ['authentication', 'permissions'] as const) {
        const row = { trials: 0, stale: 0, conflict: 0 };
        tally[`${c.name} / ${point}`] = row;
        for (let i = 0; i < per; i++) {
          await c.grant();
          // Each request costs a password check: the privileged and revoked states are verified
          // on every 25th trial only, so 1,000 trials stay within about half a minute.
          if (i % 25 === 0) expect((await permissionsNow()).actions.has(marker), c.name).toBe(true);
          let release!: () => void;
          const reached = new Promise<void>((resolve) => {
            armed = { point, reached: resolve, release: new Promise<void>((r) => (release = r)) };
          });
          // So the request loads its permissions, or checks its password: a credential verified
          // under the current generation reads nothing (sign-in/verified-passwords.ts).
          app.services.access.invalidate();
          const inFlight = permissionsNow();
          expect(await Promise.race([reached.then(() => 'held'), inFlight.then(() => 'not held')])).toBe('held');
          await c.revoke(); // acknowledged
          release();
          const answer = await inFlight;
          row.trials++;
          if (answer.status === 409) row.conflict++;
          else if (answer.actions.has(marker)) row.stale++;
          if (i % 25 === 0) expect((await permissionsNow()).actions.has(marker)).toBe(false);
        }
      }
    }
    console.info('revocation race (stale must be 0; conflict = 409 CREDENTIALS_CHANGED):', tally);
    const total = Object.values(tally).reduce((n, r) => n + r.trials, 0);
    expect(total).toBeGreaterThanOrEqual(Math.min(TRIALS, cases.length * 2 * per));
    expect(Object.values(tally).every((r) => r.stale === 0)).toBe(true);
  });

  it('a self-grant held while its author is demoted is never committed', async () => {
    const admin = localOperator(1);
    await cases[0]?.grant();
    const roleUid = (await base.database.prisma.role.findFirstOrThrow({ where: { name: 'fixed:users:writer' } }).catch(() => null))?.uid;
    const grantUid = roleUid ?? 'race-role';
    let release!: () => void;
    const reached = new Promise<void>((resolve) => {
      armed = { point: 'authentication', reached: resolve, release: new Promise<void>((r) => (release = r)) };
    });
    const inFlight = app.yoga.fetch(`http://test/api/access-control/users/${subject.id}/roles`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`racer:${subject.auth.password}`).toString('base64')}`,
      },
      body: JSON.stringify({ roleUid: grantUid }),
    });
    await reached;
    await app.services.orgMembers.updateUserRole(admin, { orgId: 1, userId: subject.id, role: 'Viewer' });
    release();
    const res = await inFlight;
    expect([403, 409]).toContain(res.status);
    const granted = await base.database.prisma.userRole.count({ where: { userId: subject.id, role: { uid: grantUid } } });
    expect(granted).toBe(0);
  });
});

/**
 * A cost limit for list fields, so no request makes the event loop stall:
 * with 6 teams of the same 6 users, a Viewer's `viewer { teams { members { teams { members ... } } } }`
 * multiplies by 6 per list (4 nestings: 1.7 million users, 249 s and 33 MB before; 3: 5.5 s).
 * Lists nest at most GRAPHQL_MAX_LIST_DEPTH (3) deep, and the estimated cost (every list counts
 * its selection once per row it may answer: `first`, `perPage`, its bound) stays within
 * GRAPHQL_MAX_COST; both are refused with 400 before anything runs, whatever the variables
 * (the cost is computed per request, never taken from the validation cache). Team.members and
 * User.teams answer at most `first` rows (default 100, at most 1000), so the estimate bounds them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { type Actor, createTeam, createUser } from '../support/subjects.js';

let app: TestApp;
let viewer: Actor;
let teamIds: number[];

beforeAll(async () => {
  app = await createTestApp();
  viewer = await createUser(app, 'amp-viewer', { orgRole: 'Viewer' });
  const users = [1, viewer.id];
  for (let i = 0; i < 4; i++) users.push((await createUser(app, `amp-${i}`)).id);
  teamIds = [];
  for (let i = 0; i < 6; i++) teamIds.push((await createTeam(app, `amp-team-${i}`, { members: users })).id);
});
afterAll(() => app.close());

type Body = { data?: unknown; errors?: { message: string; extensions?: { code?: string; limit?: string } }[] };

async function asViewer(query: string, variables?: Record<string, unknown>): Promise<{ status: number; body: Body; ms: number }> {
  const started = performance.now();
  const res = await app.graphql(query, variables, { auth: viewer.auth });
  return { status: res.status, body: res.body as Body, ms: performance.now() - started };
}

/** `viewer { teams { members { ... login } } }` with `levels` team/member pairs. */
function amplified(levels: number, args = ''): string {
  let selection = 'login';
  for (let i = 0; i < levels; i++) selection = `teams${args} { members${args} { ${selection} } }`;
  return `{ viewer { ${selection.replace(`teams${args}`, 'teams')} } }`;
}

function expectRefused(outcome: { status: number; body: Body }, limit: 'cost' | 'listDepth'): void {
  expect(outcome.status).toBe(400);
  expect(outcome.body.data).toBeUndefined();
  expect(outcome.body.errors?.[0]?.extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', limit });
}

describe('nested lists of a 6 x 6 team graph, as a Viewer', () => {
  it('one nesting answers (36 members)', async () => {
    const res = await asViewer(amplified(1));
    expect(res.status).toBe(200);
    const teams = (res.body.data as { viewer: { teams: { members: unknown[] }[] } }).viewer.teams;
    expect(teams.flatMap((t) => t.members)).toHaveLength(36);
  });

  it('2, 3 and 4 nestings (the attack) are refused before running, fast, without stalling the event loop', async () => {
    await asViewer(amplified(2)); // warm-up: the first validation builds the schema's field maps
    // CPU time, not the event loop's delay: on a loaded machine the OS preempts the process and
    // the delay grows with the load, not with our work. Running the attack would take seconds.
    const cpu = process.cpuUsage();
    for (const levels of [2, 3, 4]) {
      const res = await asViewer(amplified(levels));
      expectRefused(res, 'listDepth');
      expect(res.body.errors?.[0]?.message).toMatch(`nested ${levels * 2} deep`);
      expect(res.ms).toBeLessThan(1000); // bench/attacks.ts measures the figure (< 50 ms)
    }
    const used = process.cpuUsage(cpu);
    expect((used.user + used.system) / 1000).toBeLessThan(300);
  });

  it('small pages do not buy more nesting: first: 6 on every list is refused all the same', async () => {
    expectRefused(await asViewer(amplified(2, '(first: 6)')), 'listDepth');
    expectRefused(await asViewer(amplified(4, '(first: 6)')), 'listDepth');
  });

  it('three nested lists answer within the cost limit, and cost more with larger pages', async () => {
    const query = 'query($n: Int) { viewer { teams { members(first: $n) { teams(first: $n) { name } } } } }';
    const small = await asViewer(query, { n: 6 });
    expect(small.status).toBe(200);
    const teams = (small.body.data as { viewer: { teams: { members: { teams: unknown[] }[] }[] } }).viewer.teams;
    expect(teams.flatMap((t) => t.members.flatMap((m) => m.teams))).toHaveLength(6 * 6 * 6);
    // The same document, cached by now, with variables that make it cost 100 x 1000 x 1000 rows.
    expectRefused(await asViewer(query, { n: 1000 }), 'cost');
    expect((await asViewer(query, { n: 6 })).status).toBe(200);
  });

  it('a page size counts: teamSearch(perPage: 1000000) with members is refused; the default page answers', async () => {
    expectRefused(await asViewer('{ teamSearch(perPage: 1000000) { teams { members { login } } } }'), 'cost');
    expect((await asViewer('{ teamSearch { totalCount teams { members { login } } } }')).status).toBe(200);
  });

  it('many aliases of a nested list add up', async () => {
    const aliases = Array.from({ length: 30 }, (_, i) => `a${i}: teams { members(first: 1000) { teams(first: 1000) { id } } }`).join(' ');
    expectRefused(await asViewer(`{ viewer { ${aliases} } }`), 'cost');
  });

  it('introspection is not counted: GraphiQL-style introspection answers', async () => {
    const res = await asViewer('{ __schema { types { name fields { name args { name type { name ofType { name } } } } } } }');
    expect(res.status).toBe(200);
  });
});

describe('Team.members and User.teams answer at most `first` rows', () => {
  it('members(first: 2) and teams(first: 2) answer two, in name order; none, 0 or a negative: the default 100', async () => {
    const res = await asViewer(
      'query($id: Int!) { team(id: $id) { memberCount two: members(first: 2) { login } all: members { login } zero: members(first: 0) { login } } viewer { id } }',
      { id: teamIds[0] },
    );
    expect(res.status).toBe(200);
    const team = (res.body.data as { team: { memberCount: number; two: { login: string }[]; all: unknown[]; zero: unknown[] } }).team;
    expect(team.memberCount).toBe(6);
    expect(team.two.map((m) => m.login)).toEqual(['admin', 'amp-0']);
    expect(team.all).toHaveLength(6);
    expect(team.zero).toHaveLength(6);
    const user = await app.graphql<{ user: { teams: { name: string }[] } }>(
      'query($id: Int!) { user(id: $id) { teams(first: 2) { name } } }',
      {
        id: viewer.id,
      },
    );
    expect(user.body.data?.user.teams.map((t) => t.name)).toEqual(['amp-team-0', 'amp-team-1']);
  });
});

describe('the limits are settings', () => {
  it('GRAPHQL_MAX_LIST_DEPTH and GRAPHQL_MAX_COST are read from the environment', async () => {
    const strict = await createTestApp({ env: { GRAPHQL_MAX_LIST_DEPTH: '1', GRAPHQL_MAX_COST: '150' } });
    try {
      const post = (query: string) => strict.graphql(query);
      expect((await post('{ teams { name } }')).status).toBe(200);
      const nested = await post('{ teams { members { login } } }');
      expect(nested.status).toBe(400);
      expect(nested.body.errors?.[0]?.message).toMatch(/limit of 1 \(GRAPHQL_MAX_LIST_DEPTH\)/);
      const costly = await post('{ teams { id name email } }'); // 1 + 100 x 3; { teams { name } } costs 101
      expect(costly.status).toBe(400);
      expect(costly.body.errors?.[0]?.message).toMatch(/estimated cost is 301, more than the limit of 150 \(GRAPHQL_MAX_COST\)/);
    } finally {
      await strict.close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { ForeignCommits } from './foreign-commits.js';
import { Freshness } from './freshness.js';
import type { Principal } from './principal.js';
import { RevisionCache } from './revision-cache.js';

const user = (id: number): Principal =>
  ({ kind: 'user', id, login: `u${id}`, orgId: 1, orgRole: 'Viewer', isServiceAdmin: false, authMethod: 'basic' }) as Principal;

/** A cache over a fresh Freshness whose foreign counter is driven by the test. */
function setup(limits: { maxEntries?: number; maxBytes?: number; sizeOf?: (v: string) => number } = { maxEntries: 10 }) {
  let foreign = 0;
  const freshness = new Freshness(new ForeignCommits(() => foreign));
  const cache = new RevisionCache<string, string>(freshness, { ttlMs: 60_000, ...limits });
  let loads = 0;
  const loader =
    (value = 'v') =>
    async () =>
      `${value}${++loads}`;
  return { freshness, cache, loader, commitElsewhere: () => foreign++, loads: () => loads };
}

describe('RevisionCache', () => {
  it.each([
    { name: 'nothing changed', change: (_: ReturnType<typeof setup>) => {}, reloads: false },
    { name: 'a change to everyone', change: (s: ReturnType<typeof setup>) => s.freshness.applyToEveryone(), reloads: true },
    {
      name: "another connection's commit, once synced",
      change: (s: ReturnType<typeof setup>) => {
        s.commitElsewhere();
        s.freshness.sync();
      },
      reloads: true,
    },
    {
      name: 'a change targeted at a user (not a principal-stamped entry)',
      change: (s: ReturnType<typeof setup>) => s.freshness.applyToUsers([7]),
      reloads: false,
    },
    { name: 'clear()', change: (s: ReturnType<typeof setup>) => s.cache.clear(), reloads: true },
  ])('an entry after $name: reloaded $reloads', async ({ change, reloads }) => {
    const s = setup();
    expect((await s.cache.load('k', s.loader())).value).toBe('v1');
    change(s);
    expect((await s.cache.load('k', s.loader())).value).toBe(reloads ? 'v2' : 'v1');
    expect(s.cache.get('k')).toBe(reloads ? 'v2' : 'v1');
  });

  it("entries stamped for a principal move with the changes that reach it, and no other's", async () => {
    const s = setup();
    await s.cache.load('a', s.loader('a'), user(1));
    await s.cache.load('b', s.loader('b'), user(2));
    s.freshness.applyToUsers([1]);
    expect([s.cache.get('a', user(1)), s.cache.get('b', user(2))]).toEqual([undefined, 'b2']);
  });

  it.each([
    { name: 'a change', during: (s: ReturnType<typeof setup>) => s.freshness.applyToEveryone() },
    { name: "another connection's commit (synced after the load)", during: (s: ReturnType<typeof setup>) => s.commitElsewhere() },
    { name: 'clear()', during: (s: ReturnType<typeof setup>) => s.cache.clear() },
  ])('a load that overlapped $name is returned but not stored', async ({ during }) => {
    const s = setup();
    const loaded = await s.cache.load('k', async () => {
      during(s);
      return 'old';
    });
    expect(loaded.value).toBe('old');
    expect(s.cache.get('k')).toBeUndefined();
  });

  it('concurrent loads of one key at one stamp share one load', async () => {
    const s = setup();
    const [a, b] = await Promise.all([s.cache.load('k', s.loader()), s.cache.load('k', s.loader())]);
    expect([a.value, b.value, s.loads()]).toEqual(['v1', 'v1', 1]);
  });

  it('a load begun after a change never joins one begun before it', async () => {
    const s = setup();
    let release = () => {};
    const first = s.cache.load('k', () => new Promise<string>((resolve) => (release = () => resolve('before'))));
    s.freshness.applyToEveryone();
    const second = s.cache.load('k', async () => 'after');
    release();
    expect([(await first).value, (await second).value]).toEqual(['before', 'after']);
    expect(s.cache.get('k')).toBe('after');
  });

  it('set() stores only at the current stamp', () => {
    const s = setup();
    const stamp = s.cache.stamp();
    s.freshness.applyToEveryone();
    s.cache.set('k', 'stale', stamp);
    expect(s.cache.get('k')).toBeUndefined();
    s.cache.set('k', 'fresh', s.cache.stamp());
    expect(s.cache.get('k')).toBe('fresh');
  });

  it('is bounded in entries and in bytes, and off with maxEntries 0', async () => {
    const byCount = setup({ maxEntries: 2 });
    for (const k of ['a', 'b', 'c']) await byCount.cache.load(k, byCount.loader());
    expect(byCount.cache.size).toBe(2);
    const byBytes = setup({ maxBytes: 10, sizeOf: (v) => v.length });
    for (const k of ['a', 'b', 'c']) await byBytes.cache.load(k, async () => 'xxxx');
    expect(byBytes.cache.bytes).toBeLessThanOrEqual(10);
    const off = setup({ maxEntries: 0 });
    await off.cache.load('k', off.loader());
    expect([off.cache.enabled, off.cache.size, off.cache.get('k')]).toEqual([false, 0, undefined]);
  });
});

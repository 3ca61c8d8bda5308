import { afterAll, describe, expect, it } from 'vitest';
import { createLiveTestApp, type LiveTestApp } from '../helpers/liveChain.js';
import { eventually } from '../helpers/serviceProcess.js';

/** Short leases, so a clean stop's handover is seen within a test (renewals every second). */
const LEASES = { leaseTtlMs: 3_000, leaseSkewMs: 1_000 };
const WINDOW_MS = 2_000;

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Three instances of the service in network mode on one database, with their background jobs,
 * against one toncenter fake: the provider sees what one instance makes, because only the
 * holder of the chain lease runs the sender and the follower.
 */
describe('three instances on one database make the provider traffic of one', () => {
  const apps: LiveTestApp[] = [];
  afterAll(async () => {
    // The first owns the fake; the others close first.
    for (const app of apps.slice(1).reverse()) await app.close();
    await apps[0]?.close();
  });

  const requestsOf = (app: LiveTestApp) => app.live.client.budget.requests;
  async function chainStatus(app: LiveTestApp) {
    const res = await app.t.app.inject({ method: 'GET', url: '/admin/chain', headers: app.t.admin });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as {
      instance: string;
      lease: { holder: string | null; heldByThisInstance: boolean; token: number } | null;
    };
  }

  it('one holder polls the provider; the others make no request; a clean stop hands the lease over', async () => {
    const first = await createLiveTestApp({ jobs: true, config: { ...LEASES, instanceId: 'web-1' } });
    apps.push(first);
    await eventually(
      async () => (await chainStatus(first)).lease?.heldByThisInstance === true,
      'web-1 holds',
    );
    // One instance alone, for the window.
    let before = first.fake.totalRequests();
    await wait(WINDOW_MS);
    const alone = first.fake.totalRequests() - before;
    expect(alone).toBeGreaterThan(0);

    for (const id of ['web-2', 'web-3']) {
      apps.push(
        await createLiveTestApp({ sharedWith: first, jobs: true, config: { ...LEASES, instanceId: id } }),
      );
    }
    await wait(1_500); // the newcomers' lease loops have run
    const own = apps.map(requestsOf);
    before = first.fake.totalRequests();
    await wait(WINDOW_MS);
    const three = first.fake.totalRequests() - before;
    const grew = apps.map((app, i) => requestsOf(app) - own[i]!);
    expect(grew[0]).toBeGreaterThan(0);
    expect(grew.slice(1), 'the instances without the lease ask the provider nothing').toEqual([0, 0]);
    // The same polling as one instance (timers on a busy machine vary a little).
    expect(three).toBeLessThanOrEqual(Math.ceil(alone * 1.5) + 2);

    // Every instance names the same holder; only the holder says it is the one.
    const statuses = await Promise.all(apps.map(chainStatus));
    expect(statuses.map((s) => s.instance)).toEqual(['web-1', 'web-2', 'web-3']);
    expect(statuses.map((s) => s.lease?.holder)).toEqual(['web-1', 'web-1', 'web-1']);
    expect(statuses.map((s) => s.lease?.heldByThisInstance)).toEqual([true, false, false]);

    // The holder stops cleanly (releasing the lease): another instance takes over at its next try.
    await first.t.app.close();
    await eventually(
      async () =>
        (await chainStatus(apps[1]!)).lease?.holder !== 'web-1' &&
        (await chainStatus(apps[1]!)).lease?.holder !== null,
      'another instance holds the lease',
      50,
    );
    const next = await chainStatus(apps[1]!);
    expect(['web-2', 'web-3']).toContain(next.lease?.holder);
    expect(next.lease?.token).toBe(2);
    const heir = apps[next.lease?.holder === 'web-2' ? 1 : 2]!;
    const other = apps[next.lease?.holder === 'web-2' ? 2 : 1]!;
    const [heirBefore, otherBefore] = [requestsOf(heir), requestsOf(other)];
    await wait(1_000);
    expect(requestsOf(heir)).toBeGreaterThan(heirBefore);
    expect(requestsOf(other)).toBe(otherBefore);
  });
});

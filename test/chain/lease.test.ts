import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Holder, Lease, LeaseLost, processAlive } from '../../src/domain/chain/lease.js';
import { ManualClock } from '../../src/domain/clock.js';
import { inTransaction } from '../../src/domain/transaction.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const SETTINGS = { ttlMs: 15_000, skewMs: 5_000 };
const holder = (name: string, host = `${name}.example`): Holder => ({
  instanceId: name,
  host,
  pid: 4242,
  runId: `run-${name}`,
});

/** A pid that belonged to a process of this machine that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  const pid = Number(child.stdout.toString());
  expect(processAlive(pid)).toBe(false);
  return pid;
}

describe('the lease row: one holder at a time, takeover after death, fencing', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  let n = 0;
  const fresh = () => `test-lease-${n++}`;

  it('a dead holder (no more renewals) is replaced within 30 s of clock time, never while it still counts itself the holder', async () => {
    const clock = new ManualClock(new Date('2031-01-01T00:00:00Z'));
    const name = fresh();
    const a = new Lease(t.ctx.db, clock, name, holder('a'), SETTINGS);
    const b = new Lease(t.ctx.db, clock, name, holder('b'), SETTINGS);
    expect((await a.tick()).held).toBe(true);
    expect(await b.tick()).toMatchObject({ held: false, other: { holder: 'a', token: 1 } });
    // a renews a few times, then dies right after a renewal (the worst case for b).
    for (let i = 0; i < 3; i++) {
      clock.advance(a.renewEveryMs);
      expect((await a.tick()).held).toBe(true);
      expect((await b.tick()).held).toBe(false);
    }
    const diedAt = clock.now().getTime();
    let takenAfterMs: number | null = null;
    // b tries every renewal interval, as the lease loop does; a stays silent (killed -9).
    for (let waited = 0; waited <= 60_000; waited += b.renewEveryMs) {
      clock.set(new Date(diedAt + waited));
      const outcome = await b.tick();
      if (outcome.held) {
        takenAfterMs = waited;
        break;
      }
      // While b waits, the dead a would still count itself the holder only before TTL - skew.
      if (a.held()) expect(waited).toBeLessThan(SETTINGS.ttlMs - SETTINGS.skewMs);
    }
    expect(takenAfterMs).not.toBeNull();
    expect(takenAfterMs!).toBeLessThanOrEqual(30_000);
    // Not before the lease plus the skew margin ran out.
    expect(takenAfterMs!).toBeGreaterThan(SETTINGS.ttlMs + SETTINGS.skewMs - b.renewEveryMs);
    // a, had it only been paused, no longer counts itself the holder, and its renewal fails.
    expect(a.held()).toBe(false);
    expect(await a.tick()).toMatchObject({ held: false, lost: true, other: { holder: 'b', token: 2 } });
    expect(b.currentToken).toBe(2);
  });

  it('at any moment at most one of several instances counts itself the holder', async () => {
    const clock = new ManualClock(new Date('2031-02-01T00:00:00Z'));
    const name = fresh();
    const leases = ['a', 'b', 'c'].map((id) => new Lease(t.ctx.db, clock, name, holder(id), SETTINGS));
    const alive = new Set([0, 1, 2]);
    for (let step = 0; step < 60; step++) {
      // Every 10th step the current holder dies.
      const current = leases.findIndex((l, i) => alive.has(i) && l.held());
      if (step % 10 === 9 && current >= 0) alive.delete(current);
      if (alive.size === 0) break;
      await Promise.all([...alive].map((i) => leases[i]!.tick()));
      const holders = leases.filter((l, i) => alive.has(i) && l.held());
      expect(holders.length).toBeLessThanOrEqual(1);
      clock.advance(5_000);
    }
  });

  it('a holder on this machine whose process is gone is replaced at once', async () => {
    const clock = new ManualClock(new Date('2031-03-01T00:00:00Z'));
    const name = fresh();
    const gone = new Lease(
      t.ctx.db,
      clock,
      name,
      { ...holder('gone', os.hostname()), pid: deadPid() },
      SETTINGS,
    );
    expect((await gone.tick()).held).toBe(true);
    const next = new Lease(t.ctx.db, clock, name, holder('next', os.hostname()), SETTINGS);
    expect((await next.tick()).held).toBe(true);
    // A live process of this machine (our parent) keeps it until it expires.
    const liveName = fresh();
    const parent = { ...holder('parent', os.hostname()), pid: process.ppid };
    expect((await new Lease(t.ctx.db, clock, liveName, parent, SETTINGS).tick()).held).toBe(true);
    expect(
      (await new Lease(t.ctx.db, clock, liveName, holder('other', os.hostname()), SETTINGS).tick()).held,
    ).toBe(false);
    // An earlier process that had this process's pid (pid 1 in a restarted container) is gone.
    const earlierName = fresh();
    const earlier = { ...holder('earlier', os.hostname()), pid: process.pid, runId: 'an-earlier-run' };
    expect((await new Lease(t.ctx.db, clock, earlierName, earlier, SETTINGS).tick()).held).toBe(true);
    const now = { ...holder('now', os.hostname()), pid: process.pid };
    expect((await new Lease(t.ctx.db, clock, earlierName, now, SETTINGS).tick()).held).toBe(true);
  });

  it('a released lease is taken at once', async () => {
    const clock = new ManualClock(new Date('2031-04-01T00:00:00Z'));
    const name = fresh();
    const a = new Lease(t.ctx.db, clock, name, holder('a'), SETTINGS);
    const b = new Lease(t.ctx.db, clock, name, holder('b'), SETTINGS);
    await a.tick();
    expect((await b.tick()).held).toBe(false);
    await a.release();
    expect((await b.tick()).held).toBe(true);
  });

  it('fencing: a holder whose own clock still says it holds writes nothing after another took over', async () => {
    // a's clock lags b's by more than the skew margin (or a was paused between its check and
    // its write): only the token in the database stops it.
    const clockA = new ManualClock(new Date('2031-05-01T00:00:00Z'));
    const clockB = new ManualClock(new Date('2031-05-01T00:00:40Z'));
    const name = fresh();
    const a = new Lease(t.ctx.db, clockA, name, holder('a'), SETTINGS);
    const b = new Lease(t.ctx.db, clockB, name, holder('b'), SETTINGS);
    await a.tick();
    await inTransaction(t.ctx.db, (trx) => a.fence(trx)); // holds: passes
    expect((await b.tick()).held).toBe(true);
    expect(a.held(), "a's clock still says it holds").toBe(true);
    await expect(inTransaction(t.ctx.db, (trx) => a.fence(trx))).rejects.toBeInstanceOf(LeaseLost);
    expect(await a.confirm()).toBe(false);
    await inTransaction(t.ctx.db, (trx) => b.fence(trx));
  });
});

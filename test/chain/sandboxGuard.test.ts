import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../src/dataDirLock.js';
import { openDatabase } from '../../src/db/database.js';
import { readLease } from '../../src/db/repositories/leases.js';
import { closeServices, openServices } from '../../src/services.js';
import { adminQuery, createTestApp, DIALECT, type TestApp } from '../helpers/app.js';
import { createAgent } from '../helpers/fixtures.js';

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

/**
 * The sandbox is one process: its chain is an emulator in that process, saved in DATA_DIR. A
 * second instance on the same DATA_DIR or the same database refuses to start and says why; a
 * previous instance that crashed does not keep a new one from starting.
 */
describe('a second sandbox instance refuses to start', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('holds the sandbox lease in its database and the lock file in DATA_DIR while running', async () => {
    const lease = await readLease(t.ctx.db, 'sandbox');
    expect(lease).toMatchObject({
      holder: t.config.instanceId,
      pid: process.pid,
      host: os.hostname(),
      token: 1,
    });
    const lock = JSON.parse(readFileSync(path.join(t.config.dataDir, LOCK_FILE), 'utf8'));
    expect(lock).toMatchObject({ instanceId: t.config.instanceId, pid: process.pid });
    const res = await t.app.inject({ method: 'GET', url: '/admin/chain', headers: t.admin });
    expect(res.json()).toMatchObject({
      instance: t.config.instanceId,
      lease: { name: 'sandbox', holder: t.config.instanceId, heldByThisInstance: true, expired: false },
    });
  });

  it('on the same DATA_DIR (and so the same SQLite file): refused, naming the running instance', async () => {
    const second = { ...t.config, instanceId: 'second' };
    await expect(openServices(second, { clock: t.clock, pgSchema: t.pgSchema })).rejects.toThrow(
      new RegExp(`DATA_DIR .* is in use by instance ${t.config.instanceId} \\(pid ${process.pid}`),
    );
    // The running instance is untouched: its lock and lease are its own, and it still pays.
    expect(JSON.parse(readFileSync(path.join(t.config.dataDir, LOCK_FILE), 'utf8')).instanceId).toBe(
      t.config.instanceId,
    );
    expect((await readLease(t.ctx.db, 'sandbox'))?.holder).toBe(t.config.instanceId);
    await createAgent(t, { deposit: '5' });
  });

  it('on the same database: refused by the database lease, even without the lock file', async () => {
    // PostgreSQL: another DATA_DIR on the same database. SQLite's database is the file in
    // DATA_DIR: the same directory, whose lock file someone deleted.
    const otherDir = DIALECT === 'postgres' ? mkdtempSync(path.join(os.tmpdir(), 'handoff-second-')) : null;
    if (!otherDir) rmSync(path.join(t.config.dataDir, LOCK_FILE));
    try {
      const second = { ...t.config, instanceId: 'second', dataDir: otherDir ?? t.config.dataDir };
      await expect(openServices(second, { clock: t.clock, pgSchema: t.pgSchema })).rejects.toThrow(
        new RegExp(
          `another sandbox instance, ${t.config.instanceId} \\(pid ${process.pid} on .*\\), is running on this database`,
        ),
      );
      // The refused instance left no lock file behind in its directory.
      if (otherDir) expect(existsSync(path.join(otherDir, LOCK_FILE))).toBe(false);
    } finally {
      if (otherDir) rmSync(otherDir, { recursive: true, force: true });
    }
    // The running instance writes its lock file again at its next renewal, and keeps paying.
    await createAgent(t, { deposit: '5' });
  });
});

describe('a crashed sandbox instance does not block a restart', () => {
  it('a lock file and a lease left by a dead process on this host are taken over at once', async () => {
    const first = await createTestApp();
    await first.close({ keepData: true });
    // What a kill -9 leaves: the lock file and an unexpired lease naming a process now gone.
    const pid = deadPid();
    const host = os.hostname();
    writeFileSync(
      path.join(first.config.dataDir, LOCK_FILE),
      JSON.stringify({
        instanceId: 'crashed',
        host,
        pid,
        runId: 'crashed',
        startedAt: '2030-01-01T00:00:00.000Z',
      }),
    );
    const db = openDatabase({
      databaseUrl: first.config.databaseUrl,
      dataDir: first.config.dataDir,
      pgSchema: first.pgSchema,
    });
    await db.db
      .updateTable('leases')
      .set({
        holder: 'crashed',
        host,
        pid,
        run_id: 'crashed',
        expires_at: new Date(first.clock.now().getTime() + 60_000).toISOString(),
      })
      .where('name', '=', 'sandbox')
      .execute();
    await db.close();
    const restarted = await createTestApp({ reopen: first });
    try {
      expect(await readLease(restarted.ctx.db, 'sandbox')).toMatchObject({
        holder: first.config.instanceId,
        token: 2,
      });
    } finally {
      await restarted.close();
    }
  });

  it('a lock file from another host counts until its heartbeat is older than the lease', async () => {
    const first = await createTestApp();
    await first.close({ keepData: true });
    const file = path.join(first.config.dataDir, LOCK_FILE);
    const elsewhere = {
      instanceId: 'elsewhere',
      host: 'elsewhere.example',
      pid: 1,
      runId: 'x',
      startedAt: '',
    };
    writeFileSync(file, JSON.stringify(elsewhere));
    const now = first.clock.now();
    utimesSync(file, now, now);
    await expect(createTestApp({ reopen: first })).rejects.toThrow(/is in use by instance elsewhere/);
    const old = new Date(now.getTime() - 21_000); // LEASE_TTL_MS + LEASE_SKEW_MS ago, and more
    utimesSync(file, old, old);
    const restarted = await createTestApp({ reopen: first });
    await restarted.close();
  });
});

describe('closing releases the sandbox', () => {
  it('a clean stop removes the lock file and releases the lease for the next start', async () => {
    const first = await createTestApp();
    const services = { ...first.services };
    expect(services.sandboxGuard).toBeDefined();
    await first.close({ keepData: true });
    expect(existsSync(path.join(first.config.dataDir, LOCK_FILE))).toBe(false);
    const again = await openServices(first.config, { clock: first.clock, pgSchema: first.pgSchema });
    expect((await readLease(again.db.db, 'sandbox'))?.token).toBe(2);
    await closeServices(again);
    rmSync(first.config.dataDir, { recursive: true, force: true });
    if (first.pgSchema) await adminQuery(`drop schema ${first.pgSchema} cascade`);
  });
});

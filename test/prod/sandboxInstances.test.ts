import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DIALECT } from '../helpers/app.js';
import { type ServiceProcess, serviceDatabase, serviceEnv, startService } from '../helpers/serviceProcess.js';

/**
 * The sandbox as real processes: a second instance on the same DATA_DIR or the same database
 * exits with the reason, and an instance killed with SIGKILL (no clean-up at all) does not keep
 * the next start from happening.
 */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function freshDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'handoff-sandbox-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function started(env: Record<string, string>): Promise<ServiceProcess> {
  const service = await startService(env);
  cleanups.push(async () => {
    if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
    await service.exited;
  });
  return service;
}

/** The reason a start failed: the service's one line on stderr. */
async function refusedStart(env: Record<string, string>): Promise<string> {
  const error = await startService(env).then(
    async (service) => {
      await service.stop();
      return null;
    },
    (e: Error) => e,
  );
  expect(error, 'the second instance started').not.toBeNull();
  return error!.message;
}

describe('sandbox: one process per DATA_DIR and per database', () => {
  it('a second instance is refused with the reason; after a kill -9 the next start is not blocked', async () => {
    const dataDir = freshDir();
    const database = await serviceDatabase('sbx');
    cleanups.push(() => database.drop());
    const env = serviceEnv(dataDir, database, { INSTANCE_ID: 'sandbox-a' });
    const first = await started(env);

    const sameDir = await refusedStart({ ...env, INSTANCE_ID: 'sandbox-b' });
    expect(sameDir).toMatch(
      /Handoff could not start: DATA_DIR .* is in use by instance sandbox-a \(pid \d+ on .*\): the sandbox keeps its chain in DATA_DIR/,
    );
    if (DIALECT === 'postgres') {
      const sameDatabase = await refusedStart({ ...env, INSTANCE_ID: 'sandbox-c', DATA_DIR: freshDir() });
      expect(sameDatabase).toMatch(
        /Handoff could not start: another sandbox instance, sandbox-a \(pid \d+ on .*\), is running on this database/,
      );
    }
    // The first instance is unaffected.
    const status = await fetch(`${first.url}/admin/chain`, {
      headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` },
    }).then((r) => r.json() as Promise<{ lease: unknown }>);
    expect(status.lease).toMatchObject({ holder: 'sandbox-a', heldByThisInstance: true, token: 1 });

    // A crash leaves the lock file and an unexpired lease behind: the holder's pid is gone.
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    const restarted = await started({ ...env, INSTANCE_ID: 'sandbox-a2' });
    const after = await fetch(`${restarted.url}/admin/chain`, {
      headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` },
    }).then((r) => r.json() as Promise<{ lease: unknown }>);
    expect(after.lease).toMatchObject({ holder: 'sandbox-a2', heldByThisInstance: true, token: 2 });
    await restarted.stop();
  }, 240_000);
});

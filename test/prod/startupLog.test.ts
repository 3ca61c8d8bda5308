import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, startService } from '../helpers/serviceProcess.js';

/**
 * What `npm start` says as it starts: JSON lines only (the sandbox chain's line too), and where
 * it listens, which is this machine only unless HOST says otherwise.
 */
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'handoff-startlog-'));
let service: ServiceProcess | undefined;
afterAll(async () => {
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('start-up', () => {
  it('listens on loopback by default, says so, and logs the chain as JSON', async () => {
    // HOST empty is HOST unset (the helper sets one otherwise).
    service = await startService({ HOST: '', DATA_DIR: dataDir });
    expect(service.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await service.stop();
    const lines = service
      .output()
      .split('\n')
      .filter((line) => line.trim() !== '');
    const records = lines.map((line) => {
      try {
        return JSON.parse(line) as { msg: string; component?: string };
      } catch {
        throw new Error(`not a JSON log line: ${line}`);
      }
    });
    expect(records.some((r) => r.component === 'chain' && /sandbox chain created/.test(r.msg))).toBe(true);
    expect(
      records.some((r) =>
        /^Listening on 127\.0\.0\.1:\d+ \(this machine only; set HOST=0\.0\.0\.0/.test(r.msg),
      ),
    ).toBe(true);
  }, 120_000);
});

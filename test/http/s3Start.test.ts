import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openServices } from '../../src/services.js';
import { type LocalS3, startLocalS3 } from '../helpers/s3.js';

let s3: LocalS3;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'handoff-s3start-'));
beforeAll(async () => {
  s3 = await startLocalS3();
});
afterAll(async () => {
  await s3.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The configuration main.ts reads, with these S3 settings (on the embedded SQLite and sandbox). */
function configWith(s3Settings: Partial<LocalS3['settings']>) {
  const { config } = loadConfig({ DATA_DIR: dataDir });
  return { ...config, s3: { ...s3.settings, ...s3Settings } };
}

describe('start-up with S3_BUCKET', () => {
  it('fails with the reason when the bucket does not exist, instead of at the first upload', async () => {
    await expect(openServices(configWith({ bucket: 'no-such-bucket' }))).rejects.toThrow(
      'S3_BUCKET "no-such-bucket" cannot be used (it does not exist)',
    );
  });

  it('fails with the reason when the store cannot be reached', async () => {
    await expect(openServices(configWith({ endpoint: 'http://127.0.0.1:1' }))).rejects.toThrow(
      /S3_BUCKET "handoff-test" cannot be used \(.*ECONNREFUSED/,
    );
  });

  it('opens with a bucket that answers', async () => {
    const services = await openServices(configWith({}));
    expect(services.storage.constructor.name).toBe('S3Storage');
    services.storage.close?.();
    await services.chain.close();
    await services.db.close();
  });
});

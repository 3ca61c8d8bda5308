import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'handoff-s3config-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const BASE = {
  DATA_DIR: dataDir,
  ADMIN_TOKEN: 'admin-token-from-env-0123456789abcdef',
  SECRET_KEY: 'ab'.repeat(32),
  TELEGRAM_BOT_TOKEN: '123:bot-token-from-env',
};
const load = (env: Record<string, string>) => loadConfig({ ...BASE, ...env });

describe('S3 settings', () => {
  it('are absent without S3_BUCKET: uploads stay on local disk', () => {
    expect(load({}).config.s3).toBeUndefined();
  });

  it('S3_BUCKET alone means AWS S3 in us-east-1, virtual-hosted style', () => {
    expect(load({ S3_BUCKET: 'handoff-uploads' }).config.s3).toEqual({
      bucket: 'handoff-uploads',
      region: 'us-east-1',
      forcePathStyle: false,
    });
    expect(load({ S3_BUCKET: 'b12', AWS_REGION: 'eu-west-3' }).config.s3?.region).toBe('eu-west-3');
  });

  it('S3_ENDPOINT (MinIO, R2...) turns path style on unless S3_FORCE_PATH_STYLE says otherwise', () => {
    const minio = load({ S3_BUCKET: 'uploads', S3_ENDPOINT: 'http://minio:9000/', S3_REGION: 'auto' });
    expect(minio.config.s3).toEqual({
      bucket: 'uploads',
      endpoint: 'http://minio:9000',
      region: 'auto',
      forcePathStyle: true,
    });
    const hosted = load({
      S3_BUCKET: 'uploads',
      S3_ENDPOINT: 'https://x.r2.dev',
      S3_FORCE_PATH_STYLE: 'false',
    });
    expect(hosted.config.s3?.forcePathStyle).toBe(false);
  });

  it('refuses bad values with a message naming the variable', () => {
    expect(() => load({ S3_BUCKET: 'Bad_Bucket' })).toThrow(/S3_BUCKET must be a bucket name/);
    expect(() => load({ S3_BUCKET: 'ok-bucket', S3_ENDPOINT: 'minio:9000' })).toThrow(
      /S3_ENDPOINT must be an http/,
    );
    expect(() => load({ S3_BUCKET: 'ok-bucket', S3_FORCE_PATH_STYLE: 'yes' })).toThrow(/S3_FORCE_PATH_STYLE/);
    expect(() => load({ S3_BUCKET: 'ok-bucket', S3_REGION: 'us east' })).toThrow(/S3_REGION/);
    // A half-configured store must not fall back to local disk silently.
    expect(() => load({ S3_ENDPOINT: 'http://minio:9000' })).toThrow(/S3_BUCKET is not/);
  });

  it('on PostgreSQL without S3_BUCKET, start-up says that several instances need it', () => {
    const pg = load({ DATABASE_URL: 'postgres://db/handoff' });
    expect(pg.notices.map((n) => n.message)).toContainEqual(
      expect.stringMatching(/several instances need S3_BUCKET/),
    );
    const withS3 = load({ DATABASE_URL: 'postgres://db/handoff', S3_BUCKET: 'uploads' });
    expect(withS3.notices.map((n) => n.message).join('\n')).not.toMatch(/S3_BUCKET/);
  });
});

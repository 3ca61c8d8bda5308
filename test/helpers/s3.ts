import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import type { S3Settings } from '../../src/config.js';

/** s3rver's fixed credentials: it checks request signatures against them. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** A local S3-compatible server (s3rver) on a free port, with one empty bucket, in a temp directory. */
export interface LocalS3 {
  settings: S3Settings & { endpoint: string };
  /** The keys of every complete object in the bucket. */
  keys(): Promise<string[]>;
  /** Deletes an object behind the app's back (a lost object). */
  remove(key: string): Promise<void>;
  /** Stops the server (an outage), keeping its objects; `resume` serves them again on the same port. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  close(): Promise<void>;
}

export async function startLocalS3(bucket = 'handoff-test'): Promise<LocalS3> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'handoff-s3rver-'));
  const serve = (port: number) =>
    new S3rver({
      address: '127.0.0.1',
      port,
      silent: true,
      directory,
      configureBuckets: [{ name: bucket, configs: [] }],
    });
  let server = serve(0);
  const { port } = await server.run();
  const settings = {
    bucket,
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: S3RVER_CREDENTIALS,
  };
  const client = new S3Client({ ...settings, requestChecksumCalculation: 'WHEN_REQUIRED' });
  return {
    settings,
    async keys() {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }),
        );
        keys.push(...(page.Contents ?? []).map((object) => object.Key!));
        token = page.NextContinuationToken;
      } while (token);
      return keys.sort();
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    async pause() {
      await server.close();
    },
    async resume() {
      server = serve(port);
      await server.run();
    },
    async close() {
      client.destroy();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

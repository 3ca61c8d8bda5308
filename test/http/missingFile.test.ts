import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent } from '../helpers/fixtures.js';
import { type LocalS3, startLocalS3 } from '../helpers/s3.js';

// On both stores: local disk, and an S3-compatible bucket (where a lost object is NoSuchKey).
describe.each(['disk', 's3'] as const)(
  'GET /files/:id/:name when the stored bytes are gone (%s)',
  (storage) => {
    let t: TestApp;
    let s3: LocalS3 | undefined;
    beforeAll(async () => {
      s3 = storage === 's3' ? await startLocalS3() : undefined;
      t = await createTestApp(s3 ? { s3: s3.settings } : {});
    });
    afterAll(async () => {
      await t.close();
      await s3?.close();
    });

    /** An uploaded file's path under the app's public URL, and its storage key. */
    async function uploaded(type: string) {
      const agent = await createAgent(t);
      const form = new FormData();
      form.append('file', new Blob(['%PDF-1.4 hello'], { type }), 'report.pdf');
      const request = new Request('http://x/upload', { method: 'POST', body: form });
      const res = await t.app.inject({
        method: 'POST',
        url: '/upload',
        headers: { ...agent.headers, 'content-type': request.headers.get('content-type')! },
        payload: Buffer.from(await request.arrayBuffer()),
      });
      expect(res.statusCode, res.body).toBe(200);
      const url = res.json().fileUrl.slice(t.config.publicUrl.length) as string;
      const id = url.split('/')[2]!;
      const row = await t.ctx.db
        .selectFrom('uploads')
        .select('storage_key')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return { url, key: row.storage_key! };
    }

    /** The bytes disappear (a disk restored from an older backup, an operator's cleanup). */
    async function lose(key: string) {
      if (s3) {
        expect(await s3.keys()).toContain(`uploads/${key}`);
        await s3.remove(`uploads/${key}`);
      } else {
        rmSync(path.join(t.config.dataDir, 'uploads', key.slice(-2), key));
      }
    }

    for (const type of ['application/pdf', 'image/png']) {
      it(`answers 404 File not found, as JSON (${type}), not a 500`, async () => {
        const { url, key } = await uploaded(type);
        expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(200);
        await lose(key);
        const res = await t.app.inject({ method: 'GET', url });
        expect(res.statusCode, res.body).toBe(404);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.json()).toEqual({ error: 'File not found' });
      });
    }
  },
);

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent } from '../helpers/fixtures.js';
import { type LocalS3, startLocalS3 } from '../helpers/s3.js';

let t: TestApp;
let s3: LocalS3;
let base: string;
beforeAll(async () => {
  s3 = await startLocalS3();
  t = await createTestApp({ s3: s3.settings });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await t.close();
  await s3.close();
});

const local = (url: string) => base + url.slice(t.config.publicUrl.length);

async function multipart(headers: Record<string, string>, bytes: Uint8Array) {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'image/png' }), 'pic.png');
  return fetch(`${base}/upload`, { method: 'POST', headers, body: form });
}

describe('the S3 store down while the service runs', () => {
  it('answers 503 with Retry-After (not 500), stores nothing, and works again once the store is back', async () => {
    const agent = await createAgent(t);
    const before = await multipart(agent.headers, randomBytes(100));
    expect(before.status).toBe(200);
    const { fileUrl } = (await before.json()) as { fileUrl: string };
    const signed = (await (
      await fetch(`${base}/upload`, {
        method: 'POST',
        headers: { ...agent.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ filename: 'later.png', contentType: 'image/png' }),
      })
    ).json()) as { uploadUrl: string; fileUrl: string };
    const rows = () => t.ctx.db.selectFrom('uploads').select(['id', 'status']).orderBy('id').execute();
    const rowsBefore = await rows();

    await s3.pause();
    const answers = [
      await fetch(local(fileUrl)),
      await multipart(agent.headers, randomBytes(100)),
      await fetch(local(signed.uploadUrl), { method: 'PUT', body: randomBytes(100) }),
    ];
    for (const res of answers) {
      expect(res.status, res.url).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(((await res.json()) as { error: string }).error).toMatch(/File storage is unavailable/);
    }
    expect(await rows()).toEqual(rowsBefore);

    await s3.resume();
    expect((await fetch(local(fileUrl))).status).toBe(200);
    // The signed URL was not used up by the failed attempt.
    const put = await fetch(local(signed.uploadUrl), { method: 'PUT', body: randomBytes(100) });
    expect(put.status, await put.text()).toBe(200);
    expect((await fetch(local(signed.fileUrl))).status).toBe(200);
  });
});

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import {
  assignedTask,
  createAgent,
  createWorker,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';
import { call } from '../helpers/workerApi.js';

/**
 * A chat attachment's fileUrl is stored as the canonical URL of the sender's own upload, rebuilt
 * by the service: what the caller sent is only parsed to find the upload. Anything that is not
 * that upload's URL (a query string, a fragment, a path that resolves elsewhere, another name) is
 * a 400 that writes nothing.
 */
let t: TestApp;
let agent: TestAgent;
let worker: TestWorker;
let taskId: string;
beforeAll(async () => {
  t = await createTestApp();
  agent = await createAgent(t, { deposit: '100' });
  worker = await createWorker(t);
  ({ taskId } = await assignedTask(t, agent, worker));
});
afterAll(() => t.close());

type Side = TestAgent | TestWorker;
const sides: [string, () => Side][] = [
  ['agent', () => agent],
  ['worker', () => worker],
];
const messagesUrl = (side: Side) =>
  'apiKey' in side ? `/chat/${taskId}/messages` : `/worker/chat/${taskId}/messages`;

async function upload(side: Side, filename: string) {
  const form = new FormData();
  form.append('file', new Blob([randomBytes(16)], { type: 'image/png' }), filename);
  const request = new Request('http://x/upload', { method: 'POST', body: form });
  const res = await t.app.inject({
    method: 'POST',
    url: 'apiKey' in side ? '/upload' : '/worker/upload',
    headers: { ...side.headers, 'content-type': request.headers.get('content-type')! },
    payload: Buffer.from(await request.arrayBuffer()),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { fileUrl: string; fileName: string };
}

const messages = async (side: Side) =>
  (await call(t, 'GET', messagesUrl(side), side.headers)).json().messages as { fileUrl: string | null }[];

describe.each(sides)('chat fileUrl from the %s', (_name, sideOf) => {
  it('is refused (400, nothing written) unless it is exactly the sender’s upload', async () => {
    const side = sideOf();
    const file = await upload(side, 'A photo.png');
    const base = t.config.publicUrl;
    const id = file.fileUrl.split('/files/')[1]!.split('/')[0]!;
    const before = await messages(side);
    for (const fileUrl of [
      `${file.fileUrl}?download=1`,
      `${file.fileUrl}#page=2`,
      `${file.fileUrl}/extra`,
      `${base}/files/${id}/other-name.png`,
      `${base}/files/${id}/A%20photo.png/../../../admin/agents`,
      `${base}/files/${id}/..%2F..%2Fadmin`,
      `${base}/files/${id}/%E0%A4%A`,
      `${base}/files/${id}`,
      `${base.replace('http:', 'https:')}/files/${id}/A%20photo.png`,
      `http://user:pass@${base.slice('http://'.length)}/files/${id}/A%20photo.png`,
    ]) {
      const res = await call(t, 'POST', messagesUrl(side), side.headers, { content: 'see', fileUrl });
      expect(res.statusCode, `${fileUrl} ${res.body}`).toBe(400);
      expect(res.json().details[0].path).toBe('fileUrl');
    }
    expect(await messages(side)).toEqual(before);
  });

  it('is stored as the canonical URL when it only spells the same URL differently', async () => {
    const side = sideOf();
    const file = await upload(side, 'A photo.png');
    const id = file.fileUrl.split('/files/')[1]!.split('/')[0]!;
    const host = t.config.publicUrl.slice('http://'.length);
    for (const fileUrl of [
      file.fileUrl,
      `HTTP://${host.toUpperCase()}/files/${id}/A%20photo.png`,
      `${t.config.publicUrl}/files/x/../${id}/A%20ph%6Fto.png`,
    ]) {
      const res = await call(t, 'POST', messagesUrl(side), side.headers, { content: 'see', fileUrl });
      expect(res.statusCode, `${fileUrl} ${res.body}`).toBe(201);
      expect(res.json().message.fileUrl).toBe(file.fileUrl);
    }
  });
});

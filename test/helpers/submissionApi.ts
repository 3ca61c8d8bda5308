import { expect } from 'vitest';
import type { TestApp } from './app.js';
import { assignedTask, type TestAgent, type TestWorker } from './fixtures.js';
import { call } from './workerApi.js';

export interface SubmissionBody {
  id: string;
  number: number;
  note: string;
  attachments: { fileUrl: string; name: string; contentType: string; size: number }[];
  location: {
    latitude: number;
    longitude: number;
    accuracyMeters: number | null;
    withinArea: boolean | null;
  } | null;
  createdAt: string;
  status: string;
  revisionReason: string | null;
}

/** Uploads bytes through the signed-URL mode (JSON, then PUT) and returns the upload's fileUrl. */
export async function uploadFile(
  t: TestApp,
  side: TestAgent | TestWorker,
  filename = 'photo.jpg',
  contentType = 'image/jpeg',
  bytes: Buffer = Buffer.from('not really a jpeg'),
): Promise<string> {
  const url = 'apiKey' in side ? '/upload' : '/worker/upload';
  const signed = await call(t, 'POST', url, side.headers, { filename, contentType });
  expect(signed.statusCode, signed.body).toBe(200);
  const { uploadUrl } = signed.json() as { uploadUrl: string };
  const put = await t.app.inject({
    method: 'PUT',
    url: uploadUrl.slice(t.config.publicUrl.length),
    headers: { 'content-type': 'application/octet-stream' },
    payload: bytes,
  });
  expect(put.statusCode, put.body).toBe(200);
  return put.json().fileUrl as string;
}

/** POST /worker/tasks/:id/submissions, whatever the answer. */
export function submit(t: TestApp, worker: TestWorker, taskId: string, body: Record<string, unknown> = {}) {
  return call(t, 'POST', `/worker/tasks/${taskId}/submissions`, worker.headers, {
    note: 'Done: see the photo',
    ...body,
  });
}

/** A submission that must succeed; returns it. */
export async function submitOk(
  t: TestApp,
  worker: TestWorker,
  taskId: string,
  body: Record<string, unknown> = {},
) {
  const res = await submit(t, worker, taskId, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().submission as SubmissionBody;
}

/** POST /tasks/:id/revisions, whatever the answer. */
export function requestRevision(
  t: TestApp,
  agent: TestAgent,
  taskId: string,
  reason = 'The photo is blurry',
) {
  return call(t, 'POST', `/tasks/${taskId}/revisions`, agent.headers, { reason });
}

/** An assigned task with one waiting submission; returns the task id and the submission. */
export async function submittedTask(
  t: TestApp,
  agent: TestAgent,
  worker: TestWorker,
  body: Record<string, unknown> = {},
) {
  const { taskId } = await assignedTask(t, agent, worker, body);
  const submission = await submitOk(t, worker, taskId);
  return { taskId, submission };
}

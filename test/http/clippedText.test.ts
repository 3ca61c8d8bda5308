import { toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, workerAuth } from '../helpers/app.js';
import { assignedTask, createAgent, createWorker } from '../helpers/fixtures.js';
import { createLiveTestApp, roundsUntil } from '../helpers/liveChain.js';

/**
 * Every place that shortens text a person typed keeps whole characters (grapheme clusters):
 * a cut surrogate pair was a 500 (encodeURIComponent throws on it), a cut emoji or accent is
 * garbage on screen. One input per site, with emoji, ZWJ sequences and combining marks.
 */
const FAMILY = '👩‍👩‍👧‍👦'; // one grapheme: 7 code points, 11 UTF-16 units
const TONED_THUMB = '\u{1F44D}\u{1F3FD}'; // one grapheme, two code points, no joiner
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/**
 * The file name was "ok " and 30 family emoji (213 characters, now a 400: the schema
 * takes 200); this one, 199 characters, fits the schema but not 200 UTF-16 units.
 */
const LONG_NAME = `ok ${FAMILY.repeat(28)}`;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('file names', () => {
  it('POST /upload with JSON: a long emoji name within the schema is kept whole (was a 500)', async () => {
    const agent = await createAgent(t);
    const res = await t.app.inject({
      method: 'POST',
      url: '/upload',
      headers: agent.headers,
      payload: { filename: LONG_NAME, contentType: 'application/pdf' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const { fileUrl } = res.json();
    expect(decodeURIComponent(fileUrl.split('/').pop())).toBe(LONG_NAME);
  });

  it('multipart upload: a name of combining marks and emoji is cut between characters', async () => {
    const agent = await createAgent(t);
    const name = `${'e\u0301'.repeat(99)}${FAMILY}.txt`; // 198 + 7 + 4 code points
    const form = new FormData();
    form.append('file', new Blob(['hi'], { type: 'text/plain' }), name);
    const request = new Request('http://x/upload', { method: 'POST', body: form });
    const res = await t.app.inject({
      method: 'POST',
      url: '/upload',
      headers: { ...agent.headers, 'content-type': request.headers.get('content-type')! },
      payload: Buffer.from(await request.arrayBuffer()),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().fileName).toBe('e\u0301'.repeat(99));
    // Its URL (99 escaped accents: 693 characters in the path) serves it.
    const file = await t.app.inject({
      method: 'GET',
      url: res.json().fileUrl.slice(t.config.publicUrl.length),
    });
    expect(file.statusCode, file.body).toBe(200);
    expect(file.body).toBe('hi');
  });
});

describe('texts kept from requests', () => {
  it('a worker’s name from Telegram longer than 100 characters keeps whole emoji', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/worker/me',
      headers: workerAuth(t, 77_001, `ok ${FAMILY.repeat(20)}`),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().worker.firstName).toBe(`ok ${FAMILY.repeat(13)}`); // 94 code points
  });

  it('the chat preview in the worker’s notification ends before an emoji that does not fit', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    const res = await t.app.inject({
      method: 'POST',
      url: `/chat/${taskId}/messages`,
      headers: agent.headers,
      payload: { content: `${'x'.repeat(199)}${FAMILY} and more` },
    });
    expect(res.statusCode, res.body).toBe(201);
    const row = await t.ctx.db
      .selectFrom('notifications')
      .select('data_json')
      .where('task_id', '=', taskId)
      .where('kind', '=', 'message')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.data_json).preview).toBe('x'.repeat(199));
  });

  it('a refund reason of 1000 characters is kept whole, not cut at 1000 UTF-16 units', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    const reason = `${FAMILY.repeat(142)}e\u0301abc`; // 994 + 2 + 3 = 999 code points
    const res = await t.app.inject({
      method: 'POST',
      url: `/tasks/${taskId}/refund`,
      headers: agent.headers,
      payload: { reason },
    });
    expect(res.statusCode, res.body).toBe(200);
    const event = await t.ctx.db
      .selectFrom('events')
      .select('data_json')
      .where('task_id', '=', taskId)
      .where('type', '=', 'refund.processed')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(event.data_json).refund.reason).toBe(reason);
  });
});

describe('a deposit memo from the chain', () => {
  it('is kept up to 200 characters without cutting an emoji', async () => {
    const l = await createLiveTestApp();
    try {
      // A skin-toned thumb, not FAMILY: the watcher drops joiners (U+200D) from memos before
      // anything else, which would split FAMILY into four whole emoji.
      const memo = `${'m'.repeat(199)}${TONED_THUMB}`;
      await l.fake.sendFromFaucet(l.live.wallet.address, toNano('2'), memo);
      const list = async () => {
        const res = await l.t.app.inject({
          method: 'GET',
          url: '/admin/deposits/unmatched',
          headers: l.t.admin,
        });
        return res.json().deposits as { memo: string }[];
      };
      await roundsUntil(l, async () => (await list()).some((d) => d.memo.startsWith('mmm')));
      const stored = (await list()).find((d) => d.memo.startsWith('mmm'))!;
      expect(LONE_SURROGATE.test(stored.memo)).toBe(false);
      expect(stored.memo).toBe('m'.repeat(199));
    } finally {
      await l.close();
    }
  }, 120_000);
});

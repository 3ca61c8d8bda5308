import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp, workerAuth } from '../helpers/app.js';
import { assignedTask, createAgent, createTask, createWorker, type TestAgent } from '../helpers/fixtures.js';

/**
 * U+0000 cannot be stored in PostgreSQL text ("invalid byte sequence for encoding UTF8: 0x00"),
 * while SQLite stores it: both databases must answer the same. Where the caller typed it, it is a
 * 400 naming the field; where Telegram sent it (init data), it is removed.
 */
describe('NUL and invisible text', () => {
  let t: TestApp;
  let agent: TestAgent;

  beforeAll(async () => {
    t = await createTestApp();
    agent = await createAgent(t, { deposit: '1000' });
  });
  afterAll(() => t.close());

  const expectNulRefused = (res: { statusCode: number; json(): unknown; body: string }, path: string) => {
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'Validation failed',
      details: [{ path, message: expect.stringContaining('U+0000') }],
    });
  };

  it('refuses NUL in body fields with a 400 that names the field', async () => {
    const before = await ok(t, agent, 'GET', '/agents/me');
    expectNulRefused(
      await call(t, agent, 'POST', '/tasks', { title: 'a\u0000b', description: 'd', reward: '1' }),
      'title',
    );
    expectNulRefused(await call(t, agent, 'PATCH', '/agents/me', { name: 'x\u0000' }), 'name');
    expectNulRefused(
      await call(t, { headers: t.admin }, 'POST', '/admin/agents', { name: '\u0000' }),
      'name',
    );
    // Nothing was created or charged.
    expect((await ok(t, agent, 'GET', '/agents/me')).agent).toEqual(before.agent);
  });

  it('refuses NUL in nested fields, refund reasons, chat messages and profiles', async () => {
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    expectNulRefused(
      await call(t, agent, 'POST', `/chat/${taskId}/messages`, { content: 'hi\u0000' }),
      'content',
    );
    expectNulRefused(
      await call(t, worker, 'PATCH', '/worker/me', { skills: ['ok', 'b\u0000d'] }),
      'skills/1',
    );
    expectNulRefused(await call(t, worker, 'PATCH', '/worker/me', { bio: '\u0000' }), 'bio');
    const open = await createTask(t, agent);
    expectNulRefused(
      await call(t, agent, 'POST', `/tasks/${open.id}/refund`, { reason: 'r\u0000' }),
      'reason',
    );
  });

  it('refuses NUL in path ids and query strings', async () => {
    expectNulRefused(await call(t, { headers: t.admin }, 'GET', '/admin/agents/%00'), 'id');
    expectNulRefused(await call(t, agent, 'GET', '/tasks/tsk_%00'), 'id');
    expectNulRefused(await call(t, agent, 'GET', '/agents/tasks?cursor=%00'), 'cursor');
    expectNulRefused(await call(t, agent, 'GET', '/agents/workers?skills=a%00b'), 'skills');
  });

  it('cleans NUL out of Telegram init data so the worker can sign in', async () => {
    const headers = workerAuth(t, 777_001, 'Ann\u0000a', 'ann\u0000');
    const me = await call(t, { headers }, 'GET', '/worker/me');
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json().worker).toMatchObject({ firstName: 'Anna', telegramUsername: 'ann' });
    // A name made only of NUL becomes the default, as an empty one does.
    const blank = await call(t, { headers: workerAuth(t, 777_002, '\u0000\u0000') }, 'GET', '/worker/me');
    expect(blank.statusCode, blank.body).toBe(200);
    expect(blank.json().worker.firstName).toBe('Worker');
  });

  it('counts text made only of zero-width characters as blank', async () => {
    const res = await call(t, agent, 'POST', '/tasks', {
      title: '\u200b\u200d\ufeff',
      description: 'd',
      reward: '1',
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().details).toEqual([{ path: 'title', message: 'must not be blank' }]);
    const name = await call(t, agent, 'PATCH', '/agents/me', { name: ' \u2060 ' });
    expect(name.statusCode, name.body).toBe(400);
  });

  // A lone surrogate is not Unicode text: UTF-8 cannot encode it, so a database would store U+FFFD
  // in its place, and building a file URL from it threw (a 500 on POST /upload).
  it('refuses lone surrogates in body fields with a 400 that names the field', async () => {
    const expectSurrogateRefused = (
      res: { statusCode: number; json(): unknown; body: string },
      path: string,
    ) => {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({
        error: 'Validation failed',
        details: [{ path, message: expect.stringContaining('surrogate') }],
      });
    };
    expectSurrogateRefused(
      await call(t, agent, 'POST', '/upload', { filename: 'a.tx\ud800t', contentType: 'text/plain' }),
      'filename',
    );
    const before = await ok(t, agent, 'GET', '/agents/me');
    expectSurrogateRefused(
      await call(t, agent, 'POST', '/tasks', { title: 'a\udc00b', description: 'd', reward: '1' }),
      'title',
    );
    expect((await ok(t, agent, 'GET', '/agents/me')).agent).toEqual(before.agent);
    // A surrogate pair is one ordinary character and passes.
    const emoji = await call(t, agent, 'PATCH', '/agents/me', { name: 'Bot \ud83d\ude00' });
    expect(emoji.statusCode, emoji.body).toBe(200);
  });
});

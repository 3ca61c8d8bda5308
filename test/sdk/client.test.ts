import { createdTask, Handoff, HandoffError, type Message, unwrap } from '@handoff/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { assignedTask, createAgent, createTask, createWorker, type TestAgent } from '../helpers/fixtures.js';
import { listen } from '../helpers/mcp.js';

let t: TestApp;
let baseUrl: string;
let agent: TestAgent;

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await listen(t);
  agent = await createAgent(t, { deposit: '100' });
});
afterAll(async () => {
  await t?.close();
});

/** Records what went over the wire; every request still reaches the real server. */
function recordingFetch() {
  const sent: { method: string; url: string; headers: Headers }[] = [];
  const fetchFn = (async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    sent.push({ method: request.method, url: request.url, headers: request.headers });
    return fetch(request);
  }) as typeof fetch;
  return { sent, fetchFn };
}

describe('SDK against a running service', () => {
  it('makes typed calls, with an Idempotency-Key on every POST', async () => {
    const { sent, fetchFn } = recordingFetch();
    const handoff = new Handoff({ baseUrl, apiKey: agent.apiKey, fetch: fetchFn });
    const me = unwrap(await handoff.api.GET('/agents/me'));
    expect(me.agent.id).toBe(agent.id);
    const created = createdTask(
      unwrap(
        await handoff.api.POST('/tasks', {
          body: { title: 'Photo', description: 'Of the bridge', reward: '2' },
        }),
      ),
    );
    expect(created.task.totalAmount).toBe('2.6');
    const post = sent.find((r) => r.method === 'POST')!;
    expect(post.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent.find((r) => r.method === 'GET')!.headers.get('idempotency-key')).toBeNull();
    // An API error carries the API's message.
    const refused = await handoff.api.POST('/tasks', {
      body: { title: 'Big', description: 'x', reward: '1000' },
    });
    expect(() => unwrap(refused)).toThrow(HandoffError);
    expect(() => unwrap(refused)).toThrow(/402: Insufficient balance/);
  });

  it('waits out a 429 for its Retry-After, boundedly', async () => {
    const limited = await createAgent(t, { deposit: '1' });
    for (let i = 0; i < t.config.rateLimitStandard; i++) await ok(t, limited, 'GET', '/agents/me');
    const waits: number[] = [];
    const patient = new Handoff({
      baseUrl,
      apiKey: limited.apiKey,
      // Waiting moves the service's clock, so the rate-limit window really ends.
      retry: {
        sleep: async (ms) => {
          waits.push(ms);
          t.clock.advance(ms);
        },
      },
    });
    const refused = await call(t, limited, 'GET', '/agents/me');
    expect(refused.statusCode).toBe(429);
    const retryAfterS = Number(refused.headers['retry-after']);
    expect(unwrap(await patient.api.GET('/agents/me')).agent.id).toBe(limited.id);
    expect(waits).toEqual([retryAfterS * 1000]);

    for (let i = 0; i < t.config.rateLimitStandard + 1; i++) await call(t, limited, 'GET', '/agents/me');
    const stuck: number[] = [];
    const bounded = new Handoff({
      baseUrl,
      apiKey: limited.apiKey,
      retry: { maxRetries: 2, sleep: async (ms) => void stuck.push(ms) },
    });
    const result = await bounded.api.GET('/agents/me');
    expect(result.response.status).toBe(429);
    expect(stuck).toHaveLength(2);
    const impatient = new Handoff({ baseUrl, apiKey: limited.apiKey, retry: { maxDelayMs: 1000 } });
    expect((await impatient.api.GET('/agents/me')).response.status).toBe(429);
  });

  it('retries a lost connection only when a repeat is safe', async () => {
    let calls = 0;
    const flaky = (async (input: string | URL | Request, init?: RequestInit) => {
      // Fault injection: the first attempt of each request loses its connection.
      if (calls++ % 2 === 0) throw new TypeError('fetch failed');
      return fetch(input, init);
    }) as typeof fetch;
    const noWait = { sleep: async () => {} };
    const handoff = new Handoff({ baseUrl, apiKey: agent.apiKey, fetch: flaky, retry: noWait });
    expect(unwrap(await handoff.api.GET('/agents/me')).agent.id).toBe(agent.id);
    calls = 0;
    const withoutKeys = new Handoff({
      baseUrl,
      apiKey: agent.apiKey,
      fetch: flaky,
      retry: noWait,
      idempotencyKeys: false,
    });
    const before = (await ok(t, agent, 'GET', '/agents/tasks?limit=100')).tasks.length;
    await expect(
      withoutKeys.api.POST('/tasks', { body: { title: 'Once', description: 'x', reward: '1' } }),
    ).rejects.toThrow('fetch failed');
    expect((await ok(t, agent, 'GET', '/agents/tasks?limit=100')).tasks.length).toBe(before);
  });

  it('walks cursor pages as an async iterable', async () => {
    const owner = await createAgent(t, { deposit: '50' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await createTask(t, owner, { reward: '1', title: `Task ${i}` })).id);
    const handoff = new Handoff({ baseUrl, apiKey: owner.apiKey });
    const seen: string[] = [];
    for await (const task of handoff.tasks({ limit: 2 })) seen.push(task.id);
    expect(seen).toEqual([...ids].reverse());
    const kinds: string[] = [];
    for await (const txn of handoff.transactions({ limit: 3 })) kinds.push(txn.type);
    expect(kinds.filter((k) => k === 'TASK_ESCROW')).toHaveLength(5);
    expect(kinds.at(-1)).toBe('DEPOSIT');
  });

  it('streams a chat over SSE and resumes with Last-Event-ID after a dropped connection', async () => {
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    const post = (content: string) =>
      ok(t, worker, 'POST', `/worker/chat/${taskId}/messages`, { content }, 201);
    const first = (await post('before the stream')).message as Message;

    // Fault injection: the first stream is cut after its first message.
    const lastEventIds: (string | null)[] = [];
    let streams = 0;
    const cutting = (async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      lastEventIds.push(request.headers.get('last-event-id'));
      const response = await fetch(request);
      if (streams++ > 0 || !response.body) return response;
      const reader = response.body.getReader();
      const { value } = await reader.read();
      let sent = false;
      const cut = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (!sent) {
            sent = true;
            controller.enqueue(value!);
            return;
          }
          const next = await reader.read();
          if (next.done || new TextDecoder().decode(next.value).includes('event: message')) {
            controller.enqueue(next.value!);
            await reader.cancel();
            controller.close();
            return;
          }
          controller.enqueue(next.value);
        },
      });
      return new Response(cut, { status: response.status, headers: response.headers });
    }) as typeof fetch;

    const handoff = new Handoff({ baseUrl, apiKey: agent.apiKey, fetch: cutting });
    const stop = new AbortController();
    const received: string[] = [];
    const stream = handoff.streamChat(taskId, {
      lastEventId: first.id,
      signal: stop.signal,
      sleep: async () => {},
    });
    const iterator = stream[Symbol.asyncIterator]();
    await post('one');
    received.push((await iterator.next()).value.content);
    await post('two');
    await post('three');
    received.push((await iterator.next()).value.content);
    received.push((await iterator.next()).value.content);
    stop.abort();
    expect((await iterator.next()).done).toBe(true);
    expect(received).toEqual(['one', 'two', 'three']);
    expect(lastEventIds[0]).toBe(first.id);
    expect(lastEventIds.length).toBeGreaterThanOrEqual(2);
    expect(lastEventIds.slice(1).every((id) => id !== null && id !== first.id)).toBe(true);
  });

  it('throws the API error when the stream is refused', async () => {
    const other = await createAgent(t, { deposit: '5' });
    const theirs = await createTask(t, other, { reward: '1' });
    const handoff = new Handoff({ baseUrl, apiKey: agent.apiKey });
    const iterator = handoff.streamChat(theirs.id)[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toMatchObject({ status: 403 });
  });
});

import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validTraceparent } from '../../src/domain/events/traceContext.js';
import { FailureLog } from '../../src/jobs.js';
import { dispatchDueDeliveries } from '../../src/outbox/webhookDeliveries.js';
import { createTestApp, DIALECT, type TestApp } from '../helpers/app.js';
import { createAgent, createWorker } from '../helpers/fixtures.js';
import { Receiver } from '../helpers/receiver.js';

/**
 * What an operator follows: every log line names its instance, background attempts are logged
 * with their outcome, and a caller's W3C traceparent reaches the webhooks its request caused.
 */
function collector() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { lines, stream };
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

describe(`logs and traces on ${DIALECT}`, () => {
  const log = collector();
  let t: TestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await Receiver.start();
    t = await createTestApp({
      logger: { level: 'info', stream: log.stream },
      config: { instanceId: 'blue-7' },
    });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('names the instance in every line', async () => {
    await t.app.inject({ url: '/health' });
    await t.app.inject({ url: '/agents/me' });
    expect(log.lines.length).toBeGreaterThan(1);
    for (const line of log.lines) expect(line).toMatchObject({ instance: 'blue-7', pid: process.pid });
  });

  it("passes the caller's traceparent on to the webhooks its request caused, and logs each attempt", async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const patched = await t.app.inject({
      method: 'PATCH',
      url: '/agents/webhooks',
      headers: agent.headers,
      payload: { url: receiver.url },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    const before = log.lines.length;
    const traced = await t.app.inject({
      method: 'POST',
      url: '/tasks',
      headers: { ...agent.headers, traceparent: TRACEPARENT },
      payload: { title: 'Traced', description: 'Carries a trace', reward: '1' },
    });
    expect(traced.statusCode, traced.body).toBe(201);
    // The request's own line carries the trace id.
    expect(log.lines.slice(before).find((l) => l.msg === 'request')).toMatchObject({ traceId: TRACE_ID });
    // A malformed one is ignored: the request goes on untraced.
    const untraced = await t.app.inject({
      method: 'DELETE',
      url: `/tasks/${traced.json().task.id}`,
      headers: { ...agent.headers, traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` },
    });
    expect(untraced.statusCode, untraced.body).toBe(200);

    receiver.failNext(1, 503);
    await dispatchDueDeliveries(t.ctx, t.ctx.webhooks);
    t.clock.advance(60_000);
    await dispatchDueDeliveries(t.ctx, t.ctx.webhooks);
    const funded = receiver.requestsOf('task.funded');
    const refunded = receiver.requestsOf('refund.processed');
    expect(funded.length).toBeGreaterThanOrEqual(2); // the failed attempt and the retry
    for (const request of funded) expect(request.headers.traceparent).toBe(TRACEPARENT);
    expect(refunded.length).toBeGreaterThanOrEqual(1);
    for (const request of refunded) expect(request.headers.traceparent).toBeUndefined();
    // The body is the event as always: the trace travels in the header only.
    const body = JSON.parse(funded[0]!.rawBody.toString('utf8'));
    expect(JSON.stringify(body)).not.toContain(TRACE_ID);

    const attempts = log.lines.slice(before).filter((l) => l.background === 'webhook delivery');
    const failed = attempts.find((l) => l.level === 40);
    expect(failed).toMatchObject({ instance: 'blue-7', attempt: 1, error: 'the receiver answered HTTP 503' });
    expect(failed!.msg).toMatch(/failed \(attempt 1\); retrying in 10 s/);
    expect(attempts.filter((l) => l.level === 30 && /done/.test(String(l.msg))).length).toBe(
      funded.length + refunded.length - 1,
    );
  });

  it("sends only a clean version-00 traceparent, and never one party's trace to another party's webhook", async () => {
    const receiver2 = await Receiver.start();
    try {
      const agent = await createAgent(t, { deposit: '100' });
      const patched = await t.app.inject({
        method: 'PATCH',
        url: '/agents/webhooks',
        headers: agent.headers,
        payload: { url: receiver2.url },
      });
      expect(patched.statusCode, patched.body).toBe(200);
      // Version 01 may append fields: a caller could put ~220 characters of its own there.
      const tail = `-${'x'.repeat(200)}`;
      const created = await t.app.inject({
        method: 'POST',
        url: '/tasks',
        headers: { ...agent.headers, traceparent: `01-${TRACE_ID}-00f067aa0ba902b7-01${tail}` },
        payload: { title: 'Traced', description: 'Carries a future-version trace', reward: '1' },
      });
      expect(created.statusCode, created.body).toBe(201);
      // A worker's request causes an event for the agent: the worker's trace stays out of it.
      const workerTrace = 'a'.repeat(32);
      const worker = await createWorker(t);
      const applied = await t.app.inject({
        method: 'POST',
        url: `/worker/tasks/${created.json().task.id}/applications`,
        headers: { ...worker.headers, traceparent: `00-${workerTrace}-00f067aa0ba902b7-01` },
        payload: { message: 'Me' },
      });
      expect(applied.statusCode, applied.body).toBe(201);
      await dispatchDueDeliveries(t.ctx, t.ctx.webhooks);

      const funded = receiver2.requestsOf('task.funded');
      expect(funded.length).toBeGreaterThanOrEqual(1);
      for (const request of funded) expect(request.headers.traceparent).toBe(TRACEPARENT);
      const received = receiver2.requestsOf('application.received');
      expect(received.length).toBeGreaterThanOrEqual(1);
      for (const request of received) {
        expect(request.headers.traceparent).toBeUndefined();
        expect(JSON.stringify(request.headers)).not.toContain(workerTrace);
      }
      for (const request of receiver2.requests) {
        expect(JSON.stringify(request.headers)).not.toContain('xxxx');
        expect(request.headers.tracestate).toBeUndefined();
      }
    } finally {
      await receiver2.close();
    }
  });

  it('validates traceparent as W3C Trace Context says', () => {
    expect(validTraceparent(TRACEPARENT)).toBe(TRACEPARENT);
    // A later version is understood as its first four fields, re-emitted as version 00.
    expect(validTraceparent(`01-${TRACE_ID}-00f067aa0ba902b7-01-future`)).toBe(TRACEPARENT);
    for (const bad of [
      undefined,
      '',
      `00-${TRACE_ID}-00f067aa0ba902b7-01-extra`, // version 00 has exactly four fields
      `ff-${TRACE_ID}-00f067aa0ba902b7-01`,
      `00-${TRACE_ID.toUpperCase()}-00f067aa0ba902b7-01`,
      `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
      `00-${TRACE_ID}-00f067aa0ba902b7`,
      `00-${TRACE_ID}-00f067aa0ba902b7-01${'x'.repeat(300)}`,
      ['a', 'b'],
    ]) {
      expect(validTraceparent(bad), String(bad)).toBeNull();
    }
  });

  it('logs a failing loop once, then at most once a minute, then its recovery', () => {
    const lines: { level: string; msg: string }[] = [];
    const logger = {
      warn: (_: unknown, msg: string) => lines.push({ level: 'warn', msg }),
      info: (_: unknown, msg: string) => lines.push({ level: 'info', msg }),
    };
    let now = 0;
    const failures = new FailureLog('webhook delivery', logger as never, () => now);
    for (let i = 0; i < 240; i++) {
      failures.failed(new Error('connect ECONNREFUSED'));
      now += 250; // the webhook loop's poll: a minute of failures
    }
    failures.failed(new Error('connect ECONNREFUSED'));
    failures.succeeded();
    failures.succeeded();
    expect(lines).toEqual([
      { level: 'warn', msg: 'webhook delivery failed' },
      { level: 'warn', msg: 'webhook delivery failed (239 more failures since the last line)' },
      { level: 'info', msg: 'webhook delivery works again after 241 failed rounds' },
    ]);
  });
});

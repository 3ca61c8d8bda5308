import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dispatchDueDeliveries } from '../../src/outbox/webhookDeliveries.js';
import { createTestApp, DIALECT, type TestApp } from '../helpers/app.js';
import { assignedTask, createAgent, createTask, createWorker } from '../helpers/fixtures.js';
import { Receiver } from '../helpers/receiver.js';
import { SseClient } from '../helpers/sse.js';

/**
 * GET /metrics as Prometheus scrapes it: who may read it, and values that move with traffic
 * (request durations by route pattern, refused requests, open streams, background work waiting
 * in the database, webhook outcomes).
 */
const METRICS_TOKEN = randomBytes(24).toString('hex');
let t: TestApp;
let base: string;
let receiver: Receiver;
const streams: SseClient[] = [];

beforeAll(async () => {
  receiver = await Receiver.start();
  t = await createTestApp({ config: { metricsToken: METRICS_TOKEN, rateLimitStandard: 5 } });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterEach(async () => {
  await Promise.all(streams.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

async function scrape(): Promise<string> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: t.admin });
  expect(res.statusCode, res.body).toBe(200);
  return res.body;
}

/** The value of one series (name with its labels exactly as printed), or undefined. */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe(`GET /metrics on ${DIALECT}`, () => {
  it('answers the metrics token and the admin token, 401 JSON to anyone else', async () => {
    for (const authorization of [`Bearer ${METRICS_TOKEN}`, t.admin.authorization]) {
      const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(res.body).toContain('# TYPE http_request_duration_seconds histogram');
      expect(res.body).toContain('process_cpu_user_seconds_total');
      expect(res.body).toContain('nodejs_eventloop_lag_seconds');
    }
    const refused = [
      {},
      { authorization: 'Bearer wrong-token-of-some-length-000000000000' },
      { authorization: `Basic ${METRICS_TOKEN}` },
    ];
    for (const headers of refused) {
      const res = await t.app.inject({ method: 'GET', url: '/metrics', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({
        error: 'Unauthorized',
        message: expect.stringMatching(/METRICS_TOKEN/),
      });
    }
  });

  it('times requests by route pattern, never by the raw URL', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const task = await createTask(t, agent);
    const before = await scrape();
    const series = 'http_request_duration_seconds_count{method="GET",route="/tasks/:id",status_code="200"}';
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({ method: 'GET', url: `/tasks/${task.id}`, headers: agent.headers });
      expect(res.statusCode).toBe(200);
    }
    await t.app.inject({ method: 'GET', url: `/no/such/path/${task.id}` });
    const after = await scrape();
    expect(value(after, series)).toBe((value(before, series) ?? 0) + 3);
    expect(after).toContain('route="unmatched",status_code="404"');
    expect(after).not.toContain(task.id);
  });

  it('counts requests refused by a rate limit, by bucket', async () => {
    const agent = await createAgent(t);
    const series = 'handoff_rate_limited_total{bucket="standard"}';
    const before = value(await scrape(), series) ?? 0;
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push(
        (await t.app.inject({ method: 'GET', url: '/agents/me', headers: agent.headers })).statusCode,
      );
    }
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
    expect(value(await scrape(), series)).toBe(before + 2);
  });

  it('shows open chat streams by side while they are open', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    expect(value(await scrape(), 'handoff_sse_streams{side="agent"}')).toBe(0);
    const agentStream = await SseClient.open(`${base}/chat/${taskId}/stream`, { headers: agent.headers });
    const workerStream = await SseClient.open(`${base}/worker/chat/${taskId}/stream`, {
      headers: worker.headers,
    });
    streams.push(agentStream, workerStream);
    expect([agentStream.status, workerStream.status]).toEqual([200, 200]);
    const text = await scrape();
    expect(value(text, 'handoff_sse_streams{side="agent"}')).toBe(1);
    expect(value(text, 'handoff_sse_streams{side="worker"}')).toBe(1);
    await agentStream.close();
    // The server sees the close a moment later.
    let open = 1;
    for (let i = 0; i < 100 && open !== 0; i++) {
      open = value(await scrape(), 'handoff_sse_streams{side="agent"}') ?? -1;
      if (open !== 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(open).toBe(0);
    expect(value(await scrape(), 'handoff_sse_streams{side="worker"}')).toBe(1);
  });

  it('reads waiting background work from the database, and counts webhook outcomes', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    await t.app.inject({
      method: 'PATCH',
      url: '/agents/webhooks',
      headers: agent.headers,
      payload: { url: receiver.url },
    });
    const pendingSeries = 'handoff_outbox_pending{kind="webhook_delivery"}';
    const dueSeries = 'handoff_outbox_oldest_due_seconds{kind="webhook_delivery"}';
    const before = await scrape();
    expect(value(before, pendingSeries)).toBe(0);
    expect(value(before, dueSeries)).toBe(0);
    await createTask(t, agent); // its task.funded (at least) is a delivery to make
    t.clock.advance(90_000);
    const waiting = await scrape();
    const pending = value(waiting, pendingSeries)!;
    expect(pending).toBeGreaterThan(0);
    expect(value(waiting, dueSeries)).toBe(90);
    expect(value(waiting, 'handoff_payouts_pending')).toBe(0);
    expect(value(waiting, 'handoff_chain_watcher_lag_seconds')).toBe(0);
    expect(value(waiting, 'handoff_chain_hot_wallet_balance_nanoton')).toBeGreaterThan(0);

    receiver.failNext(pending, 500);
    const deliveredSeries = 'handoff_webhook_deliveries_total{outcome="delivered"}';
    const retrySeries = 'handoff_webhook_deliveries_total{outcome="retry"}';
    await dispatchDueDeliveries(t.ctx, t.ctx.webhooks);
    const failed = await scrape();
    expect(value(failed, retrySeries)).toBe(pending);
    expect(value(failed, pendingSeries)).toBe(pending);
    expect(value(failed, dueSeries)).toBe(0); // waiting for the retry, not due
    t.clock.advance(60_000);
    await dispatchDueDeliveries(t.ctx, t.ctx.webhooks);
    const delivered = await scrape();
    expect(value(delivered, deliveredSeries)).toBe(pending);
    expect(value(delivered, pendingSeries)).toBe(0);
  });
});

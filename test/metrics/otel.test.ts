import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchDueDeliveries } from '../../src/outbox/webhookDeliveries.js';
import { createTestApp, DIALECT, type TestApp } from '../helpers/app.js';
import { createAgent } from '../helpers/fixtures.js';
import { Receiver } from '../helpers/receiver.js';

/**
 * OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set: request spans go over OTLP/HTTP to a
 * local receiver (a plain HTTP server taking POST /v1/traces), in the caller's trace; without
 * it, nothing of OpenTelemetry is registered.
 */
interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

/** A minimal OTLP/HTTP trace receiver: keeps every span of every JSON export it is sent. */
async function otlpReceiver() {
  const spans: ExportedSpan[] = [];
  const posts: { path: string; contentType: string | undefined }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts.push({ path: req.url ?? '', contentType: req.headers['content-type'] });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? [])
        for (const ss of rs.scopeSpans ?? []) for (const span of ss.spans ?? []) spans.push(span);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    posts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_ID = 'b7ad6b7169203331';

describe(`OpenTelemetry on ${DIALECT}`, () => {
  let collector: Awaited<ReturnType<typeof otlpReceiver>>;
  let webhooks: Receiver;
  let t: TestApp;
  let closed = false;
  beforeAll(async () => {
    collector = await otlpReceiver();
    webhooks = await Receiver.start();
    t = await createTestApp({ config: { otel: { endpoint: collector.url, serviceName: 'handoff-test' } } });
  });
  afterAll(async () => {
    if (!closed) await t.close();
    await webhooks.close();
    await collector.close();
  });

  it("exports a span for a request in the caller's trace, and its webhooks carry that span", async () => {
    const agent = await createAgent(t, { deposit: '100' });
    await t.app.inject({
      method: 'PATCH',
      url: '/agents/webhooks',
      headers: agent.headers,
      payload: { url: webhooks.url },
    });
    const created = await t.app.inject({
      method: 'POST',
      url: '/tasks',
      headers: { ...agent.headers, traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
      payload: { title: 'Traced', description: 'Through OpenTelemetry', reward: '1' },
    });
    expect(created.statusCode, created.body).toBe(201);
    await t.app.inject({ url: '/health' }); // polled by load balancers: not traced
    await dispatchDueDeliveries(t.ctx, t.ctx.webhooks);
    await t.close(); // flushes the spans still buffered
    closed = true;

    expect(collector.posts.length).toBeGreaterThan(0);
    for (const post of collector.posts)
      expect(post).toEqual({ path: '/v1/traces', contentType: 'application/json' });
    const inTrace = collector.spans.filter((s) => s.traceId === TRACE_ID);
    const request = inTrace.find((s) => s.name === 'request' && s.parentSpanId === PARENT_ID);
    expect(request, JSON.stringify(collector.spans.map((s) => s.name))).toBeDefined();
    const route = request!.attributes.find((a) => a.key === 'http.route');
    expect(route?.value).toEqual({ stringValue: '/tasks' });
    expect(collector.spans.some((s) => s.attributes.some((a) => a.value.stringValue === '/health'))).toBe(
      false,
    );

    const funded = webhooks.requestsOf('task.funded');
    expect(funded.length).toBeGreaterThan(0);
    expect(funded[0]!.headers.traceparent).toBe(`00-${TRACE_ID}-${request!.spanId}-01`);
  });
});

describe(`without OTEL_EXPORTER_OTLP_ENDPOINT on ${DIALECT}`, () => {
  it('registers nothing of OpenTelemetry', async () => {
    const t = await createTestApp();
    try {
      expect(t.app.hasRequestDecorator('opentelemetry')).toBe(false);
      const res = await t.app.inject({
        url: '/health',
        headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
      });
      expect(res.statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});

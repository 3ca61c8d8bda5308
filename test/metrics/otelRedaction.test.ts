import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, DIALECT, type TestApp } from '../helpers/app.js';
import { createAgent } from '../helpers/fixtures.js';

/**
 * Issue 35, finding 9: spans carried url.path with a signed upload URL's signature and a stored
 * file's path (both credentials; the access log redacts them), and hook spans were named after
 * whole plugin sources (thousands of characters). The real OpenTelemetry SDK with an in-memory
 * exporter reads what would be exported.
 */
describe(`OpenTelemetry spans without credentials or bulk on ${DIALECT}`, () => {
  const exporter = new InMemorySpanExporter();
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      config: { otel: { endpoint: 'http://127.0.0.1:9', serviceName: 'handoff-test' } },
      spanExporter: exporter,
    });
  });
  afterAll(() => t.close());

  it('after an upload and a download, no span holds the signature or the file path, and names are short', async () => {
    const agent = await createAgent(t);
    const signed = await t.app.inject({
      method: 'POST',
      url: '/upload',
      headers: agent.headers,
      payload: { filename: 'report.txt', contentType: 'text/plain' },
    });
    expect(signed.statusCode, signed.body).toBe(200);
    const uploadUrl = new URL(signed.json().uploadUrl);
    const signature = uploadUrl.searchParams.get('signature')!;
    expect(signature.length).toBeGreaterThan(10);

    const put = await t.app.inject({
      method: 'PUT',
      url: uploadUrl.pathname + uploadUrl.search,
      headers: { 'content-type': 'text/plain' },
      payload: Buffer.from('the report'),
    });
    expect(put.statusCode, put.body).toBe(200);
    const filePath = new URL(put.json().fileUrl).pathname;
    // The file's id: the part of its path that grants the download.
    const fileId = filePath.split('/')[2]!;
    expect(fileId.length).toBeGreaterThan(10);
    const got = await t.app.inject({ method: 'GET', url: filePath });
    expect(got.statusCode).toBe(200);
    expect(got.body).toBe('the report');

    const spans = exporter.getFinishedSpans();
    const requests = spans.filter((s) => s.name === 'request');
    expect(requests.length).toBeGreaterThanOrEqual(3);
    const paths = requests.map((s) => s.attributes['url.path']);
    expect(paths).toContain(
      `/uploads/[redacted]?expires=${uploadUrl.searchParams.get('expires')}&signature=[redacted]`,
    );
    expect(paths).toContain('/files/[redacted]');
    for (const span of spans) {
      const text = JSON.stringify(span.attributes);
      expect(text, span.name).not.toContain(signature);
      expect(text, span.name).not.toContain(fileId);
      expect(span.name.length, span.name.slice(0, 200)).toBeLessThanOrEqual(100);
      for (const value of Object.values(span.attributes))
        if (typeof value === 'string') expect(value.length, span.name).toBeLessThanOrEqual(200);
    }
  });
});

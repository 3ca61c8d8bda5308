import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics/metrics.js';
import type { ScrapeReadings } from '../metrics/scrape.js';
import { anyTokenAuth } from './auth.js';
import type { AuthFailureThrottle } from './authThrottle.js';

/**
 * `GET /metrics`, Prometheus text format, for `Authorization: Bearer <METRICS_TOKEN>` or the
 * admin token (401 otherwise). Left out of the OpenAPI document: it is for a monitoring system,
 * not for agents. The database and chain gauges are read as it is scraped.
 */
export function registerMetricsRoute(
  app: FastifyInstance,
  metrics: Metrics,
  readings: ScrapeReadings,
  tokens: string[],
  throttle: AuthFailureThrottle,
): void {
  const hint = 'Send METRICS_TOKEN (or the ADMIN_TOKEN) as: Authorization: Bearer <token>';
  app.get(
    '/metrics',
    { schema: { hide: true }, onRequest: anyTokenAuth(tokens, hint, throttle) },
    async (_request, reply) => {
      await readings.refresh();
      const text = await metrics.text();
      return reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(text);
    },
  );
}

declare module 'fastify' {
  interface FastifyRequest {
    /** performance.now() when the request's headers were read (request timing). */
    receivedAtMs: number;
  }
}

/**
 * Times each request into http_request_duration_seconds, labelled by the route's pattern
 * (`/tasks/:id`): from its first hook to its answer's onSend (the body is then serialized, only
 * the write is left; a hijacked stream is not timed). Two callback hooks in hook lists that have
 * other hooks already, rather than an onResponse hook: the app has none, and a first one makes
 * Fastify listen for every response's end (docs/decisions/metrics-logs-traces.md).
 */
export function registerRequestTiming(app: FastifyInstance, metrics: Metrics): void {
  app.decorateRequest('receivedAtMs', 0);
  app.addHook('onRequest', (request, _reply, done) => {
    request.receivedAtMs = performance.now();
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const elapsedMs = performance.now() - request.receivedAtMs;
    metrics.observeRequest(request.method, request.routeOptions.url, reply.statusCode, elapsedMs);
    done(null, payload);
  });
}

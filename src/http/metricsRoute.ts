import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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

/**
 * Times an answered request into http_request_duration_seconds, labelled by the route's pattern
 * (`/tasks/:id`); called by the access log's controller once the answer is sent (accessLog.ts).
 */
export function requestTiming(metrics: Metrics) {
  return (request: FastifyRequest, reply: FastifyReply) =>
    metrics.observeRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime);
}

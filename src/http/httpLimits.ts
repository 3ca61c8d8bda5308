import type { FastifyInstance } from 'fastify';
import type { HttpLimits } from '../config.js';
import { BodyDeadlines } from './bodyDeadline.js';
import { ConnectionCap } from './connectionCap.js';

/**
 * What one client can make the server hold: headers within `headersTimeoutMs` (Node's own
 * timer), each body within its deadline (bodyDeadline.ts), and at most `maxConnectionsPerClient`
 * connections per address (connectionCap.ts). Fastify's own `requestTimeout` is set by app.ts
 * as a backstop past the longest deadline.
 */
export function registerHttpLimits(
  app: FastifyInstance,
  limits: HttpLimits,
  trustProxy: boolean | string[],
): void {
  app.server.headersTimeout = limits.headersTimeoutMs;
  const deadlines = new BodyDeadlines(limits.bodyTimeoutMs, limits.uploadTimeoutMs);
  const cap = new ConnectionCap(limits.maxConnectionsPerClient, trustProxy);
  app.server.on('connection', (socket) => cap.connected(socket));
  app.addHook('onClose', async () => deadlines.stop());
  // Multipart routes take files.
  app.addHook('onRoute', (route) => {
    const consumes = (route.schema as { consumes?: string[] } | undefined)?.consumes;
    if (consumes?.includes('multipart/form-data')) route.config = { ...route.config, fileBody: true };
  });
  // A callback hook: it runs on every request and never waits.
  app.addHook('onRequest', (request, reply, done) => {
    if (!cap.admit(request, reply)) return;
    deadlines.track(request, reply);
    done();
  });
}

/** Fastify's `requestTimeout` (headers and body of one request): past every deadline of ours. */
export function requestTimeoutBackstopMs(limits: HttpLimits): number {
  return limits.headersTimeoutMs + Math.max(limits.bodyTimeoutMs, limits.uploadTimeoutMs) + 1000;
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DomainContext } from '../domain/context.js';
import { traceIdOf, validTraceparent, withTrace } from '../domain/events/traceContext.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The W3C `traceparent` this request runs under (the caller's, or its span's), or null. */
    traceparent: string | null;
  }
}

/**
 * Keeps an incoming W3C `traceparent` (a malformed one is ignored, as the spec says: the request
 * starts a trace of its own) as the request's trace: its log lines carry `traceId`, and routes
 * that record events run their effect with `tracedContext`, so the webhooks carry it on. With
 * OpenTelemetry on, `spanTraceparent` gives the request span's own (the same trace, the span as
 * parent). One callback hook that reads one header.
 */
export function registerTraceContext(
  app: FastifyInstance,
  spanTraceparent?: (request: FastifyRequest) => string | null,
): void {
  app.decorateRequest('traceparent', null);
  app.addHook('onRequest', (request, reply, done) => {
    const traceparent = spanTraceparent?.(request) ?? validTraceparent(request.headers.traceparent);
    if (traceparent) {
      request.traceparent = traceparent;
      // The reply's logger too: the access log line is written through it.
      reply.log = request.log = request.log.child({ traceId: traceIdOf(traceparent) });
    }
    done();
  });
}

/** The domain context a traced request's effect runs with (the shared one when untraced). */
export function tracedContext(request: FastifyRequest, ctx: DomainContext): DomainContext {
  if (!request.traceparent) return ctx;
  // request.agentId is '' on worker and operator routes: their traces stay out of agents' webhooks.
  return { ...ctx, db: withTrace(ctx.db, request.traceparent, request.agentId || null) };
}

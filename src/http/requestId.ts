import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { randomHex } from '../domain/randomHex.js';

/** A caller's X-Request-Id is kept when it is this: short, printable, safe in logs and headers. */
const WELL_FORMED = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The request id: the caller's X-Request-Id when well-formed, else a fresh `req_` + 16 hex. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  if (typeof given === 'string' && WELL_FORMED.test(given)) return given;
  return `req_${randomHex(8)}`;
}

/**
 * Every response carries X-Request-Id (Fastify logs it as reqId). It is set on the raw response
 * first thing, so errors from auth hooks, 404s and hijacked streams (SSE) carry it too.
 */
export function registerRequestId(app: FastifyInstance): void {
  // A callback hook, not an async one: it runs on every request and has nothing to wait for.
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.setHeader('x-request-id', request.id);
    done();
  });
}

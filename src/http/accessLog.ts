import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { redactUrl } from './redactUrl.js';

/**
 * Fastify's request logging with one line a request instead of two: nothing when a request
 * comes in, and when it is answered one `request` line with its method, URL (without the
 * credentials some URLs carry: redactUrl), status, the client's address (as TRUST_PROXY
 * resolves it) and the time it took, with its `reqId` as every line of the request has. A failed response is logged
 * at error level, with its error, as Fastify does; Fastify's other lines (its error handler's,
 * not found, stream errors) stay.
 *
 * Why: Fastify's two lines ("incoming request", which serialises the request, then "request
 * completed") cost more than the request path around them. On the benchmark's 2-core VM, at
 * LOG_LEVEL=info writing to a file (bench/profile.ts, server CPU a request): GET /tasks/:id 36
 * us with no logging, 48-50 with Fastify's lines, 39-41 with this one; POST /tasks 108-115,
 * 131, 115-128.
 */
export class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      url: redactUrl(request.url),
      statusCode: reply.statusCode,
      ip: request.ip,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request');
  }
}

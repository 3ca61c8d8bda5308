import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import type { FastifyInstance, FastifyRequest, preParsingHookHandler } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route reads a body that has no JSON schema (MCP's JSON-RPC, a signed upload's bytes,
     * Telegram's updates); without it a route with no body schema never reads its body.
     */
    takesBody?: boolean;
  }
}

/** A readable with the length Fastify compares with Content-Length (see its preParsing docs). */
type Replacement = PassThrough & { receivedEncodedLength?: number };

/**
 * Routes that take no body (POST /console/api/auth/challenge, DELETE /tasks/:id,
 * POST /tasks/:id/complete...) never parse one: what a client sends there is read and dropped as
 * it arrives, without being kept, and the route sees no body. Parsing it anyway let 1 MiB of
 * nested arrays cost 0.4 s of CPU per request on the unauthenticated challenge route. Reading
 * (not ignoring) the bytes keeps the connection usable for the client's next request; the body
 * limit and the body deadline still apply. Set on each such route when it is added, so routes
 * with a body (POST /tasks) run no extra hook.
 */
export function registerBodylessRoutes(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.schema?.body || route.config?.takesBody) return;
    const methods = [route.method].flat();
    // Fastify reads no body on these.
    if (methods.every((method) => method === 'GET' || method === 'HEAD')) return;
    const existing = route.preParsing ?? [];
    route.preParsing = [...(Array.isArray(existing) ? existing : [existing]), discardBody];
  });
}

const discardBody: preParsingHookHandler = (request, _reply, payload, done) => {
  done(null, dropped(request, payload as IncomingMessage));
};

/** An empty stream that ends when `payload` has been read to its end, its bytes dropped. */
function dropped(request: FastifyRequest, payload: IncomingMessage): Replacement {
  const empty: Replacement = new PassThrough();
  // Fastify may answer before it reads this stream (a declared length past the limit is a 413
  // at once): a failure then has nobody else to hear it.
  empty.on('error', () => {});
  const limit = request.routeOptions.bodyLimit ?? Number.POSITIVE_INFINITY;
  if (Number(request.headers['content-length']) > limit) return empty;
  let received = 0;
  const stop = (error: Error) => {
    payload.off('data', onData);
    empty.destroy(error);
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limit) stop(tooLarge());
  };
  payload.on('data', onData);
  payload.once('end', () => {
    empty.receivedEncodedLength = received;
    empty.end();
  });
  payload.once('error', stop);
  // A client that goes away mid-body: end the parse instead of leaving it waiting.
  payload.once('close', () => {
    if (!payload.complete) stop(new Error('The client closed the connection before its body ended'));
  });
  return empty;
}

function tooLarge(): Error {
  return Object.assign(new Error('Request body is too large'), {
    code: 'FST_ERR_CTP_BODY_TOO_LARGE',
    statusCode: 413,
  });
}

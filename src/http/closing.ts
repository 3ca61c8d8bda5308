import type { FastifyInstance } from 'fastify';

/**
 * Graceful close that actually ends. `app.close()` waits for every open connection, but a
 * keep-alive connection whose request was in flight when the close began goes idle only after
 * it is answered, after Fastify closed the idle ones, and would then hold the close open until
 * the keep-alive timeout (72 s). So while closing, every answer says `Connection: close` (the
 * socket ends once it is written) and connections that went idle anyway are closed as they
 * appear. Under load on PostgreSQL this was the difference between a clean exit and the forced one.
 */
export function registerCloseOnShutdown(app: FastifyInstance): void {
  let closing = false;
  let sweeper: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    closing = true;
    sweeper = setInterval(() => app.server.closeIdleConnections(), 50);
    sweeper.unref();
  });
  // A callback hook: it runs on every answer and only ever waits for nothing.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onClose', async () => clearInterval(sweeper));
}

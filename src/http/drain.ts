import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** How much of a refused body is read and dropped before the answer: above the 20 MiB upload limit. */
export const DRAIN_MAX_BYTES = 32 * 1024 * 1024;
/** How long the reading may take; a client slower than this gets the answer and a closed socket. */
export const DRAIN_MAX_MS = 15_000;

/**
 * An answer given before the request body was read (401 from the auth hook, 413 over the body
 * limit, a refused upload) goes out with `Connection: close`, after the rest of the body was read
 * and dropped, up to DRAIN_MAX_BYTES and DRAIN_MAX_MS. Closing at once made clients that write
 * their whole body before reading (most simple ones) fail with EPIPE or ECONNRESET instead of
 * reading the status; reading without bound would let one request tie a connection up forever.
 * This is the "lingering close" of mature servers. A body declared larger than the bound is
 * answered at once, as it would not be read to its end anyway.
 */
export function registerBodyDrain(app: FastifyInstance): void {
  // A callback hook: nearly every answer comes after its body was read, and then it must cost
  // no promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    // `readableEnded` too: a request injected in-process (tests, light-my-request) never sets
    // `complete`, though its body was read to the end.
    const raw = request.raw;
    if (raw.complete || raw.readableEnded || raw.destroyed) return done(null, payload);
    reply.header('connection', 'close');
    // A declared length past the bound would not be read to its end anyway: answer at once.
    if (Number(request.headers['content-length']) > DRAIN_MAX_BYTES) return done(null, payload);
    void drain(raw).then(() => done(null, payload));
  });
}

function drain(raw: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      raw.off('data', onData).off('end', done).off('close', done).off('error', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_MAX_BYTES) done();
    };
    const timer = setTimeout(done, DRAIN_MAX_MS);
    raw.on('data', onData).once('end', done).once('close', done).once('error', done);
    raw.resume();
  });
}

import type { FastifyBaseLogger } from 'fastify';
import type { DomainContext } from './domain/context.js';
import { sendDueTransfers } from './domain/payouts.js';

const TRANSFER_POLL_MS = 5_000;

/**
 * Background work driven by database rows, so any instance can do it and a crash loses nothing:
 * pending chain transfers (payouts and fees whose first send failed or was interrupted).
 */
export function startBackgroundJobs(ctx: DomainContext, log: FastifyBaseLogger) {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running
      .then(() => sendDueTransfers(ctx))
      .catch((error) => log.error({ err: error }, 'sending pending transfers failed'));
  }, TRANSFER_POLL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

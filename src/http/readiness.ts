import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import { pingDatabase } from '../db/repositories/liveness.js';
import type { Database } from '../db/schema.js';
import type { RedisLink } from '../redis/link.js';
import { ErrorBody } from './schemas/common.js';

/** A database that has not answered `select 1` within this is not ready (a hung pool, a lost host). */
export const READY_DATABASE_TIMEOUT_MS = 2_000;

export interface Readiness {
  /** Set on SIGTERM: /ready answers 503 from then on, while requests are still served. */
  draining: boolean;
}

const DRAINING = 'Shutting down: this instance takes no new work; send requests to another instance';

/**
 * `GET /ready`, for load balancers and orchestrators: 200 while the database answers, 503 once
 * shutdown began (so the balancer stops routing here during SHUTDOWN_DELAY_MS, while the
 * instance still answers what reaches it) or when the database does not answer. `/health` stays
 * liveness only: a restart does not fix a database that is down.
 *
 * Redis (when REDIS_URL is set) is reported, not required: `{"status":"ready","redis":"down"}`
 * while it does not answer. The instance keeps serving (limits count per instance, chat catches
 * up from the database), and a balancer that took every instance out on a Redis outage would
 * turn a degradation into a full stop. The outage is logged once by the link (this probe tells
 * it, so a Redis that hangs without dropping the connection is noticed) and shown by the
 * handoff_redis_up gauge.
 */
export function registerReadiness(
  app: FastifyInstance,
  db: Kysely<Database>,
  redis: RedisLink | null = null,
): Readiness {
  const readiness: Readiness = { draining: false };
  app.get(
    '/ready',
    {
      schema: {
        tags: ['Service'],
        operationId: 'getReady',
        summary: 'Readiness: whether to route requests here',
        response: {
          200: Type.Object({
            status: Type.Literal('ready'),
            redis: Type.Optional(
              Type.Union([Type.Literal('up'), Type.Literal('down')], {
                description:
                  'Only with REDIS_URL set. "down": Redis does not answer; this instance still serves (limits count per instance, chat reaches other instances late) and stays ready',
              }),
            ),
          }),
          503: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      if (readiness.draining) return reply.status(503).send({ error: DRAINING });
      try {
        await withTimeout(pingDatabase(db), READY_DATABASE_TIMEOUT_MS);
      } catch (error) {
        request.log.warn({ err: error }, 'readiness: the database did not answer');
        return reply.status(503).send({
          error: 'The database is not answering; this instance cannot serve requests until it does',
        });
      }
      if (redis) {
        try {
          await withTimeout(redis.ping(), READY_DATABASE_TIMEOUT_MS);
          redis.succeeded();
          return { status: 'ready' as const, redis: 'up' as const };
        } catch (error) {
          // Logged once per outage by the link, not once per probe.
          redis.failed(error);
          return { status: 'ready' as const, redis: 'down' as const };
        }
      }
      return { status: 'ready' as const };
    },
  );
  return readiness;
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  // The probe may lose the race; its own failure must not become an unhandled rejection.
  work.catch(() => {});
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

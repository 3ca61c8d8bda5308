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
 * `GET /ready`, for load balancers and orchestrators: 200 while the database (and Redis, when
 * REDIS_URL is set) answer, 503 once
 * shutdown began (so the balancer stops routing here during SHUTDOWN_DELAY_MS, while the
 * instance still answers what reaches it) or when the database does not answer. `/health` stays
 * liveness only: a restart does not fix a database that is down.
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
          200: Type.Object({ status: Type.Literal('ready') }),
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
        } catch (error) {
          request.log.warn({ err: error }, 'readiness: Redis did not answer');
          return reply.status(503).send({
            error:
              'Redis (REDIS_URL) is not answering: limits count per instance and chat reaches other instances late until it does',
          });
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

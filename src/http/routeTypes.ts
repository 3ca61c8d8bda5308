import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Config } from '../config.js';
import type { DomainContext } from '../domain/context.js';
import type { StatsCache } from '../domain/stats.js';
import type { FileStorage } from '../storage/fileStorage.js';
import type { AuthFailureThrottle } from './authThrottle.js';
import type { StreamCounter } from './sse.js';

/** What every route plugin receives. */
export interface RouteOptions {
  ctx: DomainContext;
  config: Config;
  stats: StatsCache;
  storage: FileStorage;
  streams: StreamCounter;
  /** Failed authentication per client address: every auth hook checks and feeds it. */
  authThrottle: AuthFailureThrottle;
}

export type Routes = FastifyPluginAsyncTypebox<RouteOptions>;

/** OpenAPI security requirement for each API. */
export const AGENT_SECURITY = [{ agentKey: [] }];
export const WORKER_SECURITY = [{ telegramInitData: [] }];
export const ADMIN_SECURITY = [{ adminToken: [] }];

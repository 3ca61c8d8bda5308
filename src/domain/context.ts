import type { Kysely } from 'kysely';
import type { ChainGateway } from '../chain/gateway.js';
import type { Database } from '../db/schema.js';
import type { WebhookSettings } from '../events/dispatcher.js';
import type { MessageFanout } from '../events/fanout.js';
import type { AttemptObserver } from '../outbox/kind.js';
import type { UsdtSettings } from '../usdtConfig.js';
import type { ApiKeyCache } from './agents/apiKeyCache.js';
import type { Clock } from './clock.js';
import type { Screening } from './trust/screening.js';

/** What domain functions need from the outside world; built once in app.ts. */
export interface DomainContext {
  db: Kysely<Database>;
  clock: Clock;
  chain: ChainGateway;
  /** Encrypts stored API keys. */
  secretKey: Buffer;
  /** Live keys recently authenticated; every revocation or rotation must forget the agent's. */
  apiKeys: ApiKeyCache;
  /** Live fan-out of new chat messages to open streams. */
  fanout: MessageFanout;
  /** Where stored uploads are served: `${publicUrl}/files/...`. */
  publicUrl: string;
  /** Webhook time-out and whether private addresses may receive webhooks. */
  webhooks: WebhookSettings;
  /** Told of each background attempt's outcome (outbox runner): logged and counted by the app. */
  observeAttempt?: AttemptObserver;
  /** Whether USDT is enabled, its master and its deposit limits. */
  usdt: UsdtSettings;
  /** Screening of new tasks (docs/decisions/screening.md); absent (contexts built by hand): none. */
  screening?: Screening;
  /** How long a task waiting for its owner's approval waits before it expires (APPROVAL_TTL_HOURS); absent: 24 h. */
  approvalTtlMs?: number;
}

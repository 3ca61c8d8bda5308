import type { Kysely } from 'kysely';
import type { ChainGateway } from '../chain/gateway.js';
import type { Database } from '../db/schema.js';
import type { Clock } from './clock.js';

/** What domain functions need from the outside world; built once in app.ts. */
export interface DomainContext {
  db: Kysely<Database>;
  clock: Clock;
  chain: ChainGateway;
  /** Encrypts stored API keys. */
  secretKey: Buffer;
}

import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { TSchema } from 'typebox';
import type { KeyIdentity } from '../domain/agents/apiKeyCache.js';
import type { DomainContext } from '../domain/context.js';
import type { StatsCache } from '../domain/stats.js';
import type { FileStorage } from '../storage/fileStorage.js';
import type { JsonSchema } from './jsonSchema.js';

/** What a tool runs with: the domain, and the agent whose API key called. */
export interface ToolEnv {
  ctx: DomainContext;
  agentId: string;
  /** The API key that called: its id (spend limits) and scopes. */
  apiKey: KeyIdentity | null;
  stats: StatsCache;
  storage: FileStorage;
}

/** Validated arguments, under the tool's field names. */
// biome-ignore lint/suspicious/noExplicitAny: arguments are checked against the tool's input schema first
export type Args = Record<string, any>;

export interface ToolDef {
  name: string;
  title: string;
  description: string;
  /**
   * The REST route this tool mirrors ("METHOD /path" as registered): its path parameters, query
   * string and body make the input schema, its 2xx response the output schema, and calls count
   * against its rate-limit bucket.
   */
  route?: string;
  /** Route fields under the tool's names (the route's `id` is the tool's `taskId`). */
  rename?: Record<string, string>;
  /** Route fields the tool does not take (fixed by what the tool does). */
  omit?: readonly string[];
  /** Input fields the route does not have; the whole input of a tool without a route. */
  extraInput?: JsonSchema;
  /** The output schema of a tool without a route. */
  output?: TSchema;
  annotations: ToolAnnotations;
  /**
   * Creates something or moves money, like the REST POSTs that take an Idempotency-Key: `run`
   * returns the domain's result and `view` turns it into the tool's output, so the output can be
   * stored with the key in the effect's own transaction (see `runKeyed` in catalog.ts).
   */
  keyed?: {
    // biome-ignore lint/suspicious/noExplicitAny: each keyed tool's view takes its own domain result
    view(result: any): Record<string, unknown>;
    /**
     * The key is required, as its REST route requires Idempotency-Key (KEY_REQUIRED_ROUTES: a
     * retry must never pay twice), and `run` gets it as `args.idempotencyKey`.
     */
    keyRequired?: true;
  };
  run(env: ToolEnv, args: Args): Promise<object>;
}

/** Only reads. */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

/** Changes state; `destructive` when it cannot be undone, `idempotent` when a repeat changes nothing more. */
export function writes(flags: {
  destructive: boolean;
  idempotent: boolean;
  openWorld?: boolean;
}): ToolAnnotations {
  return {
    readOnlyHint: false,
    destructiveHint: flags.destructive,
    idempotentHint: flags.idempotent,
    openWorldHint: flags.openWorld ?? false,
  };
}

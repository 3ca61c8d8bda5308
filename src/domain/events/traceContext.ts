import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * The W3C trace context (`traceparent`) of a request, carried to the events it records so their
 * webhooks carry it on. Carried explicitly, on a database handle as idempotencyUnit.ts carries
 * its unit (and for its reason: an AsyncLocalStorage would turn on Node's promise hooks for every
 * request of the process): `withTrace` makes a handle that carries it, inTransaction passes it
 * from the handle to each transaction it opens, and `traceFor` reads it where an event is written.
 */
const traces = new WeakMap<object, RequestTrace>();

/**
 * A request's trace and whose request it was: the agent that called (its API key, or its owner
 * in the console), or null for anyone else (a worker, an operator, the Mini App).
 */
interface RequestTrace {
  traceparent: string;
  callerAgentId: string | null;
}

/** A handle on the same database that carries `traceparent` (a plain copy, as withUnit makes). */
export function withTrace(
  db: Kysely<Database>,
  traceparent: string,
  callerAgentId: string | null,
): Kysely<Database> {
  const handle: Kysely<Database> = db.withTables<Record<never, never>>();
  traces.set(handle, { traceparent, callerAgentId });
  return handle;
}

/** Gives `to` (a transaction, or a handle made from `from`) the trace `from` carries, if any. */
export function passTrace(from: object, to: object): void {
  const trace = traces.get(from);
  if (trace) traces.set(to, trace);
}

/**
 * The trace a handle or transaction carries, for what is sent to `agentId`'s webhook. One party's
 * trace id never reaches another party's endpoint: it is kept only when the request was that
 * agent's own; an event a worker's or operator's request caused for the agent gets none (its
 * webhook then goes out untraced, as for an untraced request).
 */
export function traceFor(db: object, agentId: string): string | undefined {
  const trace = traces.get(db);
  return trace && trace.callerAgentId === agentId ? trace.traceparent : undefined;
}

/**
 * version "-" trace-id "-" parent-id "-" flags, lowercase hex (W3C Trace Context, level 1).
 * Version 00 is exactly this; a later version may append fields after another "-".
 */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-\S*)?$/;
const ALL_ZERO_TRACE = '0'.repeat(32);
const ALL_ZERO_PARENT = '0'.repeat(16);
/** Longer than any traceparent a tracer sends; refused before the pattern looks at it. */
const MAX_LENGTH = 256;

/**
 * A valid traceparent re-emitted as plain version 00, else null (then it is ignored, as the
 * spec says: the request starts a trace of its own). Version ff, an all-zero trace id or parent
 * id, and extra fields on version 00 are invalid. Only the three fields we understand are kept:
 * a later version's appended fields (up to ~220 characters of the caller's choosing) would
 * otherwise reach a webhook receiver verbatim.
 */
export function validTraceparent(header: unknown): string | null {
  if (typeof header !== 'string' || header.length > MAX_LENGTH) return null;
  const match = TRACEPARENT.exec(header);
  if (!match) return null;
  const [, version, traceId, parentId, flags, extra] = match;
  if (version === 'ff' || traceId === ALL_ZERO_TRACE || parentId === ALL_ZERO_PARENT) return null;
  if (version === '00' && extra !== undefined) return null;
  return `00-${traceId}-${parentId}-${flags}`;
}

/** The trace id (32 hex) of a valid traceparent. */
export function traceIdOf(traceparent: string): string {
  return traceparent.slice(3, 35);
}

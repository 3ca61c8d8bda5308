import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * The W3C trace context (`traceparent`) of a request, carried to the events it records so their
 * webhooks carry it on. Carried explicitly, on a database handle as idempotencyUnit.ts carries
 * its unit (and for its reason: an AsyncLocalStorage would turn on Node's promise hooks for every
 * request of the process): `withTrace` makes a handle that carries it, inTransaction passes it
 * from the handle to each transaction it opens, and `traceOf` reads it where an event is written.
 */
const traces = new WeakMap<object, string>();

/** A handle on the same database that carries `traceparent` (a plain copy, as withUnit makes). */
export function withTrace(db: Kysely<Database>, traceparent: string): Kysely<Database> {
  const handle: Kysely<Database> = db.withTables<Record<never, never>>();
  traces.set(handle, traceparent);
  return handle;
}

/** Gives `to` (a transaction, or a handle made from `from`) the trace `from` carries, if any. */
export function passTrace(from: object, to: object): void {
  const traceparent = traces.get(from);
  if (traceparent) traces.set(to, traceparent);
}

/** The trace a handle or transaction carries. */
export function traceOf(db: object): string | undefined {
  return traces.get(db);
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
 * The header as given when it is a valid traceparent, else null (then it is ignored, as the
 * spec says: the request starts a trace of its own). Version ff, an all-zero trace id or parent
 * id, and extra fields on version 00 are invalid.
 */
export function validTraceparent(header: unknown): string | null {
  if (typeof header !== 'string' || header.length > MAX_LENGTH) return null;
  const match = TRACEPARENT.exec(header);
  if (!match) return null;
  const [, version, traceId, parentId, , extra] = match;
  if (version === 'ff' || traceId === ALL_ZERO_TRACE || parentId === ALL_ZERO_PARENT) return null;
  if (version === '00' && extra !== undefined) return null;
  return header;
}

/** The trace id (32 hex) of a valid traceparent. */
export function traceIdOf(traceparent: string): string {
  return traceparent.slice(3, 35);
}

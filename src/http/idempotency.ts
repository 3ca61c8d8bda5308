import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Executor } from '../db/repositories/executor.js';
import type { DomainContext } from '../domain/context.js';
import { invalid } from '../domain/errors.js';
import {
  IDEMPOTENCY_KEY_PATTERN,
  type IdempotencyRequest,
  idempotent,
  type StoredResponse,
} from '../domain/idempotency.js';
import { tracedContext } from './traceHeader.js';

/** The routes that honour Idempotency-Key (documented in the OpenAPI document). */
export const IDEMPOTENT_ROUTES = [
  'POST /tasks',
  'POST /batches',
  'POST /batches/{id}/cancel',
  'POST /tasks/{id}/complete',
  'POST /tasks/{id}/refund',
  'POST /tasks/{id}/revisions',
  'POST /worker/tasks/{id}/submissions',
  'PATCH /applications/{id}',
  'POST /tasks/{id}/rate',
  'POST /chat/{taskId}/messages',
  'POST /worker/chat/{taskId}/messages',
  'POST /worker/offers/{taskId}/accept',
  'POST /worker/offers/{taskId}/decline',
  'POST /worker/tasks/{id}/rate',
  'POST /admin/agents/{id}/deposits',
  'POST /tasks/{id}/dispute',
  'POST /tasks/{id}/dispute/statements',
  'POST /worker/tasks/{id}/dispute',
  'POST /worker/tasks/{id}/dispute/statements',
  'POST /admin/disputes/{id}/resolve',
  'POST /worker/tasks/{id}/partial/accept',
  'POST /tasks/{id}/bonus',
] as const;

/** The routes that refuse a call without an Idempotency-Key: a retry of theirs must never pay twice. */
export const KEY_REQUIRED_ROUTES = ['POST /tasks/{id}/bonus'] as const;

/** Why a KEY_REQUIRED_ROUTES call (or an MCP tool that mirrors one) without a key is refused. */
export const KEY_REQUIRED_MESSAGE =
  'is required here: send a new one (a UUID) for each bonus, and the same one when you retry, so a retry never pays twice';

/** Refuses (400) a call of a KEY_REQUIRED_ROUTES route without an Idempotency-Key; returns the key. */
export function requiredIdempotencyKey(request: FastifyRequest): string {
  const key = idempotencyRequestOf(request)?.key;
  if (key === undefined) {
    throw invalid('Idempotency-Key', KEY_REQUIRED_MESSAGE);
  }
  return key;
}

/** JSON with object keys sorted, so the same body always has the same fingerprint. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** SHA-256 of the method, the route, its parameters and the validated body (unknown fields dropped). */
export function requestFingerprint(request: FastifyRequest): string {
  return createHash('sha256')
    .update(canonical([request.method, request.routeOptions.url, request.params, request.body]))
    .digest('hex');
}

/** The caller an Idempotency-Key belongs to. */
function scopeOf(request: FastifyRequest): string {
  if (request.agentId) return `agent:${request.agentId}`;
  if (request.workerId) return `worker:${request.workerId}`;
  return 'admin';
}

/** The request's idempotency identity, or null without an Idempotency-Key header. */
export function idempotencyRequestOf(request: FastifyRequest): IdempotencyRequest | null {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return null;
  if (typeof header !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(header)) {
    throw invalid('Idempotency-Key', 'must be 1 to 255 visible ASCII characters (a UUID is a good choice)');
  }
  return { scope: scopeOf(request), key: header, fingerprint: requestFingerprint(request) };
}

/**
 * Runs a route's effect under its Idempotency-Key (if any) and sends the response, or the stored
 * response of the first request with `Idempotent-Replayed: true`.
 */
export async function sendIdempotent<R>(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: DomainContext,
  effect: (ctx: DomainContext) => Promise<R>,
  respond: (result: R, db: Executor) => Promise<StoredResponse> | StoredResponse,
): Promise<FastifyReply> {
  const outcome = await idempotent(
    tracedContext(request, ctx),
    idempotencyRequestOf(request),
    effect,
    respond,
  );
  if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.status(outcome.status).send(outcome.body);
}

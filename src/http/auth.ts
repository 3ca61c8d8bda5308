import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { authenticateApiKey } from '../domain/agents/agents.js';
import type { KeyIdentity } from '../domain/agents/apiKeyCache.js';
import { looksLikeApiKey, safeEqual } from '../domain/agents/apiKeys.js';
import type { DomainContext } from '../domain/context.js';
import { signInWorker } from '../domain/workers/workerProfile.js';
import { verifyInitData } from '../telegram/initData.js';
import { type AuthFailureThrottle, throttleFailure } from './authThrottle.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the agent auth hook on agent routes. */
    agentId: string;
    /**
     * The API key that called (its id for spend limits, its scopes), set by the agent auth hook;
     * null when the owner acts as their agent in the console (no key: no key's limits apply).
     */
    apiKey: KeyIdentity | null;
    /** Set by the worker auth hook on worker routes. */
    workerId: string;
  }
}

function credential(request: FastifyRequest, scheme: string): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== scheme) return null;
  return header.slice(space + 1).trim();
}

/** Why a credential was refused: none sent, not in the expected form, or not one we know. */
export type UnauthorizedReason = 'missing' | 'malformed' | 'unknown';

/**
 * 401 keeps the spec's `{error: "Unauthorized"}` and adds `reason` (missing, malformed or
 * unknown) and a `message` that says what to send.
 */
const unauthorized = (reply: FastifyReply, reason: UnauthorizedReason, message: string) =>
  reply.status(401).send({ error: 'Unauthorized', reason, message });

/** Which of missing / malformed a header is, for a scheme; null when it carries a credential. */
function credentialProblem(request: FastifyRequest, scheme: string): 'missing' | 'malformed' | null {
  if (!request.headers.authorization) return 'missing';
  return credential(request, scheme) ? null : 'malformed';
}

const AGENT_HINT = 'Send your API key as: Authorization: Bearer hr_...';

/** `Authorization: Bearer hr_...`: runs before the body is parsed, so 401 comes first. */
export function agentAuth(ctx: DomainContext, throttle: AuthFailureThrottle) {
  // A callback hook: a key in the cache of live keys (nearly every request) costs no promise.
  // Answering stops the hook chain by not calling `done`.
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (!request.headers.authorization)
      return void unauthorized(reply, 'missing', `No API key. ${AGENT_HINT}`);
    // The header is read once: this runs on every agent request.
    const key = credential(request, 'bearer');
    if (!key || !looksLikeApiKey(key)) {
      return void unauthorized(
        reply,
        'malformed',
        `That is not an API key (they start with hr_). ${AGENT_HINT}`,
      );
    }
    const found = authenticateApiKey(ctx, key);
    // Only a key the cache does not hold waits, and only then is a function made for it.
    if (found instanceof Promise)
      found.then((identity) => admitAgent(identity, request, reply, done, throttle), done);
    else admitAgent(found, request, reply, done, throttle);
  };
}

/** Lets the request on as the key's agent, or answers 401 for a key nobody holds. */
function admitAgent(
  identity: KeyIdentity | null,
  request: FastifyRequest,
  reply: FastifyReply,
  done: HookHandlerDoneFunction,
  throttle: AuthFailureThrottle,
): void {
  if (identity) {
    request.agentId = identity.agentId;
    request.apiKey = identity;
    done();
    return;
  }
  const refused = throttleFailure(throttle, request, reply);
  if (refused instanceof Promise) refused.then((r) => r || unknownKey(reply), done);
  else if (!refused) unknownKey(reply);
}

function unknownKey(reply: FastifyReply): void {
  void unauthorized(
    reply,
    'unknown',
    'Unknown or revoked API key: check it, or ask your operator for a new one',
  );
}

/** `Authorization: Bearer <ADMIN_TOKEN>` for the operator API. */
export function adminAuth(adminToken: string, throttle: AuthFailureThrottle) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const problem = credentialProblem(request, 'bearer');
    const hint = 'Send the ADMIN_TOKEN as: Authorization: Bearer <ADMIN_TOKEN>';
    if (problem)
      return unauthorized(
        reply,
        problem,
        `${problem === 'missing' ? 'No token' : 'Malformed header'}. ${hint}`,
      );
    const token = credential(request, 'bearer')!;
    if (!safeEqual(token, adminToken)) {
      if (await throttleFailure(throttle, request, reply)) return reply;
      return unauthorized(reply, 'unknown', `Wrong token. ${hint}`);
    }
  };
}

/**
 * `Authorization: Bearer <token>` for a route that any of `tokens` may read (GET /metrics: its
 * own METRICS_TOKEN, which a monitoring system can hold without operator rights, or the admin
 * token). Wrong tokens count towards the failed-authentication throttle like any other.
 */
export function anyTokenAuth(tokens: string[], hint: string, throttle: AuthFailureThrottle) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const problem = credentialProblem(request, 'bearer');
    if (problem)
      return unauthorized(
        reply,
        problem,
        `${problem === 'missing' ? 'No token' : 'Malformed header'}. ${hint}`,
      );
    const token = credential(request, 'bearer')!;
    // Every token is compared (no early exit), in constant time each.
    const matches = tokens.map((known) => safeEqual(token, known));
    if (!matches.includes(true)) {
      if (await throttleFailure(throttle, request, reply)) return reply;
      return unauthorized(reply, 'unknown', `Wrong token. ${hint}`);
    }
  };
}

/** `Authorization: tma <initData>`: a valid Mini App sign-in registers the worker on first use. */
export function workerAuth(ctx: DomainContext, botToken: string, throttle: AuthFailureThrottle) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const hint = 'Send fresh Telegram Mini App init data as: Authorization: tma <initData>';
    const problem = credentialProblem(request, 'tma');
    if (problem)
      return unauthorized(
        reply,
        problem,
        `${problem === 'missing' ? 'No init data' : 'Malformed header'}. ${hint}`,
      );
    const user = verifyInitData(credential(request, 'tma')!, botToken, ctx.clock.now());
    if (!user) {
      if (await throttleFailure(throttle, request, reply)) return reply;
      return unauthorized(
        reply,
        'unknown',
        `Init data not valid (wrong signature or older than 24 hours). ${hint}`,
      );
    }
    request.workerId = (await signInWorker(ctx, user)).id;
  };
}

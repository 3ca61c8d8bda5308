import type { FastifyReply, FastifyRequest } from 'fastify';
import { safeEqual } from '../domain/agents/apiKeys.js';
import type { DomainContext } from '../domain/context.js';
import { requireOwnedAgent } from '../domain/owners/ownerAgents.js';
import { findOwnerSession, type OwnerSession } from '../domain/owners/ownerSessions.js';
import { type AuthFailureThrottle, throttledAnswer, throttleFailure } from './authThrottle.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the console session hook on console routes. */
    owner: OwnerSession | null;
  }
}

export const SESSION_COOKIE = 'handoff_console';
/** Binds a sign-in challenge to the browser that asked for it (see issueOwnerChallenge). */
export const SIGN_IN_COOKIE = 'handoff_signin';
export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The value of one cookie from the Cookie header, or null. */
export function readCookie(request: FastifyRequest, name: string): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/**
 * The session cookie: HttpOnly (page scripts never see the token), SameSite=Strict (other sites'
 * requests do not carry it), Secure unless the service runs on localhost over plain HTTP.
 */
export function sessionCookie(token: string, options: { secure: boolean; maxAgeS: number }): string {
  const parts = [
    `${SESSION_COOKIE}=${token}`,
    'Path=/console',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${options.maxAgeS}`,
  ];
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}

/** The sign-in cookie: like the session's, but sent to the sign-in routes only. */
export function signInCookie(value: string, options: { secure: boolean; maxAgeS: number }): string {
  const parts = [
    `${SIGN_IN_COOKIE}=${value}`,
    'Path=/console/api/auth',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${options.maxAgeS}`,
  ];
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}

/** Cookies are Secure everywhere but a local development host. */
export function secureCookies(publicUrl: string): boolean {
  const url = new URL(publicUrl);
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  return url.protocol === 'https:' || !local;
}

/**
 * Console session: a live session cookie, and on every state-changing request the session's
 * CSRF token in X-CSRF-Token. A cross-site page can make the browser send the cookie (where
 * SameSite does not stop it) but cannot read the token, so its POST is refused.
 *
 * A cookie naming no live session is answered 401 with a Set-Cookie that clears it, so the
 * browser stops sending it. A session this service issued that has ended (signed out, dropped
 * for a newer one, expired: a stale tab still polling) is not a failed sign-in; only a made-up
 * token counts with the auth throttle.
 */
export function ownerSessionAuth(ctx: DomainContext, throttle: AuthFailureThrottle, secure: boolean) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const token = readCookie(request, SESSION_COOKIE);
    const found = token ? await findOwnerSession(ctx, token) : null;
    if (!found || !('session' in found)) {
      if (found && 'forged' in found && (await throttleFailure(throttle, request, reply))) return reply;
      if (token !== null) reply.header('set-cookie', sessionCookie('', { secure, maxAgeS: 0 }));
      const reason = !found ? 'missing' : 'ended' in found ? 'ended' : 'unknown';
      return reply.status(401).send({
        error: 'Unauthorized',
        reason,
        message:
          reason === 'ended'
            ? 'Your console session has ended: sign in again with your wallet'
            : 'No console session: sign in with your wallet',
      });
    }
    const { session } = found;
    if (!SAFE_METHODS.has(request.method)) {
      const sent = request.headers[CSRF_HEADER];
      if (typeof sent !== 'string' || !safeEqual(sent, session.csrfToken)) {
        return reply.status(403).send({
          error: `Missing or wrong ${CSRF_HEADER} header: send the csrfToken from GET /console/api/session`,
        });
      }
    }
    request.owner = session;
  };
}

/**
 * For the agent API mounted under /console/api/agents/:agentId/api: the signed-in owner acts as
 * their agent. Another owner's agent answers 404, like an agent that does not exist.
 */
export function ownedAgentAuth(ctx: DomainContext) {
  return async (request: FastifyRequest) => {
    const { agentId } = request.params as { agentId?: string };
    const agent = await requireOwnedAgent(ctx, request.owner!.ownerId, agentId ?? '');
    request.agentId = agent.id;
  };
}

const LOGIN_ROUTE = '/console/api/auth/login';

/**
 * A refused wallet proof is a failed sign-in: it counts with the auth throttle, and once the
 * address is over the limit the refusal is a 429. Matched by route pattern, so a query string
 * (`/auth/login?x=1`) changes nothing. An onSend hook, because a proof is refused in several
 * places (body validation, the proof checks, the payload). An address already over the limit is
 * refused before its body is read (see loginThrottledBeforeBody).
 */
export function failedLoginThrottle(throttle: AuthFailureThrottle) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const status = reply.statusCode;
    if (request.routeOptions.url !== LOGIN_ROUTE || status < 400 || status >= 429) return payload;
    const retryAfter = await throttle.fail(request.ip);
    if (retryAfter === 0) return payload;
    reply
      .status(429)
      .header('retry-after', retryAfter)
      .header('content-type', 'application/json; charset=utf-8');
    return JSON.stringify(throttledAnswer(throttle, retryAfter));
  };
}

/**
 * An address over the failed sign-in limit gets its 429 on `POST /console/api/auth/login` as
 * soon as the request arrives, before its body is read and parsed: parsing what a refused
 * address sends was the work a flood made the process do (100 logins of 832 KiB from one address
 * kept /health at 2-3 s for 41 s). Counts nothing (the refusal of a proof that was never read is
 * no new guess). So even a valid proof from that address waits for the window's end, as sign-ins
 * past the per-address sign-in rate limit already do; other addresses are not affected.
 */
export function loginThrottledBeforeBody(throttle: AuthFailureThrottle) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.routeOptions.url !== LOGIN_ROUTE) return;
    const retryAfter = await throttle.over(request.ip);
    if (retryAfter === 0) return;
    return reply.status(429).header('retry-after', retryAfter).send(throttledAnswer(throttle, retryAfter));
  };
}

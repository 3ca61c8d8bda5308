import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticateApiKey } from '../domain/agents.js';
import { safeEqual } from '../domain/apiKeys.js';
import type { DomainContext } from '../domain/context.js';
import { signInWorker } from '../domain/workerProfile.js';
import { verifyInitData } from '../telegram/initData.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the agent auth hook on agent routes. */
    agentId: string;
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

const unauthorized = (reply: FastifyReply, hint?: string) =>
  reply.status(401).send(hint ? { error: 'Unauthorized', message: hint } : { error: 'Unauthorized' });

/** `Authorization: Bearer hr_...`: runs before the body is parsed, so 401 comes first. */
export function agentAuth(ctx: DomainContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const key = credential(request, 'bearer');
    const agentId = key ? await authenticateApiKey(ctx, key) : null;
    if (!agentId) return unauthorized(reply, 'Send your API key as: Authorization: Bearer hr_...');
    request.agentId = agentId;
  };
}

/** `Authorization: Bearer <ADMIN_TOKEN>` for the operator API. */
export function adminAuth(adminToken: string) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const token = credential(request, 'bearer');
    if (!token || !safeEqual(token, adminToken))
      return unauthorized(reply, 'Send the ADMIN_TOKEN as a Bearer token');
  };
}

/** `Authorization: tma <initData>`: a valid Mini App sign-in registers the worker on first use. */
export function workerAuth(ctx: DomainContext, botToken: string) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const initData = credential(request, 'tma');
    const user = initData ? verifyInitData(initData, botToken, ctx.clock.now()) : null;
    if (!user)
      return unauthorized(reply, 'Send fresh Telegram Mini App init data as: Authorization: tma <initData>');
    request.workerId = (await signInWorker(ctx, user)).id;
  };
}

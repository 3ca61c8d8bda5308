import { Type } from 'typebox';
import { freezeAgent, MAX_FREEZE_REASON, unfreezeAgent } from '../../domain/agents/agentFreeze.js';
import { listApiKeys, updateApiKey } from '../../domain/agents/agentKeys.js';
import { getAgent } from '../../domain/agents/agents.js';
import { SHORT_BODY_LIMIT_BYTES } from '../bodyLimits.js';
import { ADMIN_SECURITY, type Routes } from '../routeTypes.js';
import { errors, example, IdParam, Nullable, Timestamp } from '../schemas/common.js';
import { apiKeyView } from '../schemas/console.js';
import { ApiKeyView, KeyPatchBody } from '../schemas/keyPolicy.js';

const tags = ['Operator'];
const security = ADMIN_SECURITY;

const KeyParams = Type.Object({
  id: Type.String({ maxLength: 100 }),
  keyId: Type.String({ maxLength: 100 }),
});

const unlimited = { maxTaskAmount: null, dailyLimit: null, monthlyLimit: null, approvalAbove: null };
const noSpending = { spentToday: '0', leftToday: null, spentThisMonth: '0', leftThisMonth: null };
const KEY_EXAMPLE = {
  id: 'key_01JD6Z3Q9W2M8V4T7R5N1K0XYA',
  name: 'production',
  hint: 'hr_3f9a...c41e',
  createdAt: '2030-01-01T00:00:00.000Z',
  lastUsedAt: '2030-01-02T09:15:00.000Z',
  revokedAt: null,
  scopes: ['tasks:read', 'tasks:write', 'chat', 'money'] as (
    | 'tasks:read'
    | 'tasks:write'
    | 'chat'
    | 'money'
  )[],
  spendPolicy: {
    TON: { maxTaskAmount: '13', dailyLimit: '50', monthlyLimit: '500', approvalAbove: null },
    USDT: unlimited,
  },
  spending: {
    TON: { spentToday: '6.5', leftToday: '43.5', spentThisMonth: '6.5', leftThisMonth: '493.5' },
    USDT: noSpending,
  },
};

const FreezeView = Type.Object({
  agentId: Type.String(),
  frozen: Type.Boolean(),
  reason: Nullable(Type.String()),
  frozenAt: Nullable(Timestamp),
});

/** The operator's control of agents' keys and spending (issue 38). */
export const adminKeyRoutes: Routes = async (app, { ctx }) => {
  app.get(
    '/admin/agents/:id/keys',
    {
      schema: {
        tags,
        security,
        operationId: 'adminListAgentKeys',
        summary: "An agent's API keys (live and revoked) with their scopes, spend policies and spending",
        params: IdParam,
        response: {
          200: example(Type.Object({ keys: Type.Array(ApiKeyView) }), { keys: [KEY_EXAMPLE] }),
          ...errors(401, { 404: 'Agent not found' }),
        },
      },
    },
    async (request) => {
      await getAgent(ctx, request.params.id);
      const now = ctx.clock.now();
      return { keys: (await listApiKeys(ctx, request.params.id)).map((k) => apiKeyView(k, now)) };
    },
  );

  app.patch(
    '/admin/agents/:id/keys/:keyId',
    {
      schema: {
        tags,
        security,
        operationId: 'adminUpdateAgentKey',
        summary: "Set a key's spend policy (per currency; null removes a limit) and scopes",
        params: KeyParams,
        body: example(KeyPatchBody, {
          spendPolicy: {
            TON: { maxTaskAmount: '13', dailyLimit: '50', monthlyLimit: '500', approvalAbove: null },
          },
          scopes: ['tasks:read', 'tasks:write', 'chat', 'money'],
        }),
        response: {
          200: example(Type.Object({ key: ApiKeyView }), { key: KEY_EXAMPLE }),
          ...errors(400, 401, {
            404: 'API key not found',
            409: {
              error: 'This key is revoked: its policy and scopes can no longer change',
              revokedAt: '2030-01-03T00:00:00.000Z',
            },
          }),
        },
      },
    },
    async (request) => {
      const key = await updateApiKey(ctx, request.params.id, request.params.keyId, request.body);
      return { key: apiKeyView(key, ctx.clock.now()) };
    },
  );

  app.post(
    '/admin/agents/:id/freeze',
    {
      bodyLimit: SHORT_BODY_LIMIT_BYTES,
      schema: {
        tags,
        security,
        operationId: 'adminFreezeAgent',
        summary: 'Freeze an agent: every spend is refused (403); open tasks go on and workers are still paid',
        params: IdParam,
        body: example(Type.Object({ reason: Type.Optional(Type.String({ maxLength: MAX_FREEZE_REASON })) }), {
          reason: 'Owner reported the key leaked',
        }),
        response: {
          200: example(Type.Object({ freeze: FreezeView }), {
            freeze: {
              agentId: 'agt_01JD6Z3Q9W2M8V4T7R5N1K0XYB',
              frozen: true,
              reason: 'Owner reported the key leaked',
              frozenAt: '2030-01-02T10:00:00.000Z',
            },
          }),
          ...errors(400, 401, { 404: 'Agent not found' }),
        },
      },
    },
    async (request) => ({
      freeze: {
        agentId: request.params.id,
        ...(await freezeAgent(ctx, request.params.id, request.body ?? {})),
      },
    }),
  );

  app.post(
    '/admin/agents/:id/unfreeze',
    {
      schema: {
        tags,
        security,
        operationId: 'adminUnfreezeAgent',
        summary: 'Unfreeze an agent: it may spend again',
        params: IdParam,
        response: {
          200: example(Type.Object({ freeze: FreezeView }), {
            freeze: {
              agentId: 'agt_01JD6Z3Q9W2M8V4T7R5N1K0XYB',
              frozen: false,
              reason: null,
              frozenAt: null,
            },
          }),
          ...errors(401, { 404: 'Agent not found' }),
        },
      },
    },
    async (request) => ({
      freeze: { agentId: request.params.id, ...(await unfreezeAgent(ctx, request.params.id)) },
    }),
  );
};

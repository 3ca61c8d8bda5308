import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { balanceOf } from '../../db/repositories/balances.js';
import type { AgentRow } from '../../db/repositories/executor.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../../domain/agentKeys.js';
import { depositInstructions, depositInstructionsIn } from '../../domain/chainDeposits.js';
import type { DomainContext } from '../../domain/context.js';
import { type Currency, formatAmount } from '../../domain/currency.js';
import { commentPayload } from '../../domain/depositInfo.js';
import { formatTon } from '../../domain/money.js';
import {
  createOwnedAgent,
  listAgentsOfOwner,
  requireOwnedAgent,
  sandboxFaucet,
  spendingSeries,
} from '../../domain/ownerAgents.js';
import type { OwnerSession } from '../../domain/ownerSessions.js';
import { usdtTopUpMessage } from '../../domain/usdtTopUp.js';
import type { Routes } from '../routeTypes.js';
import { Transaction } from '../schemas/agent.js';
import { AmountInput, errors, Nullable } from '../schemas/common.js';
import {
  AgentKeyParams,
  AgentParams,
  ApiKeyView,
  apiKeyView,
  ConsoleAgent,
  DepositInfo,
  SpendingDay,
  UsdtDepositInfo,
  UsdtTopUpBody,
  WalletMessage,
} from '../schemas/console.js';
import { transactionView } from '../views.js';

const owner = (request: FastifyRequest): OwnerSession => request.owner!;

export function consoleAgentView(agent: AgentRow) {
  const money = (currency: Currency) => {
    const b = balanceOf(agent, currency);
    return {
      balance: formatAmount(currency, b.balance),
      lockedByTasks: formatAmount(currency, b.locked),
      deposited: formatAmount(currency, b.deposited),
      spent: formatAmount(currency, b.spent),
    };
  };
  return {
    id: agent.id,
    name: agent.name,
    webhookUrl: agent.webhook_url,
    ...money('TON'),
    balances: { TON: money('TON'), USDT: money('USDT') },
    createdAt: agent.created_at,
  };
}

/** The signed-in owner's resources (the session hook is added where this plugin is registered). */
export const consoleOwnerRoutes: Routes = async (app, { ctx }) => {
  app.get(
    '/agents',
    { schema: { response: { 200: Type.Object({ agents: Type.Array(ConsoleAgent) }), ...errors(401) } } },
    async (request) => ({
      agents: (await listAgentsOfOwner(ctx, owner(request).ownerId)).map(consoleAgentView),
    }),
  );

  app.post(
    '/agents',
    {
      schema: {
        body: Type.Object({ name: Type.String({ maxLength: 100 }) }),
        response: {
          201: Type.Object({ agent: ConsoleAgent, apiKey: Type.String({ description: 'Shown only here' }) }),
          ...errors(400, 401, 403, 409),
        },
      },
    },
    async (request, reply) => {
      const { agent, apiKey } = await createOwnedAgent(ctx, owner(request).ownerId, request.body);
      return reply.status(201).send({ agent: consoleAgentView(agent), apiKey });
    },
  );

  app.get(
    '/agents/:agentId',
    {
      schema: {
        params: AgentParams,
        response: {
          200: Type.Object({
            agent: ConsoleAgent,
            keys: Type.Array(ApiKeyView),
            deposit: DepositInfo,
            usdtDeposit: Nullable(UsdtDepositInfo),
          }),
          ...errors(401, 404),
        },
      },
    },
    async (request) => {
      const agent = await requireOwnedAgent(ctx, owner(request).ownerId, request.params.agentId);
      const keys = await listApiKeys(ctx, agent.id);
      return {
        agent: consoleAgentView(agent),
        keys: keys.map(apiKeyView),
        deposit: consoleDeposit(ctx, agent.id),
        usdtDeposit: consoleUsdtDeposit(ctx, agent.id),
      };
    },
  );

  app.post(
    '/agents/:agentId/keys',
    {
      schema: {
        params: AgentParams,
        body: Type.Object({ name: Type.String({ maxLength: 200 }) }),
        response: {
          201: Type.Object({ key: ApiKeyView, apiKey: Type.String({ description: 'Shown only here' }) }),
          ...errors(400, 401, 403, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const agent = await requireOwnedAgent(ctx, owner(request).ownerId, request.params.agentId);
      const { key, apiKey } = await createApiKey(ctx, agent.id, request.body, {
        ownerId: owner(request).ownerId,
      });
      return reply.status(201).send({ key: apiKeyView(key), apiKey });
    },
  );

  app.post(
    '/agents/:agentId/keys/:keyId/revoke',
    {
      schema: {
        params: AgentKeyParams,
        response: { 200: Type.Object({ key: ApiKeyView }), ...errors(401, 403, 404, 409) },
      },
    },
    async (request) => {
      const agent = await requireOwnedAgent(ctx, owner(request).ownerId, request.params.agentId);
      return { key: apiKeyView(await revokeApiKey(ctx, agent.id, request.params.keyId)) };
    },
  );

  app.post(
    '/agents/:agentId/faucet',
    {
      schema: {
        params: AgentParams,
        body: Type.Object({ amount: AmountInput }),
        response: { 201: Type.Object({ transaction: Transaction }), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const agent = await requireOwnedAgent(ctx, owner(request).ownerId, request.params.agentId);
      const row = await sandboxFaucet(ctx, owner(request).ownerId, agent.id, request.body.amount);
      return reply.status(201).send({ transaction: transactionView({ ...row, task_title: null }) });
    },
  );

  app.post(
    '/agents/:agentId/usdt-top-up',
    {
      schema: {
        params: AgentParams,
        body: UsdtTopUpBody,
        response: { 200: Type.Object({ message: WalletMessage }), ...errors(400, 401, 404, 409) },
      },
    },
    async (request) => {
      const agent = await requireOwnedAgent(ctx, owner(request).ownerId, request.params.agentId);
      return { message: await usdtTopUpMessage(ctx, agent.id, request.body) };
    },
  );

  app.get(
    '/agents/:agentId/spending',
    {
      schema: {
        params: AgentParams,
        response: { 200: Type.Object({ days: Type.Array(SpendingDay) }), ...errors(401, 404) },
      },
    },
    async (request) => {
      const agent = await requireOwnedAgent(ctx, owner(request).ownerId, request.params.agentId);
      const days = await spendingSeries(ctx, agent.id);
      return {
        days: days.map((d) => ({
          day: d.day,
          deposited: formatTon(d.depositedNano),
          spent: formatTon(d.spentNano),
        })),
      };
    },
  );
};

/** Where the owner tops the agent up, with the memo as a TON Connect payload for "Pay with wallet". */
function consoleDeposit(ctx: DomainContext, agentId: string) {
  const { minimumNano, ...where } = depositInstructions(ctx, agentId);
  return { ...where, minimum: formatTon(minimumNano), payload: commentPayload(agentId) };
}

/** The same for USDT (a jetton transfer with the memo as its forward comment); null while USDT is off. */
function consoleUsdtDeposit(ctx: DomainContext, agentId: string) {
  const master = ctx.usdt.master;
  if (!ctx.usdt.enabled || !master) return null;
  const { minimumNano, network, address, memo, link } = depositInstructionsIn(ctx, agentId, 'USDT');
  return { network, address, memo, link, jettonMaster: master, minimum: formatAmount('USDT', minimumNano) };
}

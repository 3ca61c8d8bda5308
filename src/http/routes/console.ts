import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { balanceOf } from '../../db/repositories/balances.js';
import type { AgentRow } from '../../db/repositories/executor.js';
import { createApiKey, listApiKeys, revokeApiKey, updateApiKey } from '../../domain/agents/agentKeys.js';
import { approvalsOfOwner, approveApproval, declineApproval } from '../../domain/agents/approvals.js';
import { holderOfKey, keyHolder } from '../../domain/agents/testMode.js';
import { depositInstructions, depositInstructionsIn } from '../../domain/chain/chainDeposits.js';
import type { DomainContext } from '../../domain/context.js';
import { bonusView } from '../../domain/money/bonuses.js';
import { previewBonus } from '../../domain/money/bonusPreview.js';
import { CURRENCIES, type Currency, formatAmount } from '../../domain/money/currency.js';
import { commentPayload } from '../../domain/money/depositInfo.js';
import { lowBalanceView, setLowBalanceAlerts } from '../../domain/money/lowBalance.js';
import { formatTon } from '../../domain/money/money.js';
import {
  keyActivityPage,
  keySpendSeries,
  MAX_ACTIVITY_PAGE,
  requireKeyOfAgent,
} from '../../domain/owners/keyActivity.js';
import {
  createOwnedAgent,
  listAgentsOfOwner,
  requireOwnedAgent,
  sandboxFaucet,
  spendingSeries,
} from '../../domain/owners/ownerAgents.js';
import type { OwnerSession } from '../../domain/owners/ownerSessions.js';
import { usdtTopUpMessage } from '../../domain/owners/usdtTopUp.js';
import { approvalView } from '../approvalViews.js';
import { SHORT_BODY_LIMIT_BYTES } from '../bodyLimits.js';
import type { Routes } from '../routeTypes.js';
import { Transaction } from '../schemas/agent.js';
import { Approval } from '../schemas/approval.js';
import { Bonus } from '../schemas/bonus.js';
import {
  Amount,
  AmountInput,
  Currency as CurrencySchema,
  errors,
  IdParam,
  Nullable,
  Timestamp,
} from '../schemas/common.js';
import {
  AgentKeyParams,
  AgentParams,
  ApiKeyView,
  apiKeyView,
  ConsoleAgent,
  DepositInfo,
  KeyActivityItem,
  KeySpendingDay,
  LowBalanceBody,
  SpendingDay,
  UsdtDepositInfo,
  UsdtTopUpBody,
  WalletMessage,
} from '../schemas/console.js';
import { KeyPatchBody } from '../schemas/keyPolicy.js';
import { transactionView } from '../views.js';

const owner = (request: FastifyRequest): OwnerSession => request.owner!;

/** Test mode: which keys a console key call is about (test keys live on the agent's test twin). */
const KeyModeField = Type.Enum(['live', 'test'], {
  description: 'live (default): keys that move real money; test: hr_test_ keys of the agent’s test world',
});

export function consoleAgentView(agent: AgentRow) {
  const money = (currency: Currency) => {
    const b = balanceOf(agent, currency);
    return {
      balance: formatAmount(currency, b.balance),
      lockedByTasks: formatAmount(currency, b.locked),
      deposited: formatAmount(currency, b.deposited),
      spent: formatAmount(currency, b.spent),
      ...lowBalanceView(agent, currency),
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
      bodyLimit: SHORT_BODY_LIMIT_BYTES,
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
        querystring: Type.Object({ mode: Type.Optional(KeyModeField) }),
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
      const keys = await listApiKeys(ctx, await keyHolder(ctx, agent.id, request.query.mode ?? 'live'));
      return {
        agent: consoleAgentView(agent),
        keys: keys.map((k) => apiKeyView(k, ctx.clock.now())),
        deposit: consoleDeposit(ctx, agent.id),
        usdtDeposit: consoleUsdtDeposit(ctx, agent.id),
      };
    },
  );

  app.post(
    '/agents/:agentId/keys',
    {
      bodyLimit: SHORT_BODY_LIMIT_BYTES,
      schema: {
        params: AgentParams,
        body: Type.Object({ name: Type.String({ maxLength: 200 }), mode: Type.Optional(KeyModeField) }),
        response: {
          201: Type.Object({ key: ApiKeyView, apiKey: Type.String({ description: 'Shown only here' }) }),
          ...errors(400, 401, 403, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const agent = await requireOwnedAgent(ctx, owner(request).ownerId, request.params.agentId);
      const holder = await keyHolder(ctx, agent.id, request.body.mode ?? 'live');
      const { key, apiKey } = await createApiKey(ctx, holder, request.body, {
        ownerId: owner(request).ownerId,
        mode: request.body.mode ?? 'live',
      });
      return reply.status(201).send({ key: apiKeyView(key, ctx.clock.now()), apiKey });
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
      const holder = await holderOfKey(ctx, agent.id, request.params.keyId);
      return { key: apiKeyView(await revokeApiKey(ctx, holder, request.params.keyId), ctx.clock.now()) };
    },
  );

  app.patch(
    '/agents/:agentId/keys/:keyId',
    {
      schema: {
        params: AgentKeyParams,
        body: KeyPatchBody,
        response: { 200: Type.Object({ key: ApiKeyView }), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const agent = await requireOwnedAgent(ctx, owner(request).ownerId, request.params.agentId);
      const holder = await holderOfKey(ctx, agent.id, request.params.keyId);
      const key = await updateApiKey(ctx, holder, request.params.keyId, request.body);
      return { key: apiKeyView(key, ctx.clock.now()) };
    },
  );

  app.put(
    '/agents/:agentId/low-balance',
    {
      schema: {
        params: AgentParams,
        body: LowBalanceBody,
        response: { 200: Type.Object({ agent: ConsoleAgent }), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const agent = await requireOwnedAgent(ctx, owner(request).ownerId, request.params.agentId);
      return { agent: consoleAgentView(await setLowBalanceAlerts(ctx, agent.id, request.body)) };
    },
  );

  app.post(
    '/agents/:agentId/faucet',
    {
      bodyLimit: SHORT_BODY_LIMIT_BYTES,
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
      bodyLimit: SHORT_BODY_LIMIT_BYTES,
      schema: {
        params: AgentParams,
        body: UsdtTopUpBody,
        response: { 200: Type.Object({ message: WalletMessage }), ...errors(400, 401, 404, 409) },
      },
    },
    async (request) => {
      const agent = await requireOwnedAgent(ctx, owner(request).ownerId, request.params.agentId);
      return { message: await usdtTopUpMessage(ctx, agent.id, request.body, owner(request).walletAddress) };
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

/**
 * The console's bonus dialog (issue 40): a task's bonuses already paid, its limits, and what a
 * bonus of `amount` would take from the balance, by payBonus's own checks and fee (never worked
 * out in the page). Paying is the agent API's POST /tasks/:id/bonus under /agents/:agentId/api.
 */
export const consoleBonusRoutes: Routes = async (app, { ctx }) => {
  app.get(
    '/agents/:agentId/tasks/:taskId/bonuses',
    {
      schema: {
        params: Type.Object({
          agentId: Type.String({ maxLength: 100 }),
          taskId: Type.String({ maxLength: 100 }),
        }),
        querystring: Type.Object({ amount: Type.Optional(Type.String({ maxLength: 40 })) }),
        response: {
          200: Type.Object({
            currency: CurrencySchema,
            bonuses: Type.Array(Bonus, { description: 'Paid on this task, oldest first' }),
            left: Type.Integer({ description: 'Bonuses the task may still take (0: none)' }),
            maxAmount: Amount,
            payableUntil: Nullable(Timestamp),
            balance: Amount,
            quote: Nullable(
              Type.Object({ amount: Amount, fee: Amount, total: Amount, enough: Type.Boolean() }),
            ),
          }),
          ...errors(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const agent = await requireOwnedAgent(ctx, owner(request).ownerId, request.params.agentId);
      const p = await previewBonus(ctx, agent.id, request.params.taskId, request.query.amount);
      const money = (units: bigint) => formatAmount(p.currency, units);
      return {
        currency: p.currency,
        bonuses: p.bonuses.map(bonusView),
        left: p.left,
        maxAmount: money(p.maxAmountNano),
        payableUntil: p.payableUntil,
        balance: money(p.balanceNano),
        quote: p.quote && {
          amount: money(p.quote.amountNano),
          fee: money(p.quote.feeNano),
          total: money(p.quote.totalNano),
          enough: p.balanceNano >= p.quote.totalNano,
        },
      };
    },
  );
};

/** The owner's view of one key (issue 38, scope 4): spending per day and the activity log. */
export const consoleKeyRoutes: Routes = async (app, { ctx }) => {
  const perCurrency = (units: Record<Currency, bigint>) =>
    Object.fromEntries(CURRENCIES.map((c) => [c, formatAmount(c, units[c])])) as Record<Currency, string>;

  app.get(
    '/agents/:agentId/keys/:keyId/spending',
    {
      schema: {
        params: AgentKeyParams,
        response: { 200: Type.Object({ days: Type.Array(KeySpendingDay) }), ...errors(401, 404) },
      },
    },
    async (request) => {
      const agent = await requireOwnedAgent(ctx, owner(request).ownerId, request.params.agentId);
      const { holderId, keyId } = await requireKeyOfAgent(ctx, agent.id, request.params.keyId);
      const days = await keySpendSeries(ctx, holderId, keyId);
      return {
        days: days.map((d) => ({
          day: d.day,
          spent: perCurrency(d.spent),
          refunded: perCurrency(d.refunded),
        })),
      };
    },
  );

  app.get(
    '/agents/:agentId/keys/:keyId/activity',
    {
      schema: {
        params: AgentKeyParams,
        querystring: Type.Object({
          cursor: Type.Optional(Type.String({ maxLength: 300 })),
          q: Type.Optional(
            Type.String({ maxLength: 200, description: 'A task id, or words of a task title' }),
          ),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ACTIVITY_PAGE })),
        }),
        response: {
          200: Type.Object({ items: Type.Array(KeyActivityItem), nextCursor: Nullable(Type.String()) }),
          ...errors(400, 401, 404),
        },
      },
    },
    async (request) => {
      const agent = await requireOwnedAgent(ctx, owner(request).ownerId, request.params.agentId);
      const { holderId, keyId } = await requireKeyOfAgent(ctx, agent.id, request.params.keyId);
      const { items, nextCursor } = await keyActivityPage(ctx, holderId, keyId, request.query);
      return {
        items: items.map((row) => ({
          id: row.id,
          at: row.created_at,
          source: row.source,
          kind: row.kind,
          actor: row.actor,
          taskId: row.task_id,
          taskTitle: row.task_title,
          currency: row.currency,
          amount:
            row.amount_nano === null || row.currency === null
              ? null
              : formatAmount(row.currency as Currency, row.amount_nano),
        })),
        nextCursor,
      };
    },
  );
};

/** The console's approvals queue (issue 38): tasks above a key's approvalAbove, for the owner to decide. */
export const consoleApprovalRoutes: Routes = async (app, { ctx }) => {
  const QueueItem = Type.Intersect([
    Approval,
    Type.Object({
      agent: Type.Object({ id: Type.String(), name: Nullable(Type.String()) }),
      key: Type.Object({ id: Type.String(), name: Nullable(Type.String()), hint: Nullable(Type.String()) }),
    }),
  ]);
  const item = (row: Awaited<ReturnType<typeof approvalsOfOwner>>['pending'][number]) => ({
    ...approvalView(row),
    agent: { id: row.agent_id, name: row.agent_name },
    key: { id: row.api_key_id, name: row.key_name, hint: row.key_hint },
  });
  app.get(
    '/approvals',
    {
      schema: {
        response: {
          200: Type.Object({
            approvals: Type.Array(QueueItem, { description: 'Pending, oldest first' }),
            recent: Type.Array(QueueItem, { description: 'Closed, most recently closed first' }),
            now: { ...Timestamp, description: "The server's time, to measure expiresAt against" },
          }),
          ...errors(401),
        },
      },
    },
    async (request) => {
      const { pending, recent, now } = await approvalsOfOwner(ctx, owner(request).ownerId);
      return { approvals: pending.map(item), recent: recent.map(item), now };
    },
  );

  for (const [action, decide] of [
    ['approve', approveApproval],
    ['decline', declineApproval],
  ] as const) {
    app.post(
      `/approvals/:id/${action}`,
      {
        schema: {
          params: IdParam,
          response: { 200: Type.Object({ approval: Approval }), ...errors(401, 403, 404, 409) },
        },
      },
      async (request) => ({
        approval: approvalView(await decide(ctx, owner(request).ownerId, request.params.id)),
      }),
    );
  }
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

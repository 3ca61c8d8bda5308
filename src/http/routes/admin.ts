import { Type } from 'typebox';
import { createAgent, depositFromChain, getAgent } from '../../domain/agents/agents.js';
import { auditMoney, uncreditedDeposits } from '../../domain/money/audit.js';
import { formatAmount, rowCurrency } from '../../domain/money/currency.js';
import { formatTon } from '../../domain/money/money.js';
import { operatorOverview } from '../../domain/money/operatorOverview.js';
import { listNotificationLog } from '../../telegram/notificationLog.js';
import { sendIdempotent } from '../idempotency.js';
import { pageView } from '../pageView.js';
import { ADMIN_SECURITY, type Routes } from '../routeTypes.js';
import { AgentMe, Transaction } from '../schemas/agent.js';
import { Amount, AmountInput, Currency, errors, IdParam, NextCursor, Nullable } from '../schemas/common.js';
import { Notification, NotificationQuery, notificationView } from '../schemas/notification.js';
import { agentMeView, transactionView } from '../views.js';

const tags = ['Operator'];

const UncreditedDeposit = Type.Object({
  txHash: Type.String(),
  agentId: Type.String(),
  amount: Type.String({ description: 'In `currency`' }),
  currency: Currency,
  fromAddress: Type.String(),
  toAddress: Type.String(),
  reason: Type.String(),
  createdAt: Type.String(),
});
const security = ADMIN_SECURITY;

/** Operator API behind ADMIN_TOKEN (the auth hook is added where this plugin is registered). */
export const adminRoutes: Routes = async (app, { ctx }) => {
  app.post(
    '/admin/agents',
    {
      schema: {
        tags,
        security,
        operationId: 'adminCreateAgent',
        summary: 'Create an agent, its API key and its test key (both shown only in this response)',
        body: Type.Optional(
          Type.Union([Type.Object({ name: Type.Optional(Type.String({ maxLength: 100 })) }), Type.Null()]),
        ),
        response: {
          201: Type.Object({
            agent: AgentMe,
            apiKey: Type.String({ description: 'The live key (hr_...)' }),
            testApiKey: Type.String({
              description:
                'A test key (hr_test_...): its own test world, with faucet money and no real workers (tag Test mode)',
            }),
          }),
          ...errors(400, 401),
        },
      },
    },
    async (request, reply) => {
      const { agent, apiKey, testApiKey } = await createAgent(ctx, { name: request.body?.name });
      return reply.status(201).send({ agent: agentMeView(agent, 0), apiKey, testApiKey });
    },
  );

  app.post(
    '/admin/agents/:id/deposits',
    {
      schema: {
        tags,
        security,
        operationId: 'adminDeposit',
        summary:
          'Top up an agent: a real transfer to the deposit wallet with the agent’s memo, credited from the chain',
        params: IdParam,
        body: Type.Object({
          amount: AmountInput,
          currency: Type.Optional({
            ...Currency,
            description:
              'TON (default) or USDT. Sandbox USDT is credited in the books until the sandbox jetton is wired (no chain transaction: txHash null)',
          }),
        }),
        response: { 201: Type.Object({ transaction: Transaction }), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) =>
      sendIdempotent(
        request,
        reply,
        ctx,
        (c) => depositFromChain(c, request.params.id, request.body.amount, request.body.currency),
        (row) => ({ status: 201, body: { transaction: transactionView({ ...row, task_title: null }) } }),
      ),
  );

  app.get(
    '/admin/agents/:id',
    {
      schema: {
        tags,
        security,
        operationId: 'adminGetAgent',
        summary: 'An agent’s profile and balance',
        params: IdParam,
        response: { 200: Type.Object({ agent: AgentMe }), ...errors(401, 404) },
      },
    },
    async (request) => {
      const { agent, taskCount } = await getAgent(ctx, request.params.id);
      return { agent: agentMeView(agent, taskCount) };
    },
  );

  app.get(
    '/admin/audit',
    {
      schema: {
        tags,
        security,
        operationId: 'adminAudit',
        summary: 'Recompute every agent’s money from the ledger and compare with the stored balances',
        response: {
          200: Type.Object({
            ok: Type.Boolean(),
            agents: Type.Integer(),
            problems: Type.Array(
              Type.Object({ agentId: Type.String(), problems: Type.Array(Type.String()) }),
            ),
            uncreditedDeposits: Type.Array(UncreditedDeposit, {
              description:
                'Transfers that reached the deposit wallet but were not credited (newest 100): settle them by hand',
            }),
          }),
          ...errors(401),
        },
      },
    },
    async () => {
      const audits = await auditMoney(ctx);
      const problems = audits.filter((a) => !a.ok).map((a) => ({ agentId: a.agentId, problems: a.problems }));
      const uncredited = await uncreditedDeposits(ctx);
      return { ok: problems.length === 0, agents: audits.length, problems, uncreditedDeposits: uncredited };
    },
  );

  app.get(
    '/admin/notifications',
    {
      schema: {
        tags,
        security,
        operationId: 'adminListNotifications',
        summary: 'The Telegram notifications to workers, newest first (sent, pending, failed, or recorded)',
        querystring: NotificationQuery,
        response: {
          200: Type.Object({
            notifications: Type.Array(Notification),
            nextCursor: NextCursor,
            hasMore: Type.Boolean(),
          }),
          ...errors(400, 401),
        },
      },
    },
    async (request) => {
      const result = await listNotificationLog(ctx, request.query);
      return pageView(result, 'notifications', (i) => notificationView(i.row, i.message));
    },
  );
};

const Count = Type.Integer({ minimum: 0 });
const Overview = Type.Object({
  checkedAt: Type.String(),
  network: Type.String(),
  health: Type.Object({ database: Type.Enum(['ok', 'down']) }),
  agents: Type.Object(
    {
      count: Count,
      balance: Amount,
      locked: Amount,
      deposited: Amount,
      spent: Amount,
    },
    { description: 'Live agents: their count and their TON sums (`money` has every currency)' },
  ),
  money: Type.Array(
    Type.Object({
      currency: Currency,
      balance: { ...Amount, description: 'What live agents can spend, in `currency`' },
      locked: { ...Amount, description: 'Escrowed in open tasks' },
      deposited: Amount,
      spent: Amount,
      paidOut: { ...Amount, description: 'Paid (or being paid) to workers: payouts and bonuses' },
      fees: { ...Amount, description: 'Fees earned by the platform: task and bonus fees' },
    }),
    { description: 'The money per currency, TON first; two currencies are never added together' },
  ),
  chain: Type.Object({ hotWalletAddress: Type.String(), hotWalletBalance: Amount }),
  deposits: Type.Object({
    unmatched: Type.Integer({
      minimum: 0,
      description: 'Deposits with an unknown memo or below the minimum, open (GET /admin/deposits/unmatched)',
    }),
  }),
  transfers: Type.Object({ pending: Count, failed: Count }),
  webhooks: Type.Object({ pending: Count, failed: Count }),
  notifications: Type.Object({ pending: Count, failed: Count }),
  audit: Type.Object({ ok: Type.Boolean(), problems: Count }),
  approvals: Type.Object({
    pending: Type.Integer({
      minimum: 0,
      description: "Tasks above a key's approvalAbove waiting for their owners, time not up (issue 38)",
    }),
  }),
  topAgents: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Nullable(Type.String()),
      ownerWallet: Nullable(Type.String()),
      balance: Amount,
      lockedByTasks: Amount,
      deposited: Amount,
      spent: Amount,
      usdt: Type.Object(
        { balance: Amount, lockedByTasks: Amount, deposited: Amount, spent: Amount },
        { description: 'The same four in USDT (the ones beside it are TON)' },
      ),
    }),
  ),
  recentDeposits: Type.Array(
    Type.Object({
      id: Type.String(),
      agentId: Type.String(),
      agentName: Nullable(Type.String()),
      amount: Amount,
      currency: Currency,
      fromAddress: Nullable(Type.String()),
      txHash: Nullable(Type.String()),
      createdAt: Type.String(),
    }),
  ),
  openTransfers: Type.Array(
    Type.Object({
      id: Type.String(),
      kind: Type.String(),
      amount: Amount,
      currency: Currency,
      toAddress: Type.String(),
      status: Type.String(),
      attempts: Count,
      lastError: Nullable(Type.String()),
    }),
  ),
});

/** GET /admin/overview: the operator console's one screen of numbers. */
export const adminOverviewRoutes: Routes = async (app, { ctx }) => {
  app.get(
    '/admin/overview',
    {
      schema: {
        operationId: 'adminGetOverview',
        tags,
        security,
        summary: 'Money, chain, stuck work and health on one screen (the operator console)',
        response: { 200: Overview, ...errors(401) },
      },
    },
    async () => {
      const o = await operatorOverview(ctx);
      return {
        checkedAt: o.checkedAt,
        network: o.network,
        health: { database: o.database },
        agents: {
          count: o.totals.count,
          balance: formatTon(o.totals.balanceNano),
          locked: formatTon(o.totals.lockedNano),
          deposited: formatTon(o.totals.depositedNano),
          spent: formatTon(o.totals.spentNano),
        },
        money: o.money.map((m) => ({
          currency: m.currency,
          balance: formatAmount(m.currency, m.balance),
          locked: formatAmount(m.currency, m.locked),
          deposited: formatAmount(m.currency, m.deposited),
          spent: formatAmount(m.currency, m.spent),
          paidOut: formatAmount(m.currency, m.paidOut),
          fees: formatAmount(m.currency, m.fees),
        })),
        chain: {
          hotWalletAddress: o.hotWallet.address,
          hotWalletBalance: formatTon(o.hotWallet.balanceNano),
        },
        deposits: { unmatched: o.unmatchedDeposits },
        transfers: { pending: o.transferCounts.pending, failed: o.transferCounts.failing },
        webhooks: o.deliveries,
        notifications: o.notifications,
        audit: o.audit,
        approvals: { pending: o.pendingApprovals },
        topAgents: o.agents.map((a) => ({
          id: a.id,
          name: a.name,
          ownerWallet: a.owner_wallet,
          balance: formatTon(a.balance_nano),
          lockedByTasks: formatTon(a.locked_nano),
          deposited: formatTon(a.deposited_nano),
          spent: formatTon(a.spent_nano),
          usdt: {
            balance: formatAmount('USDT', a.usdt_balance_micro),
            lockedByTasks: formatAmount('USDT', a.usdt_locked_micro),
            deposited: formatAmount('USDT', a.usdt_deposited_micro),
            spent: formatAmount('USDT', a.usdt_spent_micro),
          },
        })),
        recentDeposits: o.deposits.map((d) => ({
          id: d.id,
          agentId: d.agent_id,
          agentName: d.agent_name,
          // In what arrived: a 50 USDT deposit is 50 USDT, never read as TON.
          amount: formatAmount(rowCurrency(d.currency), d.amount_nano),
          currency: rowCurrency(d.currency),
          fromAddress: d.from_address,
          txHash: d.tx_hash,
          createdAt: d.created_at,
        })),
        openTransfers: o.transfers.map((t) => ({
          id: t.txn_id,
          kind: t.kind,
          amount: formatAmount(rowCurrency(t.currency), t.amount_nano),
          currency: rowCurrency(t.currency),
          toAddress: t.to_address,
          status: t.status,
          attempts: t.attempts,
          lastError: t.last_error,
        })),
      };
    },
  );
};

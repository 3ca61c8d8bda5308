import { Type } from 'typebox';
import {
  assignUnmatchedDeposit,
  depositInstructionsIn,
  markUnmatchedReturned,
  unmatchedDeposits,
} from '../../domain/chain/chainDeposits.js';
import { chainStatus } from '../../domain/chain/chainStatus.js';
import { thisProcess } from '../../domain/chain/lease.js';
import { reconcile } from '../../domain/chain/reconciliation.js';
import { networkUsdtHistory } from '../../domain/chain/usdtChainHistory.js';
import { formatAmount, requestedCurrency } from '../../domain/money/currency.js';
import { SHORT_BODY_LIMIT_BYTES } from '../bodyLimits.js';
import { ADMIN_SECURITY, AGENT_SECURITY, type Routes } from '../routeTypes.js';
import { Transaction } from '../schemas/agent.js';
import { Amount, Currency, errors, Nullable } from '../schemas/common.js';
import { transactionView } from '../views.js';

const DepositInfo = Type.Object({
  network: Type.String({ description: 'sandbox, testnet or mainnet' }),
  address: Type.String({
    description:
      'Send TON here; for USDT, the jetton transfer’s recipient (your wallet app finds the jetton wallets)',
  }),
  memo: Type.String({ description: 'Put this text as the transfer comment, exactly; it names your account' }),
  link: Type.String({
    description:
      'ton://transfer link with the memo as text, for wallet apps; for USDT with jetton=<the USDT jetton master>',
  }),
  minimum: { ...Amount, description: 'The smallest deposit credited, in the currency asked for' },
  currency: Currency,
  jettonMaster: Type.Optional(
    Type.String({ description: 'USDT only: the jetton master; only this jetton is credited as USDT' }),
  ),
});

const DepositQuery = Type.Object({
  currency: Type.Optional({ ...Currency, description: 'TON (default) or USDT' }),
});

/** Agent side: how to top up. */
export const chainAgentRoutes: Routes = async (app, { ctx }) => {
  app.get(
    '/agents/me/deposit',
    {
      schema: {
        tags: ['Agent'],
        security: AGENT_SECURITY,
        operationId: 'getDepositInfo',
        summary:
          'Where to send TON (or, with ?currency=USDT, USDT) to top up your balance: a transfer to the address with your memo as the comment is credited once it is on chain',
        querystring: DepositQuery,
        response: { 200: DepositInfo, ...errors(400, 401, 409) },
      },
    },
    async (request) => {
      const currency = requestedCurrency(ctx.usdt, 'currency', request.query.currency);
      const { minimumNano, ...info } = depositInstructionsIn(ctx, request.agentId, currency);
      return { ...info, currency, minimum: formatAmount(currency, minimumNano) };
    },
  );
};

const UnmatchedDeposit = Type.Object({
  txHash: Type.String(),
  lt: Type.String(),
  fromAddress: Type.String(),
  amount: { ...Amount, description: 'In `currency` (a foreign_jetton deposit: the TON it brought)' },
  currency: { ...Currency, description: 'TON or USDT' },
  memo: Type.String(),
  reason: Type.String({
    description:
      'unknown_memo, below_minimum, unreadable_memo, not_credited, above_limit (USDT past the agent’s limit), or foreign_jetton (a jetton notification not from our USDT jetton wallet: never credited, cannot be assigned)',
  }),
  jetton: Type.Optional(
    Type.Object(
      {
        wallet: Type.String({ description: 'The jetton wallet (or contract) that sent the notification' }),
        claimedAmount: Type.Optional(
          Type.String({
            description: 'foreign_jetton: the amount it claimed, in that jetton’s own smallest units',
          }),
        ),
      },
      { description: 'Jetton deposits only' },
    ),
  ),
  status: Type.String({ description: 'open, assigned or returned' }),
  agentId: Nullable(Type.String()),
  createdAt: Type.String(),
});
const TxHashParam = Type.Object({ txHash: Type.String({ pattern: '^[0-9a-f]{64}$' }) });
const tags = ['Operator'];
const security = ADMIN_SECURITY;

/** Operator side: the chain's state, unmatched deposits and reconciliation. */
export const chainAdminRoutes: Routes = async (app, { ctx, config }) => {
  const me = thisProcess(config.instanceId);
  app.get(
    '/admin/chain',
    {
      schema: {
        operationId: 'adminGetChainStatus',
        tags,
        security,
        summary:
          'Network, hot wallet and its on-chain balance, deposit address, watcher cursor and lag, transfers by state, payout pause, last provider error, the answering instance and which instance holds the chain lease (the sandbox lease in the sandbox); with USDT, `usdt`: the hot wallet’s USDT, its TON left for gas and why USDT payouts are paused',
        response: { 200: Type.Unknown(), ...errors(401) },
      },
    },
    async () => jsonSafe(await chainStatus(ctx, me)),
  );

  app.get(
    '/admin/reconciliation',
    {
      schema: {
        operationId: 'adminReconcile',
        tags,
        security,
        summary:
          'Compare the books with the hot wallet’s history: every incoming transfer booked once, every outgoing one a payout or fee of ours, confirmed rows on chain, pending rows older than an hour; per currency in `currencies` (USDT against its jetton wallets, or its books alone while the jetton layer is not available)',
        response: { 200: Type.Unknown(), ...errors(401, 409) },
      },
    },
    // Network mode with USDT on: USDT against the hot wallet's notifications and its jetton
    // wallet's transfers; otherwise USDT is `chain_side_not_available` with its books.
    async () => {
      const live = ctx.chain.live;
      return jsonSafe(await reconcile(ctx, live ? networkUsdtHistory(ctx, live) : null));
    },
  );

  app.get(
    '/admin/deposits/unmatched',
    {
      schema: {
        operationId: 'adminListUnmatchedDeposits',
        tags,
        security,
        summary:
          'Deposits (TON or USDT) with an unknown or missing memo, below the minimum, or foreign jetton notifications, kept for the operator',
        querystring: Type.Object({
          status: Type.Optional(
            Type.Union([Type.Literal('open'), Type.Literal('assigned'), Type.Literal('returned')]),
          ),
        }),
        response: { 200: Type.Object({ deposits: Type.Array(UnmatchedDeposit) }), ...errors(400, 401) },
      },
    },
    async (request) => {
      const rows = await unmatchedDeposits(ctx, request.query.status ?? 'open');
      return {
        deposits: rows.map((r) => ({
          txHash: r.tx_hash,
          lt: r.lt,
          fromAddress: r.from_address,
          amount: formatAmount(r.currency, r.amount_nano),
          currency: r.currency,
          memo: r.memo,
          reason: r.reason,
          status: r.status,
          agentId: r.agent_id,
          createdAt: r.created_at,
          ...(r.jetton_wallet
            ? {
                jetton: {
                  wallet: r.jetton_wallet,
                  ...(r.jetton_amount !== null ? { claimedAmount: r.jetton_amount } : {}),
                },
              }
            : {}),
        })),
      };
    },
  );

  app.post(
    '/admin/deposits/unmatched/:txHash/assign',
    {
      bodyLimit: SHORT_BODY_LIMIT_BYTES,
      schema: {
        operationId: 'adminAssignUnmatchedDeposit',
        tags,
        security,
        summary:
          'Credit an unmatched deposit to an agent, once: again for the same agent answers the same credit; 409 when the transfer is already credited to another agent or was returned',
        params: TxHashParam,
        body: Type.Object({ agentId: Type.String({ maxLength: 100 }) }),
        response: { 201: Type.Object({ transaction: Transaction }), ...errors(400, 401, 404, 409) },
      },
    },
    async (request, reply) => {
      const row = await assignUnmatchedDeposit(ctx, request.params.txHash, request.body.agentId);
      return reply.status(201).send({ transaction: transactionView({ ...row, task_title: null }) });
    },
  );

  app.post(
    '/admin/deposits/unmatched/:txHash/returned',
    {
      schema: {
        operationId: 'adminMarkUnmatchedDepositReturned',
        tags,
        security,
        summary: 'Record that you sent an unmatched deposit back to its sender; it leaves the open list',
        params: TxHashParam,
        response: { 200: Type.Object({ status: Type.String() }), ...errors(400, 401, 404, 409) },
      },
    },
    async (request) => ({ status: (await markUnmatchedReturned(ctx, request.params.txHash)).status }),
  );
};

/** Bigint nanotons as decimal strings, so the operator view serializes exactly. */
function jsonSafe(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v)));
}

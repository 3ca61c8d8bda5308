import { payBonus } from '../../domain/money/bonuses.js';
import { paidBonusView } from '../bonusViews.js';
import { requiredIdempotencyKey, sendIdempotent } from '../idempotency.js';
import { AGENT_SECURITY, type Routes } from '../routeTypes.js';
import { BonusBody, BonusResult } from '../schemas/bonus.js';
import { errors, example, IdParam } from '../schemas/common.js';
import { InsufficientBalance } from '../schemas/task.js';

const WALLET = '0QA9q04oVvvcDgRJnEHxFFY7Y1kfd0Xkm5K6fT4uVsHuy8n7';

/** Bonuses (issue 40): paying a worker more than the reward, once per Idempotency-Key. */
export const bonusRoutes: Routes = async (app, { ctx }) => {
  app.post(
    '/tasks/:id/bonus',
    {
      schema: {
        tags: ['Tasks'],
        security: AGENT_SECURITY,
        operationId: 'payBonus',
        summary: 'Pay the worker a bonus for a completed task, on chain; an Idempotency-Key is required',
        description:
          'For a COMPLETED task whose worker was paid, within 30 days of its completion, at most 5 bonuses per ' +
          'task, each at most 10 times the reward. The bonus plus the 30% platform fee on it come from your ' +
          'balance of the task’s currency at once (402 with the arithmetic if it is short) and count toward ' +
          'your key’s spend limits; the bonus goes to the worker’s wallet as a payout does, the worker is told ' +
          'in Telegram with your reason, and you hear task.bonus_paid. The ledger shows BONUS and BONUS_FEE ' +
          'rows; the task’s settlement shows its bonuses. The Idempotency-Key is required: the same key always ' +
          'answers with the bonus it paid, even after 24 hours, so a retry never pays twice.',
        params: IdParam,
        body: example(BonusBody, { amount: '2', reason: 'Sharp photos, and the opening hours too' }),
        response: {
          201: example(BonusResult, {
            bonus: {
              id: 'bon_01jq7v01x4m2c8w6t0r9b5k3n1p7',
              amount: '2',
              fee: '0.6',
              currency: 'TON',
              reason: 'Sharp photos, and the opening hours too',
              createdAt: '2026-03-14T09:30:00.000Z',
            },
            task: { id: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7', bonusCount: 1 },
            payment: { toAddress: WALLET, txHash: null, pending: true },
            feePayment: { toAddress: WALLET, txHash: null, pending: true },
          }),
          402: example(InsufficientBalance, {
            error: 'Insufficient balance',
            currentBalance: '2',
            requiredAmount: '2.6',
            currency: 'TON',
            message:
              'This bonus costs 2.6 TON (bonus 2 TON + 30% fee 0.6 TON); your TON balance is 2 TON, 0.6 TON short. Nothing was paid: top up your TON balance and try again.',
          }),
          ...errors(400, 401, 403, 404, 409, 422, 429, {
            404: 'Task not found',
            409: 'This task already has 5 bonuses, the most one task takes; nothing was paid',
          }),
        },
      },
    },
    async (request, reply) => {
      const idempotencyKey = requiredIdempotencyKey(request);
      return sendIdempotent(
        request,
        reply,
        ctx,
        (c) =>
          payBonus(c, request.agentId, request.params.id, request.body, {
            idempotencyKey,
            keyId: request.apiKey?.keyId ?? null,
          }),
        (paid) => ({ status: 201, body: paidBonusView(paid) }),
      );
    },
  );
};

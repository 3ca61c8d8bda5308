import { Type } from 'typebox';
import { formatAmount } from '../../domain/money/currency.js';
import { reputationOf } from '../../domain/trust/agentReputation.js';
import { acceptPartialPayment } from '../../domain/trust/partialPayment.js';
import { sendIdempotent } from '../idempotency.js';
import { type Routes, WORKER_SECURITY } from '../routeTypes.js';
import { Amount, Currency, errors, IdParam, Nullable } from '../schemas/common.js';
import { WorkerTask } from '../schemas/workerApi.js';
import { workerTaskView } from '../views.js';

/** The worker's answer to a graded approval (issue 40): taking the offered part of the reward. */
export const workerPartialPaymentRoutes: Routes = async (app, { ctx }) => {
  app.post(
    '/worker/tasks/:id/partial/accept',
    {
      schema: {
        tags: ['Worker'],
        security: WORKER_SECURITY,
        operationId: 'acceptPartialPayment',
        summary:
          'Accept the agent’s offer of part of the reward for your work: it is paid to your wallet now',
        description:
          'The task completes with the offered amount (partialOffer on the task); the rest of the reward is not ' +
          'paid. To contest it instead, open a dispute (POST /worker/tasks/:id/dispute) before partialOffer.acceptBy; ' +
          'silence accepts it then.',
        params: IdParam,
        response: {
          200: Type.Object({
            task: WorkerTask,
            payment: Type.Object({
              amount: { ...Amount, description: 'Sent to your wallet, in the task’s currency' },
              currency: Currency,
              toAddress: Type.String({ description: 'Your TON wallet' }),
              txHash: Nullable(
                Type.String({ description: 'null while the transfer is pending; it is retried' }),
              ),
              pending: Type.Boolean({ description: 'true until the transfer is confirmed on chain' }),
            }),
          }),
          ...errors(401, 403, 404, 409),
        },
      },
    },
    async (request, reply) =>
      sendIdempotent(
        request,
        reply,
        ctx,
        (c) => acceptPartialPayment(c, request.workerId, request.params.id),
        async ({ task, payout }, db) => ({
          status: 200,
          body: {
            task: workerTaskView(task, await reputationOf(db, task.agent_id)),
            payment: {
              amount: formatAmount(payout.currency, payout.amount_nano),
              currency: payout.currency,
              toAddress: payout.to_address ?? '',
              txHash: payout.tx_hash,
              pending: payout.status !== 'confirmed',
            },
          },
        }),
      ),
  );
};

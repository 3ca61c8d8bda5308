import { Type } from 'typebox';
import type { QueueRow } from '../../db/repositories/disputes.js';
import type { TransactionRow } from '../../db/repositories/executor.js';
import { taskOwnerOf } from '../../domain/agents/testMode.js';
import { disputeDetail, disputeQueue } from '../../domain/disputes/disputeQueries.js';
import { resolutionView, resolveDispute } from '../../domain/disputes/disputeResolution.js';
import { formatAmount } from '../../domain/money/currency.js';
import { submissionView } from '../../domain/trust/submissions.js';
import { disputeView } from '../disputeViews.js';
import { sendIdempotent } from '../idempotency.js';
import { pageView } from '../pageView.js';
import { ADMIN_SECURITY, type Routes } from '../routeTypes.js';
import { DisputeQueueItem, DisputeQueueQuery, ResolveBody, ResolveResult } from '../schemas/adminDispute.js';
import { Message } from '../schemas/chat.js';
import { errors, IdParam, NextCursor, Nullable, Timestamp } from '../schemas/common.js';
import { Dispute } from '../schemas/dispute.js';
import { Submission } from '../schemas/submission.js';
import { Task } from '../schemas/task.js';
import { messageView, taskView } from '../views.js';

const tags = ['Operator'];
const security = ADMIN_SECURITY;

const AdminDisputeDetail = Type.Object({
  dispute: Dispute,
  openedAt: Timestamp,
  task: Task,
  agent: Type.Object({ id: Type.String(), name: Nullable(Type.String()) }),
  worker: Type.Object({
    id: Type.String(),
    firstName: Type.String(),
    lastName: Nullable(Type.String()),
    username: Nullable(Type.String({ description: 'Telegram username (operators see it always)' })),
    walletAddress: Nullable(Type.String()),
  }),
  submissions: Type.Array(Submission, {
    description: 'Every submission of the task with its files, newest first',
  }),
  messages: Type.Array(Message, { description: 'The task’s whole chat, oldest first' }),
  moreMessages: Type.Boolean({
    description: 'true when older messages than these exist (only the newest 1000 are shown)',
  }),
});

/** The operators' dispute queue and resolution (issue 25), behind ADMIN_TOKEN like the rest of /admin. */
export const adminDisputeRoutes: Routes = async (app, { ctx }) => {
  app.get(
    '/admin/disputes',
    {
      schema: {
        tags,
        security,
        operationId: 'adminListDisputes',
        summary: 'Disputes by status (OPEN by default), oldest first: the queue to judge',
        querystring: DisputeQueueQuery,
        response: {
          200: Type.Object({
            disputes: Type.Array(DisputeQueueItem),
            nextCursor: NextCursor,
            hasMore: Type.Boolean(),
          }),
          ...errors(400, 401),
        },
      },
    },
    async (request) => {
      const result = await disputeQueue(ctx, request.query);
      const nowMs = ctx.clock.now().getTime();
      return pageView(result, 'disputes', (row) => queueItemView(row, nowMs));
    },
  );

  app.get(
    '/admin/disputes/:id',
    {
      schema: {
        tags,
        security,
        operationId: 'adminGetDispute',
        summary: 'A dispute with everything needed to judge it: task, parties, statements, the whole chat',
        params: IdParam,
        response: { 200: AdminDisputeDetail, ...errors(401, 404) },
      },
    },
    async (request) => {
      const d = await disputeDetail(ctx, request.params.id);
      return {
        dispute: disputeView(d.dispute, d.statements),
        openedAt: d.dispute.created_at,
        task: taskView(
          d.task,
          taskOwnerOf(d.agent),
          d.worker,
          undefined,
          d.submissions[0] ?? null,
          disputeView(d.dispute, d.statements),
        ),
        submissions: d.submissions.map(submissionView),
        agent: { id: d.agent.id, name: d.agent.name },
        worker: {
          id: d.worker.id,
          firstName: d.worker.first_name,
          lastName: d.worker.last_name,
          username: d.worker.username,
          walletAddress: d.worker.wallet_address,
        },
        messages: d.messages.map(messageView),
        moreMessages: d.moreMessages,
      };
    },
  );

  app.post(
    '/admin/disputes/:id/resolve',
    {
      schema: {
        tags,
        security,
        operationId: 'adminResolveDispute',
        summary:
          'Resolve a dispute: workerAmount (0, or 0.01 to the reward) to the worker on chain, the fee in proportion, the rest back to the agent',
        params: IdParam,
        body: ResolveBody,
        response: { 200: ResolveResult, ...errors(400, 401, 404, 409) },
      },
    },
    async (request, reply) =>
      sendIdempotent(
        request,
        reply,
        ctx,
        (c) => resolveDispute(c, request.params.id, request.body),
        async (done, db) => {
          const detail = await disputeDetail({ ...ctx, db }, done.dispute.id);
          return {
            status: 200,
            body: {
              dispute: disputeView(detail.dispute, detail.statements),
              task: { id: done.task.id, status: done.task.status, paymentStatus: done.task.payment_status },
              payout: transferView(done.payout),
              fee: transferView(done.fee),
              refund: done.refund
                ? {
                    amount: formatAmount(done.refund.currency, done.refund.amount_nano),
                    destination: 'agent_balance' as const,
                    currency: done.refund.currency,
                  }
                : null,
            },
          };
        },
      ),
  );
};

function transferView(row: TransactionRow | null) {
  if (!row) return null;
  return {
    amount: formatAmount(row.currency, row.amount_nano),
    currency: row.currency,
    toAddress: row.to_address ?? '',
    txHash: row.tx_hash,
    status: row.status,
  };
}

function queueItemView(row: QueueRow, nowMs: number) {
  return {
    id: row.id,
    status: row.status,
    openedBy: row.opened_by,
    reason: row.reason,
    createdAt: row.created_at,
    ageSeconds: Math.max(0, Math.floor((nowMs - Date.parse(row.created_at)) / 1000)),
    task: {
      id: row.task_id,
      title: row.task_title,
      status: row.task_status,
      // The dispute's currency is its task's (copied when it opened).
      currency: row.currency,
      reward: formatAmount(row.currency, row.reward_nano),
      platformFee: formatAmount(row.currency, row.fee_nano),
      totalAmount: formatAmount(row.currency, row.total_nano),
    },
    agent: { id: row.agent_id, name: row.agent_name },
    worker: { id: row.worker_id, firstName: row.worker_first_name, username: row.worker_username },
    resolution: resolutionView(row),
  };
}

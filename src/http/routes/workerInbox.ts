import { Type } from 'typebox';
import { type CURRENCIES, formatAmount } from '../../domain/money/currency.js';
import {
  earningsOfWorker,
  markChatRead,
  ratingsOfWorker,
  unreadOfWorker,
} from '../../domain/workers/workerInbox.js';
import { SHORT_BODY_LIMIT_BYTES } from '../bodyLimits.js';
import { pageView } from '../pageView.js';
import { type Routes, WORKER_SECURITY } from '../routeTypes.js';
import { Amount, errors, NextCursor, Nullable, TaskIdParam, Timestamp } from '../schemas/common.js';
import { PageQuery } from '../schemas/workerApi.js';

const tags = ['Worker'];
const security = WORKER_SECURITY;

const UnreadChat = Type.Object({
  taskId: Type.String(),
  unread: Type.Integer({ minimum: 1, description: 'At most 100: a count stops there' }),
});

/** A worker's rewards in one currency, in that currency's units. */
const EarningTotals = Type.Object({
  paid: { ...Amount, description: 'Payouts confirmed on chain' },
  onTheWay: { ...Amount, description: 'Payouts sent, not confirmed yet' },
  inReview: { ...Amount, description: 'Rewards of your tasks waiting for the agent’s review' },
  inReviewTasks: Type.Integer({ minimum: 0 }),
});

const ReceivedRating = Type.Object({
  id: Type.String(),
  taskId: Type.String(),
  taskTitle: Type.String(),
  score: Type.Integer({ minimum: 1, maximum: 5 }),
  comment: Nullable(Type.String()),
  createdAt: Timestamp,
});

/**
 * What the Mini App's badges and earnings screen read: unread chat messages (with the read
 * marker the chat screen moves), the worker's money by stage, and the agents' ratings.
 */
export const workerInboxRoutes: Routes = async (app, { ctx }) => {
  app.get(
    '/worker/chats/unread',
    {
      schema: {
        tags,
        security,
        operationId: 'workerUnreadCounts',
        summary: 'Unread agent messages per task (your 100 most recently active chats)',
        response: {
          200: Type.Object({ total: Type.Integer({ minimum: 0 }), chats: Type.Array(UnreadChat) }),
          ...errors(401),
        },
      },
    },
    async (request) => unreadOfWorker(ctx, request.workerId),
  );

  app.put(
    '/worker/chat/:taskId/read',
    {
      bodyLimit: SHORT_BODY_LIMIT_BYTES,
      schema: {
        tags,
        security,
        operationId: 'workerMarkChatRead',
        summary: 'Mark a task’s chat read up to a message (the marker never moves back)',
        params: TaskIdParam,
        body: Type.Object({ messageId: Type.String({ maxLength: 100 }) }),
        response: {
          200: Type.Object({
            moved: Type.Boolean({ description: 'false when the marker was already at or past the message' }),
          }),
          ...errors(400, 401, 404),
        },
      },
    },
    async (request) => ({
      moved: await markChatRead(ctx, request.workerId, request.params.taskId, request.body.messageId),
    }),
  );

  app.get(
    '/worker/earnings',
    {
      schema: {
        tags,
        security,
        operationId: 'workerEarnings',
        summary: 'Your rewards: paid, on the way to your wallet, and waiting for the agent’s review',
        response: {
          200: Type.Object({
            paid: {
              ...Amount,
              description: 'TON paid (the TON figures stay at the top level for older clients)',
            },
            onTheWay: { ...Amount, description: 'TON on the way' },
            inReview: { ...Amount, description: 'TON in review' },
            inReviewTasks: Type.Integer({ minimum: 0, description: 'Tasks in review paying TON' }),
            currency: Type.Literal('TON', { description: 'The currency of the top-level figures' }),
            byCurrency: Type.Object(
              { TON: EarningTotals, USDT: EarningTotals },
              { description: 'The same sums per currency, each in its own currency; never added together' },
            ),
          }),
          ...errors(401),
        },
      },
    },
    async (request) => {
      const totals = await earningsOfWorker(ctx, request.workerId);
      const view = (currency: (typeof CURRENCIES)[number]) => ({
        paid: formatAmount(currency, totals[currency].paid),
        onTheWay: formatAmount(currency, totals[currency].onTheWay),
        inReview: formatAmount(currency, totals[currency].inReview),
        inReviewTasks: totals[currency].inReviewTasks,
      });
      return {
        ...view('TON'),
        currency: 'TON' as const,
        byCurrency: { TON: view('TON'), USDT: view('USDT') },
      };
    },
  );

  app.get(
    '/worker/ratings',
    {
      schema: {
        tags,
        security,
        operationId: 'workerRatings',
        summary: 'Ratings agents gave you, with their comments, newest first',
        querystring: PageQuery,
        response: {
          200: Type.Object({
            ratings: Type.Array(ReceivedRating),
            nextCursor: NextCursor,
            hasMore: Type.Boolean(),
          }),
          ...errors(400, 401),
        },
      },
    },
    async (request) => {
      const result = await ratingsOfWorker(ctx, request.workerId, request.query);
      return pageView(result, 'ratings', (r) => ({
        id: r.id,
        taskId: r.task_id,
        taskTitle: r.task_title,
        score: r.score,
        comment: r.comment,
        createdAt: r.created_at,
      }));
    },
  );
};

import { type TSchema, Type } from 'typebox';
import type { EventType } from '../../domain/events.js';
import { Amount, Currency, Nullable, Timestamp } from './common.js';
import { DisputeResolution } from './dispute.js';
import { Submission } from './submission.js';

const Person = Type.Object({ id: Type.String(), name: Type.String() });
const WorkerEvent = Type.Object({ taskId: Type.String(), applicationId: Type.String(), worker: Person });
const DisputeEvent = Type.Object({
  id: Type.String(),
  status: Type.Enum(['OPEN', 'RESOLVED']),
  openedBy: Type.Enum(['AGENT', 'WORKER']),
  reason: Type.String(),
  createdAt: Timestamp,
  resolution: Nullable(DisputeResolution),
});

/** The `data` of each webhook event, as the service sends it. */
const EVENT_DATA: Record<EventType | 'webhook.test', { summary: string; data: TSchema }> = {
  'application.received': {
    summary: 'A worker applied to your task',
    data: Type.Object({ applicationId: Type.String(), taskId: Type.String(), applicant: Person }),
  },
  'application.accepted': { summary: 'You accepted an application; the chat is open', data: WorkerEvent },
  'application.rejected': {
    summary: 'An application was rejected because you accepted another',
    data: WorkerEvent,
  },
  'message.received': {
    summary: 'The worker sent a message',
    data: Type.Object({
      chatId: Type.String(),
      taskId: Type.String(),
      messageId: Type.String(),
      content: Type.String(),
      hasFile: Type.Boolean(),
    }),
  },
  'offer.accepted': { summary: 'The worker accepted your direct offer', data: WorkerEvent },
  'offer.declined': {
    summary: 'The worker declined your direct offer; the task is open to all',
    data: WorkerEvent,
  },
  'task.funded': {
    summary: 'The task was created and its total escrowed from your balance',
    data: Type.Object({
      taskId: Type.String(),
      deposit: Type.Object({ amount: Amount, txHash: Type.Null(), currency: Currency }),
    }),
  },
  'task.completed': {
    summary:
      'The task was completed (by you, or for you when the review window ended: autoReleased); the payout is being sent',
    data: Type.Object({
      taskId: Type.String(),
      payment: Type.Object({ amount: Amount, toAddress: Type.String(), currency: Currency }),
      autoReleased: Type.Optional(
        Type.Boolean({ description: 'true when the review window ended without your answer' }),
      ),
    }),
  },
  'task.submitted': {
    summary:
      'The worker submitted work for review: approve it (POST /tasks/:id/complete), ask for a revision or open a dispute before reviewDeadline, or it is approved for you',
    data: Type.Object({ taskId: Type.String(), reviewDeadline: Timestamp, submission: Submission }),
  },
  'task.review_reminder': {
    summary: 'A quarter of the review window is left; at reviewDeadline the submission is approved for you',
    data: Type.Object({ taskId: Type.String(), submissionId: Type.String(), reviewDeadline: Timestamp }),
  },
  'task.expired': {
    summary: 'The worker missed the execution deadline; the task is open again',
    data: Type.Object({ taskId: Type.String(), workerId: Type.String() }),
  },
  'payment.sent': {
    summary: 'The reward landed in the worker’s wallet on chain',
    data: Type.Object({
      taskId: Type.String(),
      payment: Type.Object({
        amount: Amount,
        toAddress: Type.String(),
        txHash: Type.String(),
        currency: Currency,
      }),
    }),
  },
  'refund.processed': {
    summary: 'The task was cancelled and its total returned to your balance',
    data: Type.Object({
      taskId: Type.String(),
      refund: Type.Object({
        amount: Amount,
        destination: Type.Literal('agent_balance'),
        reason: Nullable(Type.String()),
        currency: Currency,
      }),
    }),
  },
  'rating.received': {
    summary: 'The worker rated you',
    data: Type.Object({
      taskId: Type.String(),
      rating: Type.Object({
        id: Type.String(),
        raterType: Type.Literal('USER'),
        score: Type.Integer(),
        comment: Nullable(Type.String()),
      }),
    }),
  },
  'deposit.received': {
    summary: 'A deposit to your account was credited from the chain',
    data: Type.Object({
      deposit: Type.Object({
        amount: Amount,
        fromAddress: Type.String(),
        txHash: Nullable(
          Type.String({
            description:
              'The chain transaction; null only for a sandbox USDT faucet credit made in the books before the jetton chain layer exists',
          }),
        ),
        currency: Currency,
      }),
    }),
  },
  'webhook.endpoint_quarantined': {
    summary:
      'Your endpoint kept taking requests without answering in time: deliveries to it are held (not lost, no attempt counted) until the quarantine ends or POST /agents/webhooks/endpoints/resume',
    data: Type.Object({
      origin: Type.String({ description: 'The endpoint: scheme://host:port of the webhook URL' }),
      quarantinedUntil: Timestamp,
      consecutiveTimeouts: Type.Integer(),
      lastError: Nullable(Type.String()),
      message: Type.String(),
    }),
  },
  'dispute.opened': {
    summary:
      'A dispute was opened on your task (by you or the worker): the escrow stays locked and the review clock stops until an operator resolves it',
    data: Type.Object({ taskId: Type.String(), dispute: DisputeEvent }),
  },
  'dispute.resolved': {
    summary:
      'An operator resolved the dispute: workerAmount goes to the worker on chain, the fee in proportion to the platform, agentAmount back to your balance',
    data: Type.Object({ taskId: Type.String(), dispute: DisputeEvent }),
  },
  'webhook.test': {
    summary: 'Sent by POST /agents/webhooks to check your receiver',
    data: Type.Object({ agentId: Type.String(), message: Type.String() }),
  },
};

const HEADERS = [
  [
    'X-Service-Signature',
    'Hex HMAC-SHA256 of the raw body, keyed with your API key; compare in constant time',
  ],
  ['X-Service-Event', 'The event type'],
  ['X-Service-Timestamp', 'When the event happened (ISO 8601)'],
  ['X-Service-Delivery-Id', 'Stable across retries of one delivery: de-duplicate on it'],
  ['webhook-id', 'Standard Webhooks: the delivery id, the same on every retry (de-duplicate on it)'],
  [
    'webhook-timestamp',
    'Standard Webhooks: when this attempt was sent, in Unix seconds; refuse one more than 5 minutes off',
  ],
  [
    'webhook-signature',
    'Standard Webhooks v1: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>`, key = your API key as bytes (see docs/webhooks.md)',
  ],
] as const;

/** OpenAPI 3.1 `webhooks`: one entry per event the service posts to your webhook URL. */
export function webhookDocs() {
  return Object.fromEntries(
    Object.entries(EVENT_DATA).map(([event, { summary, data }]) => [
      event,
      {
        post: {
          summary,
          description:
            'Answer 2xx within 10 s. Otherwise the delivery is retried 3 times with growing delays, then marked failed (see GET /agents/webhooks/deliveries).',
          parameters: HEADERS.map(([name, description]) => ({
            name,
            in: 'header' as const,
            required: true,
            description,
            schema: { type: 'string' as const },
          })),
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: Type.Object({ event: Type.Literal(event), timestamp: Timestamp, data }),
              },
            },
          },
          responses: { '200': { description: 'Any 2xx acknowledges the delivery' } },
        },
      },
    ]),
  );
}

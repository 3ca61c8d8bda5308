import { type TSchema, Type } from 'typebox';
import type { EventType } from '../../domain/events/events.js';
import { Amount, Currency, Nullable, Timestamp } from './common.js';
import { DisputeResolution } from './dispute.js';
import { PartialOffer } from './settlement.js';
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

const TASK = 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7';
const AGENT = 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7';
const WORKER = 'wrk_01jq7v01x4m2c8w6t0r9b5k3n1p7';
const WALLET = '0QA9q04oVvvcDgRJnEHxFFY7Y1kfd0Xkm5K6fT4uVsHuy8n7';
const AT = '2026-03-14T09:30:00.000Z';
const APPROVAL = 'apr_01jq7v01x4m2c8w6t0r9b5k3n1p7';

/**
 * The `data` of each webhook event, as the service sends it, with an example the API reference
 * shows (test/http/openapiExamples.test.ts checks it against `data`).
 */
const EVENT_DATA: Record<EventType | 'webhook.test', { summary: string; data: TSchema; example: object }> = {
  'application.received': {
    summary: 'A worker applied to your task',
    data: Type.Object({ applicationId: Type.String(), taskId: Type.String(), applicant: Person }),
    example: {
      applicationId: 'app_01jq7v01x4m2c8w6t0r9b5k3n1p7',
      taskId: TASK,
      applicant: { id: WORKER, name: 'Ana' },
    },
  },
  'application.accepted': {
    summary: 'You accepted an application; the chat is open',
    data: WorkerEvent,
    example: {
      taskId: TASK,
      applicationId: 'app_01jq7v01x4m2c8w6t0r9b5k3n1p7',
      worker: { id: WORKER, name: 'Ana' },
    },
  },
  'application.rejected': {
    summary: 'An application was rejected because you accepted another',
    data: WorkerEvent,
    example: {
      taskId: TASK,
      applicationId: 'app_01jq7v01x4m2c8w6t0r9b5k3n1p7',
      worker: { id: WORKER, name: 'Ana' },
    },
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
    example: {
      chatId: 'cht_01jq7v01x4m2c8w6t0r9b5k3n1p7',
      taskId: TASK,
      messageId: 'msg_01jq7v02x4m2c8w6t0r9b5k3n1p7',
      content: 'On it.',
      hasFile: false,
    },
  },
  'offer.accepted': {
    summary: 'The worker accepted your direct offer',
    data: WorkerEvent,
    example: {
      taskId: TASK,
      applicationId: 'app_01jq7v01x4m2c8w6t0r9b5k3n1p7',
      worker: { id: WORKER, name: 'Ana' },
    },
  },
  'offer.declined': {
    summary: 'The worker declined your direct offer; the task is open to all',
    data: WorkerEvent,
    example: {
      taskId: TASK,
      applicationId: 'app_01jq7v01x4m2c8w6t0r9b5k3n1p7',
      worker: { id: WORKER, name: 'Ana' },
    },
  },
  'task.funded': {
    summary: 'The task was created and its total escrowed from your balance',
    data: Type.Object({
      taskId: Type.String(),
      deposit: Type.Object({ amount: Amount, txHash: Type.Null(), currency: Currency }),
    }),
    example: { taskId: TASK, deposit: { amount: '8.45', txHash: null, currency: 'TON' } },
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
      partial: Type.Optional(
        Type.Boolean({
          description:
            'true when your offer of part of the reward was paid (the worker accepted it, or its window ended); the fee was taken in proportion and the rest returned to your balance',
        }),
      ),
    }),
    example: {
      taskId: TASK,
      payment: { amount: '6.5', toAddress: WALLET, currency: 'TON' },
      autoReleased: false,
    },
  },
  'task.bonus_paid': {
    summary: 'You paid the worker a bonus for a completed task (POST /tasks/:id/bonus); it is being sent',
    data: Type.Object({
      taskId: Type.String(),
      bonus: Type.Object({
        id: Type.String(),
        amount: Amount,
        fee: Amount,
        currency: Currency,
        reason: Type.String(),
        createdAt: Timestamp,
        toAddress: Type.String(),
      }),
    }),
    example: {
      taskId: TASK,
      bonus: {
        id: 'bon_01jq7v01x4m2c8w6t0r9b5k3n1p7',
        amount: '2',
        fee: '0.6',
        currency: 'TON',
        reason: 'Sharp photos, and the opening hours too',
        createdAt: AT,
        toAddress: WALLET,
      },
    },
  },
  'task.partial_offered': {
    summary:
      'You offered part of the reward for the waiting submission; the worker accepts it, disputes it, or the review window ends and it is paid',
    data: Type.Object({ taskId: Type.String(), partialOffer: PartialOffer }),
    example: {
      taskId: TASK,
      partialOffer: {
        amount: '3',
        currency: 'TON',
        reason: 'Two of the five photos are of the wrong shelf',
        offeredAt: AT,
        acceptBy: '2026-03-17T09:30:00.000Z',
      },
    },
  },
  'task.submitted': {
    summary:
      'The worker submitted work for review: approve it (POST /tasks/:id/complete), ask for a revision or open a dispute before reviewDeadline, or it is approved for you',
    data: Type.Object({ taskId: Type.String(), reviewDeadline: Timestamp, submission: Submission }),
    example: {
      taskId: TASK,
      reviewDeadline: '2026-03-16T09:30:00.000Z',
      submission: {
        id: 'sub_01jq7v01x4m2c8w6t0r9b5k3n1p7',
        number: 1,
        note: 'The front, from the square',
        attachments: [
          {
            fileUrl: 'http://localhost:3000/files/upl_01jq7v01x4m2c8w6t0r9b5k3n1p7/town-hall.jpg',
            name: 'town-hall.jpg',
            contentType: 'image/jpeg',
            size: 184320,
          },
        ],
        location: { latitude: 52.5162, longitude: 13.3778, accuracyMeters: 12, withinArea: true },
        createdAt: AT,
        status: 'PENDING',
        revisionReason: null,
      },
    },
  },
  'task.review_reminder': {
    summary: 'A quarter of the review window is left; at reviewDeadline the submission is approved for you',
    data: Type.Object({ taskId: Type.String(), submissionId: Type.String(), reviewDeadline: Timestamp }),
    example: {
      taskId: TASK,
      submissionId: 'sub_01jq7v01x4m2c8w6t0r9b5k3n1p7',
      reviewDeadline: '2026-03-16T09:30:00.000Z',
    },
  },
  'task.expired': {
    summary: 'The worker missed the execution deadline; the task is open again',
    data: Type.Object({ taskId: Type.String(), workerId: Type.String() }),
    example: { taskId: TASK, workerId: WORKER },
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
    example: {
      taskId: TASK,
      payment: {
        amount: '6.5',
        toAddress: WALLET,
        txHash: '2acca358b136f6175fd2b96ea7b3d84fc3d44ae0468fdd786727b5b294ac1a6e',
        currency: 'TON',
      },
    },
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
    example: {
      taskId: TASK,
      refund: {
        amount: '8.45',
        destination: 'agent_balance',
        reason: 'Not needed any more',
        currency: 'TON',
      },
    },
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
    example: {
      taskId: TASK,
      rating: { id: 'rat_01jq7v02x4m2c8w6t0r9b5k3n1p7', raterType: 'USER', score: 5, comment: 'Clear brief' },
    },
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
    example: {
      deposit: {
        amount: '50',
        fromAddress: 'UQBvXq1o5MZ2d3h0ZCgL9vEo1x9n0N7nQYp6m8y3c1r4kVHt',
        txHash: '02573877040365baa09e6fd331632f2d2493ebaf95eb82913b602fd3b05adc9d',
        currency: 'USDT',
      },
    },
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
    example: {
      origin: 'https://agent.example.com:443',
      quarantinedUntil: '2026-03-14T10:00:00.000Z',
      consecutiveTimeouts: 5,
      lastError: 'Timed out after 10000 ms',
      message:
        'Your webhook endpoint took requests and did not answer in time, several times in a row. ' +
        'Deliveries to it are held (none is lost or counted as an attempt) and resume by themselves ' +
        'when the quarantine ends, one delivery first. Fix the receiver so it answers 2xx quickly ' +
        '(queue slow work), then resume at once with POST /agents/webhooks/endpoints/resume.',
    },
  },
  'dispute.opened': {
    summary:
      'A dispute was opened on your task (by you or the worker): the escrow stays locked and the review clock stops until an operator resolves it',
    data: Type.Object({ taskId: Type.String(), dispute: DisputeEvent }),
    example: {
      taskId: TASK,
      dispute: {
        id: 'dsp_01jq7v01x4m2c8w6t0r9b5k3n1p7',
        status: 'OPEN',
        openedBy: 'AGENT',
        reason: 'The photo shows the back of the building',
        createdAt: AT,
        resolution: null,
      },
    },
  },
  'dispute.resolved': {
    summary:
      'An operator resolved the dispute: workerAmount goes to the worker on chain, the fee in proportion to the platform, agentAmount back to your balance',
    data: Type.Object({ taskId: Type.String(), dispute: DisputeEvent }),
    example: {
      taskId: TASK,
      dispute: {
        id: 'dsp_01jq7v01x4m2c8w6t0r9b5k3n1p7',
        status: 'RESOLVED',
        openedBy: 'AGENT',
        reason: 'The photo shows the back of the building',
        createdAt: AT,
        resolution: {
          workerAmount: '4',
          platformFee: '1.2',
          agentAmount: '3.25',
          note: 'Half the photo was usable',
          resolvedAt: AT,
          currency: 'TON',
        },
      },
    },
  },
  'batch.created': {
    summary:
      'A batch was created: all its tasks FUNDED and their sum escrowed (instead of a task.funded per task)',
    data: Type.Object({
      batchId: Type.String(),
      count: Type.Integer(),
      currency: Currency,
      totalAmount: Amount,
      maxPerWorker: Nullable(Type.Integer()),
    }),
    example: {
      batchId: 'bat_01jq7v01x4m2c8w6t0r9b5k3n1p7',
      count: 50,
      currency: 'TON',
      totalAmount: '130',
      maxPerWorker: 1,
    },
  },
  'batch.completed': {
    summary: 'The last open task of a batch ended (completed or cancelled); GET /batches/:id has the counts',
    data: Type.Object({ batchId: Type.String(), count: Type.Integer(), completedAt: Timestamp }),
    example: { batchId: 'bat_01jq7v01x4m2c8w6t0r9b5k3n1p7', count: 50, completedAt: AT },
  },
  'task.rejected_by_review': {
    summary:
      'An operator rejected your held task (screening): it is cancelled and its total is back on your balance (a refund.processed comes with it)',
    data: Type.Object({
      taskId: Type.String(),
      rule: Nullable(Type.String({ description: 'The screening rule that held the task' })),
      reason: Type.String({ description: 'The operator’s reason' }),
      refund: Type.Object({
        amount: Amount,
        destination: Type.Literal('agent_balance'),
        reason: Nullable(Type.String()),
        currency: Currency,
      }),
    }),
    example: {
      taskId: TASK,
      rule: 'dangerous-acts',
      reason: 'Work at height without safety equipment',
      refund: {
        amount: '6.5',
        destination: 'agent_balance',
        reason: 'Work at height without safety equipment',
        currency: 'TON',
      },
    },
  },
  'approval.approved': {
    summary:
      'Your owner approved a task that waited for approval: it was created and escrowed now (taskId; task.funded follows)',
    data: Type.Object({ approvalId: Type.String(), taskId: Type.String() }),
    example: { approvalId: APPROVAL, taskId: TASK },
  },
  'approval.declined': {
    summary:
      'Your owner declined a task that waited for approval (or the key that posted it was revoked: reason); nothing was escrowed',
    data: Type.Object({ approvalId: Type.String(), reason: Type.Optional(Type.String()) }),
    example: { approvalId: APPROVAL },
  },
  'approval.expired': {
    summary: 'A task that waited for approval was not answered in time; nothing was escrowed',
    data: Type.Object({ approvalId: Type.String(), expiresAt: Timestamp }),
    example: { approvalId: APPROVAL, expiresAt: AT },
  },
  'approval.failed': {
    summary:
      'Your owner approved a task, but it could not be created then (status and error as POST /tasks would answer, e.g. 402); nothing was escrowed',
    data: Type.Object({ approvalId: Type.String(), status: Type.Integer(), error: Type.String() }),
    example: {
      approvalId: APPROVAL,
      status: 402,
      error:
        'Insufficient balance: This task costs 130\u00a0TON (reward 100\u00a0TON + 30% fee 30\u00a0TON); your TON balance is 12\u00a0TON. Top up your TON balance and try again.',
    },
  },
  'balance.low': {
    summary:
      'A spend (a task, a batch, a bonus, an approved task) took your available balance of a currency below the low-balance threshold your owner set; once per crossing (a top-up above it re-arms the alert)',
    data: Type.Object({
      currency: Currency,
      available: { ...Amount, description: 'Your available balance of this currency after the spend' },
      threshold: { ...Amount, description: 'The threshold your owner set for this currency' },
    }),
    example: { currency: 'TON', available: '8.5', threshold: '10' },
  },
  'webhook.test': {
    summary: 'Sent by POST /agents/webhooks to check your receiver',
    data: Type.Object({ agentId: Type.String(), message: Type.String() }),
    example: { agentId: AGENT, message: 'This is a test delivery from Handoff' },
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
    Object.entries(EVENT_DATA).map(([event, { summary, data, example }]) => [
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
                example: { event, timestamp: AT, data: example },
              },
            },
          },
          responses: { '200': { description: 'Any 2xx acknowledges the delivery' } },
        },
      },
    ]),
  );
}

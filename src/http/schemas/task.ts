import { Type } from 'typebox';
import {
  APPLICATION_STATUSES,
  PAYMENT_STATUSES,
  TASK_STATUSES,
  WORK_STATUSES,
} from '../../domain/tasks/states.js';
import { Amount, AmountInput, Currency, Nullable, nameSchemas, Timestamp } from './common.js';
import { Dispute } from './dispute.js';
import { PartialOffer, Settlement } from './settlement.js';
import { Submission, TaskLocation, TaskLocationInput } from './submission.js';

export const TaskStatus = Type.Enum(TASK_STATUSES);
export const PaymentStatus = Type.Enum(PAYMENT_STATUSES);
export const ApplicationStatus = Type.Enum(APPLICATION_STATUSES);

export const WorkerRef = Type.Object({
  id: Type.String({ description: 'Worker id (wrk_...)' }),
  username: Nullable(Type.String({ description: 'Telegram username, when the worker shows it' })),
  firstName: Type.String({ description: 'First name from Telegram' }),
});

export const ApplicationUser = Type.Object({
  id: Type.String(),
  username: Nullable(Type.String()),
  firstName: Type.String(),
  lastName: Nullable(Type.String()),
  walletAddress: Nullable(
    Type.String({ description: 'The worker’s TON wallet (user-friendly form); null until connected' }),
  ),
});

export const Application = Type.Object({
  id: Type.String({ description: 'Application id (app_...)' }),
  status: ApplicationStatus,
  message: Type.String({ description: 'The worker’s cover note, up to 2000 characters' }),
  createdAt: Timestamp,
  user: ApplicationUser,
});

export const Task = Type.Object({
  id: Type.String({ description: 'Task id (tsk_...)' }),
  title: Type.String({ description: 'Up to 200 characters' }),
  description: Type.String({ description: 'Up to 10,000 characters' }),
  currency: Currency,
  reward: { ...Amount, description: 'What the worker receives, in the task’s currency' },
  platformFee: { ...Amount, description: 'The platform’s 30% of the reward, in the task’s currency' },
  totalAmount: {
    ...Amount,
    description: 'reward + platformFee, escrowed at creation from your balance of the task’s currency',
  },
  status: TaskStatus,
  paymentStatus: PaymentStatus,
  executionDeadlineDays: Nullable(
    Type.Integer({
      description: 'Days the worker has after assignment; null when an absolute deadline is set',
    }),
  ),
  deadline: Type.Optional({ ...Timestamp, description: 'The absolute deadline given at creation, if any' }),
  executionDeadline: Nullable({
    ...Timestamp,
    description:
      'When the assigned worker’s time runs out (the task then returns to FUNDED); null until assigned',
  }),
  webhookUrl: Nullable(
    Type.String({ description: 'Where this task’s events go (overrides your agent webhook)' }),
  ),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  agent: Type.Object({ id: Type.String(), name: Nullable(Type.String()) }),
  livemode: Type.Boolean({
    description:
      'false for a task made with a test key (hr_test_...): no real worker sees it, no real money moves',
  }),
  worker: Nullable(WorkerRef),
  settlement: Type.Optional(Settlement),
  partialOffer: Type.Optional(PartialOffer),
  batchId: Type.Optional(
    Type.String({
      description: 'The batch this task was created in (POST /batches); absent for a single task',
    }),
  ),
  moderation: Type.Optional(
    Type.Object(
      {
        status: Type.Enum(['PENDING', 'APPROVED', 'REJECTED']),
        rule: Type.String({ description: 'The screening rule (or external-classifier) that held the task' }),
      },
      {
        description:
          'Only on a task screening held (docs/decisions/screening.md): PENDING while no worker sees it, APPROVED once an operator let it through, REJECTED when an operator refused it (refunded)',
      },
    ),
  ),
  applications: Type.Optional(Type.Array(Application)),
  applicationCount: Type.Optional(
    Type.Integer({ description: 'Applications received, in any state (task lists only: GET /agents/tasks)' }),
  ),
  reviewHours: Type.Integer({
    description:
      'Hours you have to review a submission before it is approved for you (auto-release): the reviewHours the task was created with, or 72 when it chose none. On every task, like currency; the next three fields appear once the task uses them (created with reviewHours or location, or work was submitted)',
  }),
  reviewDeadline: Type.Optional(
    Nullable({
      ...Timestamp,
      description:
        'When the waiting submission is approved for you (task.completed with autoReleased); null while none waits',
    }),
  ),
  revisionCount: Type.Optional(Type.Integer({ description: 'Revisions you asked for (at most 3)' })),
  location: Type.Optional(Type.Union([TaskLocation, Type.Null()])),
  // A union with the named schema (not Nullable's copy of it), so the document's Submission stays non-null.
  dispute: Type.Optional(
    Type.Union([Dispute, Type.Null()], {
      description: 'The task’s dispute (shown with submission), or null when none',
    }),
  ),
  submission: Type.Optional(
    Type.Union([Submission, Type.Null()], {
      description: 'The latest submission (GET /tasks/:id), or null before any',
    }),
  ),
});

export const CreateTaskBody = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 200, description: 'What to do, in a line' }),
  description: Type.String({ minLength: 1, maxLength: 10_000, description: 'The details a worker needs' }),
  reward: {
    ...AmountInput,
    description:
      'The worker’s pay in the task’s currency, 0.01 to 1,000,000 (TON: up to 9 decimals; USDT: up to 6); a 30% fee is added on top',
  },
  currency: Type.Optional({
    ...Currency,
    description:
      'TON (default) or USDT: reward, fee and total are in it, escrowed from your balance of it; a 400 "USDT is not enabled" when this service does not take USDT',
  }),
  executionDeadlineDays: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 90,
      default: undefined,
      description: 'Days the worker has once assigned (default 7); exclusive with deadline',
    }),
  ),
  deadline: Type.Optional(
    Type.String({ format: 'date-time', description: 'Absolute deadline instead of executionDeadlineDays' }),
  ),
  agentName: Type.Optional(Type.String({ maxLength: 100, description: 'Required on your first task' })),
  webhookUrl: Type.Optional(
    Type.String({
      maxLength: 2000,
      description: 'http(s) URL for this task’s events instead of your agent webhook',
    }),
  ),
  reviewHours: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 336,
      description:
        'Hours you have to review submitted work (1-336, default 72); silence then approves it and pays the worker',
    }),
  ),
  location: Type.Optional({
    ...TaskLocationInput,
    description: 'Where the work is done; a submission’s location is flagged withinArea (never refused)',
  }),
  assignToUserId: Type.Optional(
    Type.String({
      maxLength: 100,
      description:
        'A worker id: makes a direct offer. At most 5 offers to one worker in any 24 hours (429 with Retry-After beyond)',
    }),
  ),
});

export const CreatedOffer = Type.Object({
  task: Task,
  offeredWorker: WorkerRef,
  message: Type.String(),
});

export const InsufficientBalance = Type.Object({
  error: Type.Literal('Insufficient balance'),
  currentBalance: { ...Amount, description: 'Your available balance of the task’s currency now' },
  requiredAmount: { ...Amount, description: 'What the task costs (reward + fee), in that currency' },
  currency: Currency,
  message: Type.String({ description: 'The arithmetic, and what to do' }),
});

export const PatchTaskBody = Type.Object({
  status: Type.Optional(Type.Enum(WORK_STATUSES, { description: 'Move an assigned task forward' })),
  executionDeadlineDays: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 90, description: 'New number of days, for a task not yet assigned' }),
  ),
});

export const TaskListQuery = Type.Object({
  status: Type.Optional(TaskStatus),
  paymentStatus: Type.Optional(PaymentStatus),
  batchId: Type.Optional(
    Type.String({ maxLength: 100, description: 'Only the tasks of this batch (bat_...), newest first' }),
  ),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  cursor: Type.Optional(Type.String({ maxLength: 400 })),
});

export const CancelResult = Type.Object({
  success: Type.Boolean(),
  task: Type.Object({ id: Type.String(), status: TaskStatus, paymentStatus: PaymentStatus }),
  refund: Type.Object({
    amount: {
      ...Amount,
      description: 'The whole escrowed total, back on your balance of the task’s currency',
    },
    destination: Type.Literal('agent_balance'),
    currency: Currency,
  }),
});

export const RefundBody = Type.Union([
  Type.Object({
    reason: Type.Optional(Type.String({ maxLength: 1000, description: 'Why, for your records' })),
  }),
  Type.Null(),
]);

export const CompleteResult = Type.Object({
  success: Type.Boolean(),
  task: Type.Object({ id: Type.String(), status: TaskStatus, paymentStatus: PaymentStatus }),
  payment: Type.Object({
    amount: { ...Amount, description: 'The reward sent to the worker, in the task’s currency' },
    currency: Currency,
    toAddress: Type.String({ description: 'The worker’s TON wallet' }),
    txHash: Nullable(Type.String({ description: 'null while the transfer is pending; it is retried' })),
    status: Type.String({ description: 'confirmed or pending' }),
    pending: Type.Boolean({
      description:
        'true until the transfer is confirmed on chain (txHash is null meanwhile); on testnet/mainnet the answer never waits for finality, and the payment.sent webhook carries the final hash',
    }),
    recipient: WorkerRef,
  }),
  fee: Type.Object({
    amount: { ...Amount, description: 'The platform fee, in the task’s currency' },
    currency: Currency,
    toAddress: Type.String({ description: 'The platform’s fee address' }),
    txHash: Nullable(Type.String({ description: 'null while the fee transfer is pending' })),
    success: Type.Boolean({ description: 'Whether the fee transfer is on chain yet' }),
  }),
});

export const CompleteBody = Type.Union([
  Type.Object({
    amount: Type.Optional({
      ...AmountInput,
      description:
        'Graded approval: pay only this part of the reward (above 0, below it). The worker may accept it or open a dispute until the review window, restarted now, ends; silence accepts. The fee is taken in proportion, the rest returns to your balance. Leave it out to pay in full',
    }),
    reason: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: 'Why you pay less, shown to the worker; required with amount (1-1000 characters)',
      }),
    ),
  }),
  Type.Null(),
]);

export const PartialOfferResult = Type.Object({
  success: Type.Boolean(),
  task: Type.Object({ id: Type.String(), status: TaskStatus, paymentStatus: PaymentStatus }),
  partialOffer: PartialOffer,
});

export const Rating = Type.Object({
  id: Type.String(),
  taskId: Type.String(),
  raterType: Type.Enum(['AGENT', 'USER']),
  score: Type.Integer({ minimum: 1, maximum: 5, description: '1 (worst) to 5 (best)' }),
  comment: Nullable(Type.String()),
  createdAt: Timestamp,
});

export const RateBody = Type.Object({
  score: Type.Integer({ minimum: 1, maximum: 5, description: '1 (worst) to 5 (best)' }),
  comment: Type.Optional(Type.String({ maxLength: 1000, description: 'Up to 1000 characters' })),
});

export const AcceptApplicationBody = Type.Object({ status: Type.Literal('ACCEPTED') });

nameSchemas({
  TaskStatus,
  PaymentStatus,
  ApplicationStatus,
  WorkerRef,
  ApplicationUser,
  Application,
  Task,
  CreateTaskBody,
  CreatedOffer,
  InsufficientBalance,
  PatchTaskBody,
  CancelResult,
  RefundBody,
  CompleteResult,
  CompleteBody,
  PartialOfferResult,
  Rating,
  RateBody,
  AcceptApplicationBody,
});

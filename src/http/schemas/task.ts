import { Type } from 'typebox';
import { APPLICATION_STATUSES, PAYMENT_STATUSES, TASK_STATUSES, WORK_STATUSES } from '../../domain/states.js';
import { Amount, AmountInput, Nullable, Timestamp } from './common.js';

export const TaskStatus = Type.Enum(TASK_STATUSES);
export const PaymentStatus = Type.Enum(PAYMENT_STATUSES);
export const ApplicationStatus = Type.Enum(APPLICATION_STATUSES);

export const WorkerRef = Type.Object({
  id: Type.String(),
  username: Nullable(Type.String({ description: 'Telegram username, when the worker shows it' })),
  firstName: Type.String(),
});

export const ApplicationUser = Type.Object({
  id: Type.String(),
  username: Nullable(Type.String()),
  firstName: Type.String(),
  lastName: Nullable(Type.String()),
  walletAddress: Nullable(Type.String()),
});

export const Application = Type.Object({
  id: Type.String(),
  status: ApplicationStatus,
  message: Type.String(),
  createdAt: Timestamp,
  user: ApplicationUser,
});

export const Task = Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.String(),
  reward: Amount,
  platformFee: Amount,
  totalAmount: Amount,
  status: TaskStatus,
  paymentStatus: PaymentStatus,
  executionDeadlineDays: Nullable(
    Type.Integer({
      description: 'Days the worker has after assignment; null when an absolute deadline is set',
    }),
  ),
  deadline: Type.Optional(Timestamp),
  executionDeadline: Nullable(Timestamp),
  webhookUrl: Nullable(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  agent: Type.Object({ id: Type.String(), name: Nullable(Type.String()) }),
  worker: Nullable(WorkerRef),
  applications: Type.Optional(Type.Array(Application)),
});

export const CreateTaskBody = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.String({ minLength: 1, maxLength: 10_000 }),
  reward: AmountInput,
  executionDeadlineDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 90, default: undefined })),
  deadline: Type.Optional(
    Type.String({ format: 'date-time', description: 'Absolute deadline instead of executionDeadlineDays' }),
  ),
  agentName: Type.Optional(Type.String({ maxLength: 100, description: 'Required on your first task' })),
  webhookUrl: Type.Optional(Type.String({ maxLength: 2000 })),
  assignToUserId: Type.Optional(
    Type.String({ maxLength: 100, description: 'A worker id: makes a direct offer' }),
  ),
});

export const CreatedOffer = Type.Object({
  task: Task,
  offeredWorker: WorkerRef,
  message: Type.String(),
});

export const InsufficientBalance = Type.Object({
  error: Type.Literal('Insufficient balance'),
  currentBalance: Amount,
  requiredAmount: Amount,
  message: Type.String(),
});

export const PatchTaskBody = Type.Object({
  status: Type.Optional(Type.Enum(WORK_STATUSES)),
  executionDeadlineDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 90 })),
});

export const TaskListQuery = Type.Object({
  status: Type.Optional(TaskStatus),
  paymentStatus: Type.Optional(PaymentStatus),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  cursor: Type.Optional(Type.String({ maxLength: 400 })),
});

export const CancelResult = Type.Object({
  success: Type.Boolean(),
  task: Type.Object({ id: Type.String(), status: TaskStatus, paymentStatus: PaymentStatus }),
  refund: Type.Object({ amount: Amount, destination: Type.Literal('agent_balance') }),
});

export const RefundBody = Type.Union([
  Type.Object({ reason: Type.Optional(Type.String({ maxLength: 1000 })) }),
  Type.Null(),
]);

export const CompleteResult = Type.Object({
  success: Type.Boolean(),
  task: Type.Object({ id: Type.String(), status: TaskStatus, paymentStatus: PaymentStatus }),
  payment: Type.Object({
    amount: Amount,
    toAddress: Type.String(),
    txHash: Nullable(Type.String({ description: 'null while the transfer is pending; it is retried' })),
    status: Type.String({ description: 'confirmed or pending' }),
    recipient: WorkerRef,
  }),
  fee: Type.Object({
    amount: Amount,
    toAddress: Type.String(),
    txHash: Nullable(Type.String()),
    success: Type.Boolean(),
  }),
});

export const Rating = Type.Object({
  id: Type.String(),
  taskId: Type.String(),
  raterType: Type.Enum(['AGENT', 'USER']),
  score: Type.Integer({ minimum: 1, maximum: 5 }),
  comment: Nullable(Type.String()),
  createdAt: Timestamp,
});

export const RateBody = Type.Object({
  score: Type.Integer({ minimum: 1, maximum: 5 }),
  comment: Type.Optional(Type.String({ maxLength: 1000 })),
});

export const AcceptApplicationBody = Type.Object({ status: Type.Literal('ACCEPTED') });

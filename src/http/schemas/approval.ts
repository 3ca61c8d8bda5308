import { Type } from 'typebox';
import { Amount, Currency, Cursor, Limit, Nullable, nameSchemas, Timestamp } from './common.js';
import { CreateTaskBody } from './task.js';

export const ApprovalStatus = Type.Enum(['PENDING', 'APPROVED', 'DECLINED', 'EXPIRED', 'FAILED'], {
  description:
    'PENDING: waiting for your owner. APPROVED: the task was created and escrowed (taskId). DECLINED: your owner said no (or the key was revoked). EXPIRED: unanswered in time. FAILED: approved, but the task could not be created then (failure)',
});

/** A task above the key's approvalAbove, waiting for (or decided by) the agent's owner. */
export const Approval = Type.Object({
  id: Type.String(),
  status: ApprovalStatus,
  /** The task body as posted; created exactly so if the owner approves. */
  task: CreateTaskBody,
  amount: { ...Amount, description: 'The task’s total (reward + 30% fee), escrowed when approved' },
  currency: Currency,
  taskId: Nullable(Type.String({ description: 'The task approving it created' })),
  failure: Nullable(
    Type.Object(
      {
        status: Type.Integer({ description: 'The HTTP status POST /tasks would have answered, e.g. 402' }),
        error: Type.String(),
      },
      { description: 'FAILED (or DECLINED because the key was revoked): why no task was created' },
    ),
  ),
  createdAt: Timestamp,
  expiresAt: { ...Timestamp, description: 'Unanswered by then, it becomes EXPIRED' },
  decidedAt: Nullable(Timestamp),
});

export const ApprovalListQuery = Type.Object({
  status: Type.Optional(ApprovalStatus),
  limit: Limit(20, 100),
  cursor: Cursor,
});

export const CreatedApproval = Type.Object({ approval: Approval });

nameSchemas({ Approval, CreatedApproval });

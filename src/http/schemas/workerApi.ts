import { Type } from 'typebox';
import { Amount, Nullable, nameSchemas, Timestamp } from './common.js';
import { ApplicationStatus, TaskStatus } from './task.js';

/** A task as a worker sees it: no fee, no webhook, no other applicants. */
export const WorkerTask = Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.String(),
  reward: Amount,
  status: TaskStatus,
  executionDeadlineDays: Nullable(Type.Integer()),
  deadline: Type.Optional(Timestamp),
  executionDeadline: Nullable(Timestamp),
  createdAt: Timestamp,
  agent: Type.Object({ id: Type.String(), name: Nullable(Type.String()) }),
});

export const WorkerApplication = Type.Object({
  id: Type.String(),
  taskId: Type.String(),
  status: ApplicationStatus,
  message: Type.String(),
  createdAt: Timestamp,
  task: Type.Optional(Type.Object({ title: Type.String(), status: TaskStatus, reward: Amount })),
});

export const PageQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  cursor: Type.Optional(Type.String({ maxLength: 400 })),
});

export const WorkerPayout = Type.Object({
  id: Type.String(),
  taskId: Type.String(),
  taskTitle: Type.String(),
  amount: Amount,
  status: Type.Enum(['confirmed', 'pending']),
  toAddress: Nullable(Type.String()),
  txHash: Nullable(Type.String()),
  explorerUrl: Nullable(Type.String()),
  createdAt: Timestamp,
});

nameSchemas({ WorkerTask, WorkerApplication, WorkerPayout });

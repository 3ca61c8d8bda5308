import { Type } from 'typebox';
import { Amount, Currency, Nullable, nameSchemas, Timestamp } from './common.js';
import { Dispute } from './dispute.js';
import { PartialOffer, WorkerSettlement } from './settlement.js';
import { Submission, TaskLocation } from './submission.js';
import { ApplicationStatus, TaskStatus } from './task.js';

/** What a worker sees of the agent behind a task, to judge whom they work for. */
export const AgentReputation = Type.Object({
  id: Type.String(),
  name: Nullable(Type.String()),
  tasksPaid: Type.Integer({ description: 'Tasks of this agent completed and paid' }),
  averageRating: Nullable(Type.Number({ description: 'Average score workers gave this agent (1-5)' })),
  ratingCount: Type.Integer(),
  disputesLost: Type.Integer({ description: 'Disputes an operator resolved with money to the worker' }),
  medianReviewHours: Nullable(
    Type.Number({ description: 'Median hours this agent took to review submitted work; null before any' }),
  ),
});

/**
 * A batch as one card in the open tasks (issue 40): the task it comes with is its next open place
 * for you; apply with POST /worker/batches/:id/applications to take the next open place.
 */
export const WorkerBatchCard = Type.Object(
  {
    id: Type.String({ description: 'The batch (bat_...)' }),
    count: Type.Integer({ description: 'Places (tasks) in the batch' }),
    placesLeft: Type.Integer({
      description: 'Open places: tasks still FUNDED with nobody assigned and no application waiting',
    }),
    maxPerWorker: Nullable(Type.Integer({ description: 'Places one person may take; null when no limit' })),
    yourPlaces: Type.Integer({
      description:
        'Places you hold, held or wait for (applications pending, offered or accepted); at maxPerWorker you cannot take another',
    }),
  },
  { description: 'In GET /worker/tasks, on the one task that stands for its batch (a batch is one card)' },
);

/** A task as a worker sees it: no fee, no webhook, no other applicants. */
export const WorkerTask = Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.String(),
  currency: Currency,
  reward: { ...Amount, description: 'What you receive, in the task’s currency' },
  status: TaskStatus,
  executionDeadlineDays: Nullable(Type.Integer()),
  deadline: Type.Optional(Timestamp),
  executionDeadline: Nullable(Timestamp),
  createdAt: Timestamp,
  agent: AgentReputation,
  reviewHours: Type.Integer({
    description: 'Hours the agent has to review a submission before it is approved',
  }),
  reviewDeadline: Nullable({
    ...Timestamp,
    description: 'When your waiting submission is approved if the agent stays silent; null when none waits',
  }),
  revisionCount: Type.Integer({ description: 'Revisions the agent asked for so far (at most 3)' }),
  location: Type.Union([TaskLocation, Type.Null()]),
  dispute: Type.Optional(
    Type.Union([Dispute, Type.Null()], {
      description: 'The task’s dispute (your own task’s single view), or null when none',
    }),
  ),
  submission: Type.Optional(
    Type.Union([Submission, Type.Null()], {
      description: 'Your latest submission (your own task: its single view and GET /worker/assignments)',
    }),
  ),
  applicants: Type.Optional(
    Type.Integer({
      description:
        'How many people applied (open tasks and the single-task view); a declined offer is not counted',
    }),
  ),
  yourApplication: Type.Optional(
    Type.Union([ApplicationStatus, Type.Null()], {
      description: 'Your own application to the task (open tasks and the single-task view), or null',
    }),
  ),
  settlement: Type.Optional(WorkerSettlement),
  // In GET /worker/tasks only, on the one task that stands for its batch (a batch is one card).
  batch: Type.Optional(WorkerBatchCard),
  // The agent offers part of the reward for your waiting work: accept it (POST
  // /worker/tasks/:id/partial/accept) or open a dispute before acceptBy; silence accepts it then.
  partialOffer: Type.Optional(PartialOffer),
  yourRating: Type.Optional(
    Type.Union(
      [
        Type.Object({ score: Type.Integer({ minimum: 1, maximum: 5 }), comment: Nullable(Type.String()) }),
        Type.Null(),
      ],
      { description: 'The rating you gave the agent for this task (single view of your own task), or null' },
    ),
  ),
});

export const WorkerApplication = Type.Object({
  id: Type.String(),
  taskId: Type.String(),
  status: ApplicationStatus,
  message: Type.String(),
  createdAt: Timestamp,
  task: Type.Optional(
    Type.Object({ title: Type.String(), status: TaskStatus, reward: Amount, currency: Currency }),
  ),
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
  currency: Currency,
  status: Type.Enum(['confirmed', 'pending']),
  toAddress: Nullable(Type.String()),
  txHash: Nullable(Type.String()),
  explorerUrl: Nullable(Type.String()),
  createdAt: Timestamp,
});

nameSchemas({ AgentReputation, WorkerBatchCard, WorkerTask, WorkerApplication, WorkerPayout });

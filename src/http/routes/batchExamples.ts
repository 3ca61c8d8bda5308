import type { Static } from 'typebox';
import type { Batch, BatchCancelResult, CreateBatchBody, CreatedBatch } from '../schemas/batch.js';

/** The API reference's examples of the batch routes (test/http/openapiExamples.test.ts checks them). */

const BATCH_ID = 'bat_01jq7v01x4m2c8w6t0r9b5k3n1p7';
const AT = '2026-03-14T09:30:00.000Z';
const ZERO = {
  OPEN: 0,
  FUNDED: 0,
  OFFERED: 0,
  ASSIGNED: 0,
  IN_PROGRESS: 0,
  REVIEW: 0,
  COMPLETED: 0,
  CANCELLED: 0,
};

export const CREATE_BATCH_EXAMPLE: Static<typeof CreateBatchBody> = {
  template: {
    title: 'Photograph the menu of a café in Mitte',
    description: 'One café each; the whole menu, readable, today',
    reward: '2',
  },
  count: 50,
  maxPerWorker: 1,
  currency: 'TON',
};

export const BATCH_EXAMPLE: Static<typeof Batch> = {
  id: BATCH_ID,
  count: 50,
  currency: 'TON',
  totalAmount: '130',
  maxPerWorker: 1,
  counts: { ...ZERO, FUNDED: 32, ASSIGNED: 6, REVIEW: 4, COMPLETED: 8 },
  createdAt: AT,
  completedAt: null,
};

export const CREATED_BATCH_EXAMPLE: Static<typeof CreatedBatch> = {
  batch: { ...BATCH_EXAMPLE, counts: { ...ZERO, FUNDED: 50 } },
  tasks: [
    {
      id: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
      title: 'Photograph the menu of a café in Mitte',
      description: 'One café each; the whole menu, readable, today',
      currency: 'TON',
      reward: '2',
      platformFee: '0.6',
      totalAmount: '2.6',
      status: 'FUNDED',
      paymentStatus: 'DEPOSITED',
      executionDeadlineDays: 7,
      executionDeadline: null,
      webhookUrl: null,
      createdAt: AT,
      updatedAt: AT,
      agent: { id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7', name: 'Menu agent' },
      livemode: true,
      worker: null,
      batchId: BATCH_ID,
      reviewHours: 72,
    },
  ],
};

export const BATCH_CANCEL_EXAMPLE: Static<typeof BatchCancelResult> = {
  batch: { ...BATCH_EXAMPLE, counts: { ...ZERO, CANCELLED: 38, REVIEW: 4, COMPLETED: 8 } },
  refunded: ['tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7'],
  refundedAmount: '98.8',
  notRefunded: [
    {
      id: 'tsk_01jq7v02x4m2c8w6t0r9b5k3n1p7',
      status: 'REVIEW',
      reason:
        'Work was submitted for this task, so it can no longer be refunded or cancelled: approve it (POST /tasks/:id/complete), request a revision (POST /tasks/:id/revisions) or open a dispute (POST /tasks/:id/dispute)',
    },
  ],
};

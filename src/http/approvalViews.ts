import type { Static } from 'typebox';
import type { ApprovalRow } from '../db/repositories/executor.js';
import { approvalBody } from '../domain/agents/approvals.js';
import { formatAmount } from '../domain/money/currency.js';
import type { CreateTaskBody } from './schemas/task.js';

/** An approval as the agent API and the console show it. */
export function approvalView(row: ApprovalRow) {
  return {
    id: row.id,
    status: row.status,
    // Stored as posted, so it fits the body schema it was validated against.
    task: approvalBody(row) as Static<typeof CreateTaskBody>,
    amount: formatAmount(row.currency, row.amount_nano),
    currency: row.currency,
    taskId: row.task_id,
    failure: row.failure === null ? null : { status: row.failure_status ?? 400, error: row.failure },
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    decidedAt: row.decided_at,
  };
}

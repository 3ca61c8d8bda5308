import type { DisputeRow, DisputeStatementRow } from '../db/repositories/executor.js';
import { resolutionView } from '../domain/disputes/disputeResolution.js';
import type { Attachment, DisputeWithStatements } from '../domain/disputes/disputeStatements.js';

/** Attachments as stored (JSON text we wrote); anything unreadable shows as none, never a 500. */
export function attachmentsOf(json: string): Attachment[] {
  try {
    const parsed = JSON.parse(json) as unknown;
    return Array.isArray(parsed) ? (parsed as Attachment[]) : [];
  } catch {
    return [];
  }
}

export function statementView(s: DisputeStatementRow) {
  return {
    by: s.author,
    text: s.text,
    attachments: attachmentsOf(s.attachments_json),
    createdAt: s.created_at,
  };
}

/** The `dispute` object of a task view (issue 25): exactly its fields. */
export function disputeView(d: DisputeRow, statements: DisputeStatementRow[]) {
  return {
    id: d.id,
    status: d.status,
    openedBy: d.opened_by,
    reason: d.reason,
    statements: statements.map(statementView),
    resolution: resolutionView(d),
  };
}

export const disputeOrNull = (found: DisputeWithStatements | null) =>
  found ? disputeView(found.dispute, found.statements) : null;

export type DisputeView = ReturnType<typeof disputeView>;

import {
  countStatementsBy,
  findDispute,
  insertStatement,
  listStatements,
  lockOpenDispute,
} from '../../db/repositories/disputes.js';
import type { DisputeRow, DisputeStatementRow, Executor, TaskRow } from '../../db/repositories/executor.js';
import type { DisputeParty } from '../../db/schema.js';
import { type Party, storedFile } from '../chat/chat.js';
import type { DomainContext } from '../context.js';
import { assertInvariant, conflict, invalid } from '../errors.js';
import { newId } from '../ids.js';
import { loadAgentTask, loadWorkerTask } from '../tasks/taskAccess.js';
import { isBlank, textLength } from '../text.js';
import { inTransaction } from '../transaction.js';
import { STATEMENT_ATTACHMENTS_MAX, STATEMENT_TEXT_MAX, STATEMENTS_PER_SIDE_MAX } from './disputeLimits.js';

/** A file attached to a statement (or a submission): copied from the author's stored upload. */
export interface Attachment {
  fileUrl: string;
  name: string;
  contentType: string;
  size: number;
}

export interface DisputeWithStatements {
  dispute: DisputeRow;
  statements: DisputeStatementRow[];
}

export const partyOf = (party: Party): DisputeParty => (party.kind === 'agent' ? 'AGENT' : 'WORKER');

/** The task the party may act on: the agent's own (404/403), or the worker's (404/403). */
export function loadPartyTask(db: Executor, party: Party, taskId: string): Promise<TaskRow> {
  return party.kind === 'agent' ? loadAgentTask(db, party.id, taskId) : loadWorkerTask(db, party.id, taskId);
}

/**
 * The caller's own stored uploads, each checked like a chat attachment (POST /upload first; the
 * name, size and type come from the upload, never from the caller). Duplicates count once.
 */
export async function ownAttachments(
  ctx: DomainContext,
  party: Party,
  fileUrls: string[] = [],
): Promise<Attachment[]> {
  if (fileUrls.length > STATEMENT_ATTACHMENTS_MAX) {
    throw invalid('attachments', `must hold at most ${STATEMENT_ATTACHMENTS_MAX} files`);
  }
  const out: Attachment[] = [];
  for (const [i, url] of fileUrls.entries()) {
    const file = await storedFile(ctx, party, url, `attachments/${i}`);
    if (out.some((a) => a.fileUrl === file.url)) continue;
    out.push({ fileUrl: file.url, name: file.name, contentType: file.mimeType, size: file.size });
  }
  return out;
}

/**
 * POST /tasks/:id/dispute/statements and POST /worker/tasks/:id/dispute/statements: one side's
 * evidence on the task's open dispute. The dispute row is locked while the side's statements are
 * counted, so the limit holds under concurrency and nothing lands beside (or after) a resolution.
 */
export async function addStatement(
  ctx: DomainContext,
  party: Party,
  taskId: string,
  input: { text: string; attachments?: string[] },
): Promise<DisputeWithStatements & { statement: DisputeStatementRow }> {
  const text = input.text.trim();
  if (isBlank(text) || textLength(text) > STATEMENT_TEXT_MAX) {
    throw invalid('text', `must be 1 to ${STATEMENT_TEXT_MAX} characters that are not all blank`);
  }
  const task = await loadPartyTask(ctx.db, party, taskId);
  if (!task.dispute_id) throw noDispute(party);
  const disputeId = task.dispute_id;
  const attachments = await ownAttachments(ctx, party, input.attachments);
  const author = partyOf(party);
  return inTransaction(ctx.db, async (trx) => {
    const now = ctx.clock.now();
    const at = now.toISOString();
    const dispute = await lockOpenDispute(trx, disputeId, at);
    if (!dispute) throw conflict('The dispute is resolved: statements are closed', { disputeId });
    if ((await countStatementsBy(trx, dispute.id, author)) >= STATEMENTS_PER_SIDE_MAX) {
      throw conflict(
        `Each side may add at most ${STATEMENTS_PER_SIDE_MAX} statements to a dispute; put the rest in one statement`,
        { disputeId },
      );
    }
    const statement: DisputeStatementRow = {
      id: newId('disputeStatement', now.getTime()),
      dispute_id: dispute.id,
      author,
      author_id: party.id,
      text,
      attachments_json: JSON.stringify(attachments),
      created_at: at,
    };
    await insertStatement(trx, statement);
    return { statement, dispute, statements: await listStatements(trx, dispute.id) };
  });
}

/** The task's dispute with its statements, or null when it never had one. */
export async function disputeOfTask(
  db: Executor,
  task: Pick<TaskRow, 'id' | 'dispute_id'>,
): Promise<DisputeWithStatements | null> {
  if (!task.dispute_id) return null;
  const dispute = await findDispute(db, task.dispute_id);
  assertInvariant(dispute, `task ${task.id} has its dispute`);
  return { dispute, statements: await listStatements(db, dispute.id) };
}

function noDispute(party: Party) {
  const route = party.kind === 'agent' ? 'POST /tasks/:id/dispute' : 'POST /worker/tasks/:id/dispute';
  return conflict(`This task has no dispute to add a statement to; open one first with ${route}`);
}

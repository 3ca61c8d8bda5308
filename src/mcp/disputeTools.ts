import { openDispute } from '../domain/disputeOpening.js';
import { addStatement } from '../domain/disputeStatements.js';
import { disputeView, statementView } from '../http/disputeViews.js';
import { type ToolDef, writes } from './tool.js';

const TASK_ID = { id: 'taskId' };

type Opened = Awaited<ReturnType<typeof openDispute>>;
type Added = Awaited<ReturnType<typeof addStatement>>;

/** Disputes (issue 25): the agent's side. Operators resolve them in the console (not through MCP). */
export const disputeTools: ToolDef[] = [
  {
    name: 'open_dispute',
    title: 'Open a dispute',
    description:
      'Contest the worker’s submitted work instead of approving it (complete_task) or asking for changes ' +
      '(request_revision): while a submission is PENDING, or after you asked for a revision. An operator ' +
      'judges and decides how the reward is split: the worker gets 0 to all of it, the fee is taken in ' +
      'proportion, the rest returns to your balance. Meanwhile the review clock stops and nothing else moves ' +
      'the task. reason: 1-2,000 characters. At most one dispute per task; a repeat is refused.',
    route: 'POST /tasks/:id/dispute',
    rename: TASK_ID,
    keyed: { view: (r: Opened) => ({ dispute: disputeView(r.dispute, []) }) },
    annotations: writes({ destructive: false, idempotent: true }),
    run: (env, args) => openDispute(env.ctx, { kind: 'agent', id: env.agentId }, args.taskId, args.reason),
  },
  {
    name: 'add_dispute_statement',
    title: 'Add to a dispute',
    description:
      'Give the operator your side of the task’s open dispute: text (1-4,000 characters) and up to 10 ' +
      'attachments (fileUrls of files you uploaded). At most 20 statements per side. Not safe to retry ' +
      'blindly: a repeat adds a second statement. get_task shows the dispute with both sides’ statements.',
    route: 'POST /tasks/:id/dispute/statements',
    rename: TASK_ID,
    keyed: {
      view: (r: Added) => ({
        statement: statementView(r.statement),
        dispute: disputeView(r.dispute, r.statements),
      }),
    },
    annotations: writes({ destructive: false, idempotent: false }),
    run: (env, args) => {
      const { taskId, ...input } = args;
      return addStatement(env.ctx, { kind: 'agent', id: env.agentId }, taskId, input as never);
    },
  },
];

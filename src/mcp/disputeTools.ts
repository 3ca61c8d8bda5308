import { openDispute } from '../domain/disputes/disputeOpening.js';
import { addStatement } from '../domain/disputes/disputeStatements.js';
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
      'Contest the submitted work (PENDING, or after you asked for a revision) instead of complete_task or ' +
      'request_revision. An operator decides the split: the worker gets 0 to all of the reward, the fee in ' +
      'proportion, the rest back to your balance. Meanwhile nothing else moves the task. One dispute per ' +
      'task; a repeat is refused.',
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
      'Give the operator your side of the task’s open dispute, with attachments. Not safe to retry blindly: ' +
      'a repeat adds a second statement. get_task shows both sides’ statements.',
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

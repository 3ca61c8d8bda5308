import { Type } from 'typebox';
import type { Party } from '../../domain/chat/chat.js';
import { openDispute } from '../../domain/disputes/disputeOpening.js';
import { addStatement } from '../../domain/disputes/disputeStatements.js';
import { disputeView, statementView } from '../disputeViews.js';
import { sendIdempotent } from '../idempotency.js';
import { AGENT_SECURITY, type Routes, WORKER_SECURITY } from '../routeTypes.js';
import { errors, IdParam } from '../schemas/common.js';
import { Dispute, OpenDisputeBody, StatementBody, StatementResult } from '../schemas/dispute.js';

/**
 * Opening a dispute and adding statements (issue 25), the same two routes for each side: the
 * agent under /tasks/:id, the worker under /worker/tasks/:id. Both count against the per-key
 * `chat` limit (people typing evidence, not machines polling), and both honour Idempotency-Key.
 */
function disputeRoutes(side: 'agent' | 'worker'): Routes {
  const prefix = side === 'agent' ? '/tasks/:id' : '/worker/tasks/:id';
  const tags = [side === 'agent' ? 'Tasks' : 'Worker'];
  const security = side === 'agent' ? AGENT_SECURITY : WORKER_SECURITY;
  const op = side === 'agent' ? '' : 'Worker';
  const partyOf = (request: { agentId: string; workerId: string }): Party =>
    side === 'agent' ? { kind: 'agent', id: request.agentId } : { kind: 'worker', id: request.workerId };
  return async (app, { ctx }) => {
    app.post(
      `${prefix}/dispute`,
      {
        schema: {
          tags,
          security,
          operationId: `open${op}Dispute`,
          summary:
            side === 'agent'
              ? 'Open a dispute while a submission waits for your review or after you asked for a revision'
              : 'Open a dispute after the agent asked for a revision of your work',
          description:
            'The review clock and the execution deadline stop, the funds stay escrowed, the submission becomes ' +
            'DISPUTED, and an operator decides how the reward is split. At most one dispute per task (409).',
          params: IdParam,
          body: OpenDisputeBody,
          response: { 201: Type.Object({ dispute: Dispute }), ...errors(400, 401, 403, 404, 409, 429) },
        },
        config: { rateLimit: 'chat' },
      },
      async (request, reply) =>
        sendIdempotent(
          request,
          reply,
          ctx,
          (c) => openDispute(c, partyOf(request), request.params.id, request.body.reason),
          ({ dispute }) => ({ status: 201, body: { dispute: disputeView(dispute, []) } }),
        ),
    );

    app.post(
      `${prefix}/dispute/statements`,
      {
        schema: {
          tags,
          security,
          operationId: `add${op}DisputeStatement`,
          summary: 'Add your side to the task’s open dispute: text and files you uploaded',
          params: IdParam,
          body: StatementBody,
          response: { 201: StatementResult, ...errors(400, 401, 403, 404, 409, 429) },
        },
        config: { rateLimit: 'chat' },
      },
      async (request, reply) =>
        sendIdempotent(
          request,
          reply,
          ctx,
          (c) => addStatement(c, partyOf(request), request.params.id, request.body),
          ({ statement, dispute, statements }) => ({
            status: 201,
            body: { statement: statementView(statement), dispute: disputeView(dispute, statements) },
          }),
        ),
    );
  };
}

export const agentDisputeRoutes = disputeRoutes('agent');
export const workerDisputeRoutes = disputeRoutes('worker');

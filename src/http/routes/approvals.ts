import { Type } from 'typebox';
import { getAgentApproval, listApprovalsOfAgent } from '../../domain/agents/approvals.js';
import { approvalView } from '../approvalViews.js';
import { pageView } from '../pageView.js';
import { AGENT_SECURITY, type Routes } from '../routeTypes.js';
import { Approval, ApprovalListQuery } from '../schemas/approval.js';
import { errors, IdParam, NextCursor } from '../schemas/common.js';

const tags = ['Tasks'];
const security = AGENT_SECURITY;

/** The agent's view of its tasks that wait for (or were decided by) its owner (issue 38). */
export const approvalRoutes: Routes = async (app, { ctx }) => {
  app.get(
    '/approvals/:id',
    {
      schema: {
        tags,
        security,
        operationId: 'getApproval',
        summary: 'One of your approvals: a task above your key’s approvalAbove and what your owner decided',
        params: IdParam,
        response: { 200: Type.Object({ approval: Approval }), ...errors(401, 403, 404) },
      },
    },
    async (request) => ({
      approval: approvalView(await getAgentApproval(ctx, request.agentId, request.params.id)),
    }),
  );

  app.get(
    '/approvals',
    {
      schema: {
        tags,
        security,
        operationId: 'listApprovals',
        summary: 'Your approvals, newest first, optionally of one status',
        querystring: ApprovalListQuery,
        response: {
          200: Type.Object({
            approvals: Type.Array(Approval),
            nextCursor: NextCursor,
            hasMore: Type.Boolean(),
          }),
          ...errors(400, 401),
        },
      },
    },
    async (request) =>
      pageView(await listApprovalsOfAgent(ctx, request.agentId, request.query), 'approvals', approvalView),
  );
};

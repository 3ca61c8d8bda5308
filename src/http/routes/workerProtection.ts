import { Type } from 'typebox';
import {
  BLOCKED_LIST_MAX,
  blockAgent,
  listBlockedAgents,
  REPORT_NOTE_MAX,
  REPORT_REASONS,
  reportTask,
  unblockAgent,
} from '../../domain/workers/protection.js';
import { type Routes, WORKER_SECURITY } from '../routeTypes.js';
import { errors, example, IdParam, Nullable } from '../schemas/common.js';

const tags = ['Worker'];
const security = WORKER_SECURITY;

const AgentIdParam = Type.Object({ agentId: Type.String({ maxLength: 100 }) });
const AGENT_ID = 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7';

const BlockView = example(Type.Object({ agentId: Type.String(), blocked: Type.Boolean() }), {
  agentId: AGENT_ID,
  blocked: true,
});

/** A worker reports a task and blocks an agent (issue 39, docs/workers-app.md). */
export const workerProtectionRoutes: Routes = async (app, { ctx }) => {
  app.post(
    '/worker/tasks/:id/report',
    {
      schema: {
        tags,
        security,
        operationId: 'reportTask',
        summary:
          'Report a task to the operators; a task reported by several different workers is hidden until an operator reviews it',
        params: IdParam,
        body: example(
          Type.Object({
            reason: Type.Enum(REPORT_REASONS, { description: 'What is wrong with the task' }),
            note: Type.Optional(Type.String({ maxLength: REPORT_NOTE_MAX, description: 'In your words' })),
          }),
          {
            reason: 'surveillance_or_harassment',
            note: 'It asks to photograph a neighbour through a window',
          },
        ),
        response: {
          200: example(
            Type.Object({
              reportId: Nullable(Type.String({ description: 'null when you had reported this task before' })),
              counted: Type.Boolean({ description: 'false when you had reported this task before' }),
              held: Type.Boolean({ description: 'true when your report hid the task for review' }),
            }),
            { reportId: 'rpt_01jq7v01x4m2c8w6t0r9b5k3n1p7', counted: true, held: false },
          ),
          ...errors(400, 401, { 404: 'Task not found' }),
        },
      },
    },
    async (request) => reportTask(ctx, request.workerId, request.params.id, request.body),
  );

  app.post(
    '/worker/agents/:agentId/block',
    {
      schema: {
        tags,
        security,
        operationId: 'blockAgent',
        summary: 'Block an agent: its tasks and offers no longer reach you, and it cannot make you offers',
        params: AgentIdParam,
        response: { 200: BlockView, ...errors(401, { 404: 'Agent not found' }) },
      },
    },
    async (request) => blockAgent(ctx, request.workerId, request.params.agentId),
  );

  app.get(
    '/worker/agents/blocked',
    {
      schema: {
        tags,
        security,
        operationId: 'listBlockedAgents',
        summary: `The agents you blocked, newest first (at most ${BLOCKED_LIST_MAX}), so you can unblock them`,
        response: {
          200: example(
            Type.Object({
              agents: Type.Array(
                Type.Object({
                  agentId: Type.String(),
                  name: Nullable(Type.String()),
                  blockedAt: Type.String({ format: 'date-time' }),
                }),
              ),
            }),
            { agents: [{ agentId: AGENT_ID, name: 'Street survey', blockedAt: '2026-03-02T10:15:00.000Z' }] },
          ),
          ...errors(401),
        },
      },
    },
    async (request) => listBlockedAgents(ctx, request.workerId),
  );

  app.delete(
    '/worker/agents/:agentId/block',
    {
      schema: {
        tags,
        security,
        operationId: 'unblockAgent',
        summary: 'Unblock an agent: its tasks and offers reach you again',
        params: AgentIdParam,
        response: {
          200: example(Type.Object({ agentId: Type.String(), blocked: Type.Boolean() }), {
            agentId: AGENT_ID,
            blocked: false,
          }),
          ...errors(401, { 404: 'Agent not found' }),
        },
      },
    },
    async (request) => unblockAgent(ctx, request.workerId, request.params.agentId),
  );
};

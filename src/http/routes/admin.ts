import { Type } from 'typebox';
import { createAgent, depositFromChain, getAgent } from '../../domain/agents.js';
import { auditMoney } from '../../domain/audit.js';
import { listNotificationLog } from '../../telegram/notificationLog.js';
import { ADMIN_SECURITY, type Routes } from '../routeTypes.js';
import { AgentMe, Transaction } from '../schemas/agent.js';
import { AmountInput, errors, IdParam, NextCursor } from '../schemas/common.js';
import { Notification, NotificationQuery, notificationView } from '../schemas/notification.js';
import { agentMeView, transactionView } from '../views.js';

const tags = ['Operator'];
const security = ADMIN_SECURITY;

/** Operator API behind ADMIN_TOKEN (the auth hook is added where this plugin is registered). */
export const adminRoutes: Routes = async (app, { ctx }) => {
  app.post(
    '/admin/agents',
    {
      schema: {
        tags,
        security,
        summary: 'Create an agent and its API key (shown only in this response)',
        body: Type.Optional(
          Type.Union([Type.Object({ name: Type.Optional(Type.String({ maxLength: 100 })) }), Type.Null()]),
        ),
        response: { 201: Type.Object({ agent: AgentMe, apiKey: Type.String() }), ...errors(400, 401) },
      },
    },
    async (request, reply) => {
      const { agent, apiKey } = await createAgent(ctx, { name: request.body?.name });
      return reply.status(201).send({ agent: agentMeView(agent, 0), apiKey });
    },
  );

  app.post(
    '/admin/agents/:id/deposits',
    {
      schema: {
        tags,
        security,
        summary:
          'Top up an agent: a real transfer to the deposit wallet with the agent’s memo, credited from the chain',
        params: IdParam,
        body: Type.Object({ amount: AmountInput }),
        response: { 201: Type.Object({ transaction: Transaction }), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const row = await depositFromChain(ctx, request.params.id, request.body.amount);
      return reply.status(201).send({ transaction: transactionView({ ...row, task_title: null }) });
    },
  );

  app.get(
    '/admin/agents/:id',
    {
      schema: {
        tags,
        security,
        summary: 'An agent’s profile and balance',
        params: IdParam,
        response: { 200: Type.Object({ agent: AgentMe }), ...errors(401, 404) },
      },
    },
    async (request) => {
      const { agent, taskCount } = await getAgent(ctx, request.params.id);
      return { agent: agentMeView(agent, taskCount) };
    },
  );

  app.get(
    '/admin/audit',
    {
      schema: {
        tags,
        security,
        summary: 'Recompute every agent’s money from the ledger and compare with the stored balances',
        response: {
          200: Type.Object({
            ok: Type.Boolean(),
            agents: Type.Integer(),
            problems: Type.Array(
              Type.Object({ agentId: Type.String(), problems: Type.Array(Type.String()) }),
            ),
          }),
          ...errors(401),
        },
      },
    },
    async () => {
      const audits = await auditMoney(ctx);
      const problems = audits.filter((a) => !a.ok).map((a) => ({ agentId: a.agentId, problems: a.problems }));
      return { ok: problems.length === 0, agents: audits.length, problems };
    },
  );

  app.get(
    '/admin/notifications',
    {
      schema: {
        tags,
        security,
        summary: 'The Telegram notifications to workers, newest first (sent, pending, failed, or recorded)',
        querystring: NotificationQuery,
        response: {
          200: Type.Object({
            notifications: Type.Array(Notification),
            nextCursor: NextCursor,
            hasMore: Type.Boolean(),
          }),
          ...errors(400, 401),
        },
      },
    },
    async (request) => {
      const { items, nextCursor, hasMore } = await listNotificationLog(ctx, request.query);
      return { notifications: items.map((i) => notificationView(i.row, i.message)), nextCursor, hasMore };
    },
  );
};

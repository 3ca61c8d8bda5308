import { Type } from 'typebox';
import { getApiKey } from '../../domain/agents/agentKeys.js';
import { getAgent, updateAgent } from '../../domain/agents/agents.js';
import { LEDGER_TYPES, listTransactions } from '../../domain/money/transactions.js';
import { pageView } from '../pageView.js';
import { AGENT_SECURITY, type Routes } from '../routeTypes.js';
import { AgentMe, AgentPatchBody, AgentPatched, PlatformStats, Transaction } from '../schemas/agent.js';
import { errors, NextCursor, Nullable } from '../schemas/common.js';
import { callingKeyView } from '../schemas/console.js';
import { CallingKey } from '../schemas/keyPolicy.js';
import { agentMeView, transactionView } from '../views.js';

const tags = ['Agent'];
const security = AGENT_SECURITY;

export const agentRoutes: Routes = async (app, { ctx, stats }) => {
  app.get(
    '/agents/me',
    {
      schema: {
        tags,
        security,
        operationId: 'getAgentProfile',
        summary: "Your profile and balance, and the calling key's scopes, spend policy and what it leaves",
        response: {
          200: Type.Object({
            agent: AgentMe,
            apiKey: Nullable({
              ...CallingKey,
              description:
                'The key that called: its scopes, spend policy and what it escrowed and has left today and this month (UTC); null in the console, where the owner acts without a key',
            }),
          }),
          ...errors(401),
        },
      },
    },
    async (request) => {
      const { agent, taskCount } = await getAgent(ctx, request.agentId);
      const key = request.apiKey ? await getApiKey(ctx, request.agentId, request.apiKey.keyId) : null;
      return { agent: agentMeView(agent, taskCount), apiKey: key && callingKeyView(key, ctx.clock.now()) };
    },
  );

  app.patch(
    '/agents/me',
    {
      schema: {
        tags,
        security,
        operationId: 'updateAgentProfile',
        summary: 'Change your display name or default webhook URL (null removes it)',
        body: AgentPatchBody,
        response: { 200: Type.Object({ agent: AgentPatched }), ...errors(400, 401) },
      },
    },
    async (request) => {
      const agent = await updateAgent(ctx, request.agentId, request.body);
      return {
        agent: { id: agent.id, name: agent.name, webhookUrl: agent.webhook_url, createdAt: agent.created_at },
      };
    },
  );

  app.get(
    '/platform/stats',
    {
      schema: {
        tags,
        security,
        operationId: 'getPlatformStats',
        summary: 'Your task and money statistics (cached for 5 minutes)',
        response: { 200: PlatformStats, ...errors(401) },
      },
    },
    (request) => stats.get(ctx, request.agentId),
  );

  app.get(
    '/transactions',
    {
      schema: {
        tags: ['Transactions'],
        security,
        operationId: 'listTransactions',
        summary: 'Your ledger, newest first',
        querystring: Type.Object({
          type: Type.Optional(Type.Enum(LEDGER_TYPES)),
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
          cursor: Type.Optional(Type.String({ maxLength: 400 })),
        }),
        response: {
          200: Type.Object({
            transactions: Type.Array(Transaction),
            nextCursor: NextCursor,
            hasMore: Type.Boolean(),
          }),
          ...errors(400, 401),
        },
      },
    },
    async (request) => {
      const result = await listTransactions(ctx, request.agentId, request.query);
      return pageView(result, 'transactions', transactionView);
    },
  );
};

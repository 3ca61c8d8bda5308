import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { getAgent, updateAgent } from '../domain/agents/agents.js';
import { listChatMessages, listChats, type Party, postMessage } from '../domain/chat/chat.js';
import { createUploadUrl, storeUpload } from '../domain/chat/uploads.js';
import { invalid } from '../domain/errors.js';
import { listEndpoints, resumeEndpoints } from '../domain/events/webhookEndpoints.js';
import { listDeliveries, redeliver, sendTestWebhook, setAgentWebhook } from '../domain/events/webhooks.js';
import { depositInfo } from '../domain/money/depositInfo.js';
import { listTransactions } from '../domain/money/transactions.js';
import { browseCatalog, catalogWorker } from '../domain/workers/catalog.js';
import { pageView } from '../http/pageView.js';
import { deliveryView, deliveryViewIn, endpointView } from '../http/routes/webhooks.js';
import { Amount, Currency } from '../http/schemas/common.js';
import {
  agentMeView,
  chatView,
  messageView,
  transactionView,
  webhookConfigView,
  workerDetailView,
  workerListEntryView,
} from '../http/views.js';
import { READ_ONLY, type ToolDef, type ToolEnv, writes } from './tool.js';

const agentParty = (env: ToolEnv): Party => ({ kind: 'agent', id: env.agentId });
/**
 * A file sent inline in a JSON-RPC message: it must fit in /mcp's 1 MiB body with the rest of the
 * message, so larger files (up to 20 MiB) go to the signed upload URL instead.
 */
export const MAX_INLINE_UPLOAD_BYTES = 512 * 1024;
/** Base64 of at most MAX_INLINE_UPLOAD_BYTES bytes. */
const MAX_BASE64_CHARS = Math.ceil(MAX_INLINE_UPLOAD_BYTES / 3) * 4;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The agent's account, the worker catalog, chat, files, webhooks and money. */
export const accountTools: ToolDef[] = [
  {
    name: 'get_agent_profile',
    title: 'Get your profile and balance',
    description: 'Your agent profile: name, webhook URL, balance and the amount locked by open tasks (TON).',
    route: 'GET /agents/me',
    annotations: READ_ONLY,
    run: async (env) => {
      const { agent, taskCount } = await getAgent(env.ctx, env.agentId);
      return { agent: agentMeView(agent, taskCount) };
    },
  },
  {
    name: 'update_agent_profile',
    title: 'Update your profile',
    description: 'Change your display name or your default webhook URL (null removes it).',
    route: 'PATCH /agents/me',
    annotations: writes({ destructive: true, idempotent: true }),
    run: async (env, args) => {
      const agent = await updateAgent(env.ctx, env.agentId, args);
      return {
        agent: { id: agent.id, name: agent.name, webhookUrl: agent.webhook_url, createdAt: agent.created_at },
      };
    },
  },
  {
    name: 'search_workers',
    title: 'Search workers',
    description:
      'Workers you can hire, filtered by skills, country, time zone, hourly rate and availability.',
    route: 'GET /agents/workers',
    annotations: READ_ONLY,
    run: async (env, args) => {
      const result = await browseCatalog(env.ctx, args as never, env.apiKey?.livemode ?? true);
      return { ...pageView(result, 'workers', workerListEntryView), total: result.total };
    },
  },
  {
    name: 'get_worker',
    title: 'Get a worker',
    description: 'One worker’s full profile: skills, rates, location, ratings and completed tasks.',
    route: 'GET /agents/workers/:id',
    rename: { id: 'workerId' },
    annotations: READ_ONLY,
    run: async (env, args) => ({
      worker: workerDetailView(await catalogWorker(env.ctx, args.workerId, env.apiKey?.livemode ?? true)),
    }),
  },
  {
    name: 'list_chats',
    title: 'List chats',
    description: 'Your chats with assigned workers (one per task), most recently active first.',
    route: 'GET /chats',
    annotations: READ_ONLY,
    run: async (env, args) => {
      const result = await listChats(env.ctx, agentParty(env), args as never);
      return pageView(result, 'chats', ({ chat, lastMessage }) => chatView(chat, lastMessage));
    },
  },
  {
    name: 'get_messages',
    title: 'Get chat messages',
    description: 'A task’s chat messages, newest first; pass nextCursor (a message id) for older ones.',
    route: 'GET /chat/:taskId/messages',
    annotations: READ_ONLY,
    run: async (env, args) => {
      const { taskId, ...query } = args;
      const result = await listChatMessages(env.ctx, agentParty(env), taskId, query as never);
      return pageView(result, 'messages', messageView);
    },
  },
  {
    name: 'send_message',
    title: 'Send a chat message',
    description:
      'Send a message to the worker of your task, optionally with a fileUrl from upload_file. Not ' +
      'idempotent: a repeat sends the message again.',
    route: 'POST /chat/:taskId/messages',
    keyed: { view: (m: Awaited<ReturnType<typeof postMessage>>) => ({ message: messageView(m) }) },
    annotations: writes({ destructive: false, idempotent: false }),
    run: (env, args) => {
      const { taskId, ...input } = args;
      return postMessage(env.ctx, agentParty(env), taskId, input);
    },
  },
  {
    name: 'upload_file',
    title: 'Upload a file',
    description:
      'Store a file (at most 20 MiB) for a chat message: up to 512 KiB inline as contentBase64 (stored at ' +
      'once, its fileUrl returned); otherwise a signed uploadUrl to PUT the bytes to within 15 minutes, and ' +
      'the fileUrl they will have.',
    route: 'POST /upload',
    extraInput: {
      type: 'object',
      properties: {
        contentBase64: Type.String({
          maxLength: MAX_BASE64_CHARS,
          description: 'The file’s bytes, base64: at most 512 KiB of file (larger files: use the uploadUrl)',
        }),
      },
    },
    annotations: writes({ destructive: false, idempotent: false }),
    run: async (env, args) => {
      if (args.contentBase64 === undefined) return createUploadUrl(env.ctx, agentParty(env), args as never);
      if (!BASE64.test(args.contentBase64)) throw invalid('contentBase64', 'must be base64');
      return storeUpload(env.ctx, env.storage, agentParty(env), {
        fileName: args.filename,
        mimeType: args.contentType,
        stream: Readable.from([Buffer.from(args.contentBase64, 'base64')]),
      });
    },
  },
  {
    name: 'configure_webhook',
    title: 'Set your webhook URL',
    description:
      'Set the URL that receives signed event webhooks (applications, messages, payments), replacing the ' +
      'previous one; null turns them off.',
    route: 'PATCH /agents/webhooks',
    annotations: writes({ destructive: true, idempotent: true }),
    run: async (env, args) => webhookConfigView(await setAgentWebhook(env.ctx, env.agentId, args.url)),
  },
  {
    name: 'test_webhook',
    title: 'Send a test webhook',
    description:
      'Send a signed "webhook.test" event to your webhook URL and report what the receiver answered.',
    route: 'POST /agents/webhooks',
    annotations: writes({ destructive: false, idempotent: false, openWorld: true }),
    run: (env) => sendTestWebhook(env.ctx, env.agentId),
  },
  {
    name: 'list_webhook_deliveries',
    title: 'List webhook deliveries',
    description: 'Your webhook deliveries with their status, attempts and last error, newest first.',
    route: 'GET /agents/webhooks/deliveries',
    annotations: READ_ONLY,
    run: async (env, args) => {
      const result = await listDeliveries(env.ctx, env.agentId, args as never);
      return pageView(result, 'deliveries', deliveryViewIn(env.apiKey?.livemode ?? true));
    },
  },
  {
    name: 'redeliver_webhook',
    title: 'Redeliver a webhook',
    description: 'Queue a failed delivery again (same delivery id) to your current webhook URL.',
    route: 'POST /agents/webhooks/deliveries/:id/redeliver',
    rename: { id: 'deliveryId' },
    annotations: writes({ destructive: false, idempotent: false, openWorld: true }),
    run: async (env, args) => ({
      delivery: deliveryView(
        await redeliver(env.ctx, env.agentId, args.deliveryId),
        env.apiKey?.livemode ?? true,
      ),
    }),
  },
  {
    name: 'list_webhook_endpoints',
    title: 'List webhook endpoints',
    description:
      'Your webhook endpoints that ever timed out, with their state: a quarantined one gets nothing until ' +
      'its quarantine ends (deliveries are held, not lost).',
    route: 'GET /agents/webhooks/endpoints',
    annotations: READ_ONLY,
    run: async (env) => ({ endpoints: (await listEndpoints(env.ctx, env.agentId)).map(endpointView) }),
  },
  {
    name: 'resume_webhook_endpoints',
    title: 'Resume quarantined webhook endpoints',
    description:
      'End the quarantine of your webhook endpoints now (all, or one origin) once the receiver is ' +
      'fixed: held deliveries go out, one first as a probe.',
    route: 'POST /agents/webhooks/endpoints/resume',
    annotations: writes({ destructive: false, idempotent: true, openWorld: true }),
    run: async (env, args) => ({
      endpoints: (await resumeEndpoints(env.ctx, env.agentId, args.origin)).map(endpointView),
    }),
  },
  {
    name: 'get_platform_stats',
    title: 'Get your statistics',
    description: 'Your tasks by status and your deposits, payouts, refunds and fees (cached for 5 minutes).',
    route: 'GET /platform/stats',
    annotations: READ_ONLY,
    run: (env) => env.stats.get(env.ctx, env.agentId),
  },
  {
    name: 'list_transactions',
    title: 'List your transactions',
    description:
      'Your ledger, newest first: deposits, escrows, payouts, refunds and fees, with chain hashes.',
    route: 'GET /transactions',
    annotations: READ_ONLY,
    run: async (env, args) => {
      const result = await listTransactions(env.ctx, env.agentId, args as never);
      return pageView(result, 'transactions', transactionView);
    },
  },
  {
    name: 'get_deposit_info',
    title: 'How to top up',
    description:
      'Where to send TON (or USDT with currency "USDT") to top up your balance: address, memo, link, and your balance of it.',
    extraInput: {
      type: 'object',
      properties: {
        currency: { type: 'string', enum: ['TON', 'USDT'], description: 'TON (default) or USDT' },
      },
    },
    output: Type.Object({
      deposit: Type.Object({
        address: Type.String({ description: 'The platform’s deposit wallet' }),
        memo: Type.String({
          description: 'Put this as the transfer’s text comment: it says the deposit is yours',
        }),
        network: Type.String(),
        link: Type.String({ description: 'ton://transfer link with the memo as text, for wallet apps' }),
        minimum: Type.String({ description: 'Smaller transfers are not credited (in `currency`)' }),
        currency: Currency,
        jettonMaster: Type.Optional(Type.String({ description: 'USDT: the only jetton credited as USDT' })),
      }),
      balance: { ...Amount, description: 'Your balance of `deposit.currency`' },
      lockedByTasks: { ...Amount, description: 'Escrowed by your open tasks of `deposit.currency`' },
      instructions: Type.String(),
    }),
    annotations: READ_ONLY,
    run: (env, args) => depositInfo(env.ctx, env.agentId, (args as { currency?: string }).currency),
  },
];

import type { TObject } from 'typebox';
import { IdParam } from '../../../src/http/schemas/common.js';
import { AgentKeyParams, AgentParams, LowBalanceBody } from '../../../src/http/schemas/console.js';
import { KeyPatchBody } from '../../../src/http/schemas/keyPolicy.js';
import { TonConnectProof } from '../../../src/http/schemas/wallet.js';
import { resolve, type Schema } from './schemaValues.js';

/**
 * What the fuzzer sends requests to: every operation of the served OpenAPI document, plus the
 * routes the document leaves out on purpose (the owner console's API, the agent API as mounted
 * under the console, the Telegram webhook, MCP, the web apps), described here with the same
 * TypeBox schemas their routes use.
 */

/** Who may call an operation: the credential the fuzzer sends as the valid one. */
export type AuthKind = 'none' | 'agent' | 'worker' | 'admin' | 'owner' | 'telegram';

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  schema: Schema;
}

export interface Target {
  /** "POST /tasks/{id}/refund", as the document writes it. */
  id: string;
  method: string;
  path: string;
  auth: AuthKind;
  params: Param[];
  /** The JSON body's schema; undefined when the operation takes none. */
  body: Schema | undefined;
  /** Takes multipart uploads (the broken-multipart cases go here). */
  multipart: boolean;
  /** Answers 200 with an open Server-Sent Events stream. */
  stream: boolean;
  /** MCP answers protocol errors as JSON-RPC (`error` is an object) and tool errors inside a 200. */
  jsonRpc: boolean;
  /** A share of the random cases: the console's copy of an agent route runs the same code. */
  weight: number;
  /**
   * The console's copy of an agent route: same handler, same schemas, other credentials. Its
   * field-by-field control-character cases are the agent route's and are not sent twice.
   */
  copyOf?: string;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
const AUTH: Record<string, AuthKind> = { agentKey: 'agent', telegramInitData: 'worker', adminToken: 'admin' };

/** Every operation of the served document. */
export function documentTargets(doc: Schema): Target[] {
  const targets: Target[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method] as Schema | undefined;
      if (!op) continue;
      const scheme = Object.keys(op.security?.[0] ?? {})[0];
      const content = (op.requestBody?.content ?? {}) as Record<string, Schema>;
      const okContent = Object.keys(op.responses?.['200']?.content ?? {});
      targets.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        auth: scheme ? (AUTH[scheme] ?? 'none') : 'none',
        params: ((op.parameters ?? []) as Schema[]).map((p) => {
          const param = resolve(doc, p);
          return { name: param.name, in: param.in, schema: param.schema ?? {} };
        }),
        body: content['application/json']?.schema,
        multipart: 'multipart/form-data' in content || /\/upload$/.test(path),
        stream: okContent.includes('text/event-stream'),
        jsonRpc: false,
        weight: 1,
      });
    }
  }
  return targets;
}

const pathParams = (schema: TObject): Param[] =>
  Object.entries(schema.properties).map(([name, s]) => ({ name, in: 'path' as const, schema: s as Schema }));

const hidden = (t: Partial<Target> & Pick<Target, 'method' | 'path' | 'auth'>): Target => ({
  id: `${t.method} ${t.path}`,
  params: [],
  body: undefined,
  multipart: false,
  stream: false,
  jsonRpc: false,
  weight: 1,
  ...t,
});

const NAME_BODY: Schema = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', maxLength: 100 } },
};
const AMOUNT_BODY: Schema = {
  type: 'object',
  required: ['amount'],
  properties: { amount: { type: ['string', 'number'], pattern: '^\\d{1,3}(\\.\\d{1,9})?$' } },
};

const USDT_TOP_UP_BODY: Schema = {
  type: 'object',
  required: ['amount', 'from'],
  properties: {
    amount: { type: ['string', 'number'], pattern: '^\\d{1,3}(\\.\\d{1,6})?$' },
    from: { type: 'string', maxLength: 100 },
  },
};

/** A Telegram update as the bot reads it: a /start message or an offer button press. */
const TELEGRAM_UPDATE: Schema = {
  type: 'object',
  required: ['update_id'],
  properties: {
    update_id: { type: 'integer', minimum: 1 },
    message: {
      type: 'object',
      properties: {
        message_id: { type: 'integer', minimum: 1 },
        date: { type: 'integer', minimum: 1 },
        text: { type: 'string', enum: ['/start', '/start task_x', 'hello'] },
        chat: {
          type: 'object',
          properties: { id: { type: 'integer' }, type: { type: 'string', enum: ['private'] } },
        },
        from: {
          type: 'object',
          properties: {
            id: { type: 'integer', minimum: 1 },
            is_bot: { type: 'boolean' },
            first_name: { type: 'string' },
            username: { type: 'string' },
          },
        },
      },
    },
    callback_query: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        chat_instance: { type: 'string' },
        data: { type: 'string', pattern: '^offer:(accept|decline):[A-Za-z0-9_]{1,50}$' },
        from: {
          type: 'object',
          properties: {
            id: { type: 'integer', minimum: 1 },
            is_bot: { type: 'boolean' },
            first_name: { type: 'string' },
          },
        },
      },
    },
  },
};

/** A JSON-RPC message to /mcp: the tools' own input schemas are filled in by the fuzzer. */
const MCP_MESSAGE: Schema = {
  type: 'object',
  required: ['jsonrpc', 'method', 'id'],
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { type: ['integer', 'string'] },
    method: { type: 'string', enum: ['tools/call', 'tools/list', 'initialize', 'ping', 'nope'] },
    params: {
      type: 'object',
      properties: { name: { type: 'string' }, arguments: { type: 'object', properties: {} } },
    },
  },
};

/** The routes the document leaves out, and the agent API once more under the console. */
export function hiddenTargets(documented: Target[]): Target[] {
  const owner = '/console/api';
  const agent = `${owner}/agents/{agentId}`;
  const keyParams = pathParams(AgentKeyParams);
  const agentParams = pathParams(AgentParams);
  const own: Target[] = [
    // The acceptable-use policy page screening refusals link to (HTML for people, not in the document).
    hidden({ method: 'GET', path: '/policy', auth: 'none' }),
    hidden({ method: 'POST', path: `${owner}/auth/challenge`, auth: 'none' }),
    hidden({ method: 'POST', path: `${owner}/auth/login`, auth: 'none', body: TonConnectProof as Schema }),
    hidden({ method: 'GET', path: `${owner}/session`, auth: 'owner' }),
    hidden({ method: 'GET', path: `${owner}/agents`, auth: 'owner' }),
    hidden({ method: 'POST', path: `${owner}/agents`, auth: 'owner', body: NAME_BODY }),
    hidden({ method: 'GET', path: agent, auth: 'owner', params: agentParams }),
    hidden({ method: 'POST', path: `${agent}/keys`, auth: 'owner', params: agentParams, body: NAME_BODY }),
    hidden({ method: 'POST', path: `${agent}/keys/{keyId}/revoke`, auth: 'owner', params: keyParams }),
    hidden({
      method: 'PATCH',
      path: `${agent}/keys/{keyId}`,
      auth: 'owner',
      params: keyParams,
      body: KeyPatchBody as Schema,
    }),
    hidden({
      method: 'POST',
      path: `${agent}/faucet`,
      auth: 'owner',
      params: agentParams,
      body: AMOUNT_BODY,
    }),
    hidden({
      method: 'POST',
      path: `${agent}/usdt-top-up`,
      auth: 'owner',
      params: agentParams,
      body: USDT_TOP_UP_BODY,
    }),
    hidden({ method: 'GET', path: `${agent}/spending`, auth: 'owner', params: agentParams }),
    // Low-balance alerts (issue 38): a threshold per currency, or null.
    hidden({
      method: 'PUT',
      path: `${agent}/low-balance`,
      auth: 'owner',
      params: agentParams,
      body: LowBalanceBody as Schema,
    }),
    // A key's spending per day and its activity log (issue 38).
    hidden({ method: 'GET', path: `${agent}/keys/{keyId}/spending`, auth: 'owner', params: keyParams }),
    hidden({
      method: 'GET',
      path: `${agent}/keys/{keyId}/activity`,
      auth: 'owner',
      params: [
        ...keyParams,
        { name: 'q', in: 'query', schema: { type: 'string', maxLength: 200 } },
        { name: 'cursor', in: 'query', schema: { type: 'string', maxLength: 300 } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } },
      ],
    }),
    // The bonus dialog's preview (issue 40): a task's bonuses and what `amount` would take.
    hidden({
      method: 'GET',
      path: `${agent}/tasks/{taskId}/bonuses`,
      auth: 'owner',
      params: [
        ...agentParams,
        { name: 'taskId', in: 'path', schema: { type: 'string', maxLength: 100 } },
        { name: 'amount', in: 'query', schema: { type: 'string', maxLength: 40 } },
      ],
    }),
    // The owner's approvals queue (issue 38) and its decisions.
    hidden({ method: 'GET', path: `${owner}/approvals`, auth: 'owner' }),
    ...['approve', 'decline'].map((action) =>
      hidden({
        method: 'POST',
        path: `${owner}/approvals/{id}/${action}`,
        auth: 'owner',
        params: pathParams(IdParam),
      }),
    ),
    // Last among the console's own: it ends the session (each target signs in afresh anyway).
    hidden({ method: 'POST', path: `${owner}/auth/logout`, auth: 'owner' }),
  ];
  const asAgent = documented
    .filter((t) => t.auth === 'agent')
    .map((t) => ({
      ...t,
      id: `${t.method} ${agent}/api${t.path}`,
      path: `${agent}/api${t.path}`,
      auth: 'owner' as const,
      params: [...agentParams, ...t.params],
      weight: 0.3,
      copyOf: t.id,
    }));
  const others: Target[] = [
    hidden({ method: 'POST', path: '/telegram/webhook', auth: 'telegram', body: TELEGRAM_UPDATE }),
    hidden({ method: 'POST', path: '/mcp', auth: 'agent', body: MCP_MESSAGE, jsonRpc: true, weight: 3 }),
    hidden({ method: 'GET', path: '/openapi.json', auth: 'none', weight: 0.2 }),
    // For a monitoring system: METRICS_TOKEN or the admin token.
    hidden({ method: 'GET', path: '/metrics', auth: 'admin', weight: 0.2 }),
    // Streamable HTTP without sessions: GET and DELETE exist only to say so.
    hidden({ method: 'GET', path: '/mcp', auth: 'agent', jsonRpc: true, weight: 0.2 }),
    hidden({ method: 'DELETE', path: '/mcp', auth: 'agent', jsonRpc: true, weight: 0.2 }),
    ...['/docs', '/docs/docs.js', '/docs/docs.css', '/app', '/console'].map((path) =>
      hidden({ method: 'GET', path, auth: 'none', weight: 0.2 }),
    ),
    ...['/app', '/console'].map((prefix) =>
      hidden({
        method: 'GET',
        path: `${prefix}/{rest}`,
        auth: 'none',
        params: [{ name: 'rest', in: 'path', schema: { type: 'string' } }],
        weight: 0.3,
      }),
    ),
    hidden({ method: 'GET', path: '/tonconnect-manifest.json', auth: 'none', weight: 0.2 }),
    hidden({ method: 'GET', path: '/favicon.ico', auth: 'none', weight: 0.2 }),
    hidden({ method: 'GET', path: '/tonconnect/wallets.json', auth: 'none', weight: 0.2 }),
    ...[
      ['/tonconnect/wallet-icons/{appName}', 'appName'],
      ['/tonconnect/ui-icons/{name}', 'name'],
    ].map(([path, name]) =>
      hidden({
        method: 'GET',
        path: path!,
        auth: 'none',
        params: [{ name: name!, in: 'path', schema: { type: 'string' } }],
        weight: 0.3,
      }),
    ),
  ];
  return [...own, ...asAgent, ...others];
}

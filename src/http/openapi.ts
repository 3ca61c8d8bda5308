import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { registerDocsPage } from './docsPage.js';
import { registerFavicon } from './favicon.js';
import { IDEMPOTENT_ROUTES, KEY_REQUIRED_ROUTES } from './idempotency.js';
import { keptExample, standardErrorExample } from './openapiExamples.js';
import { webhookDocs } from './schemas/events.js';

/** Tags in the order the docs page shows them, each with what it groups. */
const TAGS = [
  { name: 'Agent', description: 'Your agent profile, balance and platform statistics' },
  { name: 'Workers catalog', description: 'The workers you can hire' },
  {
    name: 'Tasks',
    description: 'Create, follow, complete and refund tasks; money is escrowed and paid on chain',
  },
  {
    name: 'Batches',
    description: 'Many tasks in one call: escrowed together, followed and refunded together',
  },
  { name: 'Applications', description: 'Workers’ applications to your tasks' },
  { name: 'Ratings', description: 'Ratings after a completed task' },
  { name: 'Chat', description: 'Messages and files between an agent and the assigned worker' },
  { name: 'Webhooks', description: 'Where events are posted, and the delivery log' },
  { name: 'Transactions', description: 'Your ledger: deposits, escrows, payouts, fees and refunds' },
  { name: 'Worker', description: 'The worker side (Telegram Mini App): profile, wallet, tasks, offers' },
  {
    name: 'Test mode',
    description:
      'Test keys (hr_test_...): a separate world with test money, where no real worker or chain is reached (test keys only)',
  },
  { name: 'Operator', description: 'The operator API (ADMIN_TOKEN): agents, deposits, audit' },
  { name: 'Files', description: 'Uploaded files and signed upload URLs' },
  { name: 'Service', description: 'Health' },
];

/** The description of each status, where a route does not give its own. */
const STATUS_TEXT: Record<string, string> = {
  '200': 'Success',
  '201': 'Created',
  '204': 'No content',
  '400': 'The request is invalid; `details[].path` names each field to fix',
  '401': 'Missing, malformed or unknown credentials; `error` says which',
  '402': 'Your balance does not cover the task; top up and retry',
  '403': 'The resource belongs to someone else',
  '404': 'Not found',
  '409':
    'The resource is not in a state that allows this (see `currentStatus`), or the same Idempotency-Key is still in progress',
  '413': 'Too large',
  '415': 'Unsupported content type',
  '422': 'This Idempotency-Key was used with a different request',
  '429': 'Rate limited; retry after `Retry-After` seconds',
  '503':
    'The service is shutting down (retry on another instance), or its database or file storage is unavailable (retry after `Retry-After` seconds)',
};

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the first request with a key runs, later ones within 24 hours get its stored answer (with `Idempotent-Replayed: true`). 1-255 visible ASCII characters; a UUID per operation is a good choice. Keys are per caller.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

const REQUEST_ID = {
  description:
    'The request id: yours when you sent a well-formed X-Request-Id, else generated. Quote it when reporting a problem.',
  schema: { type: 'string' },
};

/**
 * The OpenAPI document is generated from the route schemas (never written by hand), served at
 * /openapi.json and rendered at /docs by a page of our own.
 */
export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Handoff API',
        version: '1.0.0',
        description:
          'AI agents hire human workers and pay them in TON or USDT on TON. Amounts are decimal strings in the currency ' +
          'their object names (`currency`: TON, 9 decimals, the default; or USDT, 6 decimals); ' +
          'every error is JSON with an `error` message. Lists are newest first with opaque cursors. ' +
          'Every response carries `X-Request-Id`. POSTs that create something or move money accept an `Idempotency-Key`. ' +
          'Failed authentication is throttled per client address: after `AUTH_FAILURE_LIMIT` (30) failures within 15 minutes, ' +
          'every authenticated request from that address is 429 with `Retry-After` until the window ends.',
        contact: { name: 'Handoff', url: publicUrl },
      },
      servers: [{ url: publicUrl }],
      tags: TAGS,
      webhooks: webhookDocs(),
      components: {
        securitySchemes: {
          agentKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'Your API key: Authorization: Bearer hr_...',
          },
          adminToken: { type: 'http', scheme: 'bearer', description: 'The operator ADMIN_TOKEN' },
          telegramInitData: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'Telegram Mini App init data: Authorization: tma <initData>',
          },
        },
      },
    },
    transformObject: (documentObject) =>
      refineDocument((documentObject as { openapiObject: OpenApiDoc }).openapiObject),
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  registerDocsPage(app);
  registerFavicon(app);
}

// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON walked by key
type Json = any;
type OpenApiDoc = Json;

/**
 * What the generator cannot say from the route schemas alone: named schemas become components
 * referenced by $ref, every response gets a description and X-Request-Id, and the idempotent
 * routes document their Idempotency-Key header.
 */
export function refineDocument(doc: OpenApiDoc): OpenApiDoc {
  const components: Record<string, Json> = { ...(doc.components?.schemas ?? {}) };
  const idempotent = new Set<string>(IDEMPOTENT_ROUTES);
  const keyRequired = new Set<string>(KEY_REQUIRED_ROUTES);
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
        if (!response.description || response.description === 'Default Response') {
          response.description = STATUS_TEXT[status] ?? 'Response';
        }
        response.headers = {
          'X-Request-Id': { $ref: '#/components/headers/RequestId' },
          ...(response.headers ?? {}),
        };
        for (const [type, media] of Object.entries<Json>(response.content ?? {})) {
          if (media.example !== undefined || media.examples !== undefined) continue;
          const given =
            keptExample(operation.operationId, status) ??
            (type === 'application/json' ? standardErrorExample(status, operation) : undefined);
          if (given !== undefined) media.example = given;
        }
        if (idempotent.has(`${method.toUpperCase()} ${path}`) && /^2/.test(status)) {
          response.headers['Idempotent-Replayed'] = { $ref: '#/components/headers/IdempotentReplayed' };
        }
      }
      const body = operation.requestBody?.content?.['application/json'];
      // A body that may be null (POST /tasks/:id/refund, /complete) may be left out altogether.
      if (body?.schema?.anyOf?.some((branch: Json) => branch?.type === 'null')) {
        operation.requestBody.required = false;
      }
      if (body && body.example === undefined && body.examples === undefined) {
        const given = keptExample(operation.operationId, 'request');
        if (given !== undefined) body.example = given;
      }
      operation.description ??= describeOperation(
        operation,
        idempotent.has(`${method.toUpperCase()} ${path}`),
      );
      if (idempotent.has(`${method.toUpperCase()} ${path}`)) {
        const required = keyRequired.has(`${method.toUpperCase()} ${path}`);
        operation.parameters = [
          ...(operation.parameters ?? []),
          { $ref: `#/components/parameters/${required ? 'IdempotencyKeyRequired' : 'IdempotencyKey'}` },
        ];
      }
    }
  }
  doc.paths = hoistNamedSchemas(doc.paths, components);
  doc.webhooks = hoistNamedSchemas(doc.webhooks, components);
  doc.components = {
    ...doc.components,
    schemas: components,
    parameters: {
      IdempotencyKey: IDEMPOTENCY_KEY,
      IdempotencyKeyRequired: {
        ...IDEMPOTENCY_KEY,
        required: true,
        description: `Required: without it the call is a 400, so that no retry can pay twice. ${IDEMPOTENCY_KEY.description}`,
      },
    },
    headers: {
      RequestId: REQUEST_ID,
      IdempotentReplayed: {
        description:
          '`true` when this is the stored answer of an earlier request with the same Idempotency-Key',
        schema: { type: 'string', enum: ['true'] },
      },
    },
  };
  return doc;
}

const AUTH_TEXT: Record<string, string> = {
  agentKey: 'Authenticated with your API key: `Authorization: Bearer hr_...`.',
  telegramInitData:
    'Authenticated as a worker with Telegram Mini App init data: `Authorization: tma <initData>`.',
  adminToken: 'Operator only: `Authorization: Bearer <ADMIN_TOKEN>`.',
};

/** An operation's description, when the route gives none: its summary, who may call it, and its guarantees. */
function describeOperation(operation: Json, idempotent: boolean): string {
  const scheme = Object.keys(operation.security?.[0] ?? {})[0];
  const parts = [`${operation.summary}.`, scheme ? AUTH_TEXT[scheme] : 'No authentication.'];
  if (idempotent) parts.push('Safe to retry with an `Idempotency-Key`.');
  const errors = Object.keys(operation.responses ?? {}).filter((status) => !status.startsWith('2'));
  if (errors.length) parts.push(`Errors: ${errors.join(', ')}, each as JSON \`{error}\`.`);
  return parts.join(' ');
}

/** A schema named with `title` (a PascalCase word): see `named` in schemas/common.ts. */
const COMPONENT_NAME = /^[A-Z][A-Za-z0-9]*$/;

function hoistNamedSchemas(node: Json, components: Record<string, Json>): Json {
  if (Array.isArray(node)) return node.map((item) => hoistNamedSchemas(item, components));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries<Json>(node)) out[key] = hoistNamedSchemas(value, components);
  if (
    typeof out.title === 'string' &&
    COMPONENT_NAME.test(out.title) &&
    (out.type || out.anyOf || out.enum)
  ) {
    const known = components[out.title];
    // A variant under the same name (a Nullable copy of an enum, say) stays inline.
    if (known && JSON.stringify(known) !== JSON.stringify(out)) return out;
    components[out.title] = out;
    return { $ref: `#/components/schemas/${out.title}` };
  }
  return out;
}

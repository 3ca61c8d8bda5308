/**
 * The examples the API reference shows for errors whose body is the same on every route, so a
 * route writes examples only for its own errors (a 404's "Task not found", a 409's reason): see
 * `errors()` and `example()` in schemas/common.ts. test/http/openapiExamples.test.ts checks every
 * example against its schema and fails on an operation that lacks one.
 */

import { STORAGE_RETRY_AFTER_S } from './errors.js';
import { OPERATION_EXAMPLES } from './examples/index.js';

// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON walked by key
type Json = any;

const UNAUTHORIZED: Record<string, Json> = {
  agentKey: {
    error: 'Unauthorized',
    reason: 'missing',
    message: 'No API key. Send your API key as: Authorization: Bearer hr_...',
  },
  adminToken: {
    error: 'Unauthorized',
    reason: 'unknown',
    message: 'Wrong token. Send the ADMIN_TOKEN as: Authorization: Bearer <ADMIN_TOKEN>',
  },
  telegramInitData: {
    error: 'Unauthorized',
    reason: 'malformed',
    message:
      'The init data is expired. Send fresh Telegram Mini App init data as: Authorization: tma <initData>',
  },
};

const STANDARD: Record<string, Json> = {
  '403': { error: 'Access denied' },
  '413': {
    error:
      "Request body is too large (at most 1 MiB here); send files through the upload routes (POST /upload, or upload_file's uploadUrl)",
  },
  '415': { error: 'Unsupported Content-Type; send application/json' },
  '422': {
    error: 'This Idempotency-Key was already used with a different request; use a new key for a new request',
  },
  '429': {
    error: 'Rate limit exceeded',
    retryAfter: 42,
    message: 'At most 100 requests per minute per key; retry in 42 s',
  },
  '503': { error: `File storage is unavailable; nothing was stored; retry in ${STORAGE_RETRY_AFTER_S} s` },
};

/** The example kept in src/http/examples/ for an operation's request body or one of its statuses. */
export function keptExample(operationId: string | undefined, what: 'request' | string): unknown {
  const kept = operationId ? OPERATION_EXAMPLES[operationId] : undefined;
  return what === 'request' ? kept?.request : kept?.responses[what];
}

/** The standard example for `status` of `operation`, or undefined when the route must give its own. */
export function standardErrorExample(status: string, operation: Json): Json | undefined {
  if (status === '401') {
    const scheme = Object.keys(operation.security?.[0] ?? {})[0] ?? 'agentKey';
    return UNAUTHORIZED[scheme] ?? UNAUTHORIZED.agentKey;
  }
  if (status === '400') return validationExample(operation);
  return STANDARD[status];
}

/** A 400 naming a field this operation really has: the first required one of its body or parameters. */
function validationExample(operation: Json): Json {
  const body = operation.requestBody?.content?.['application/json']?.schema;
  const required: string[] = body?.required ?? [];
  if (required.length) {
    return {
      error: 'Validation failed',
      details: [{ path: required[0], message: `must have required property '${required[0]}'` }],
    };
  }
  const param = (operation.parameters ?? []).find((p: Json) => p.in === 'path' || p.in === 'query');
  if (param?.in === 'path') {
    return {
      error: 'Validation failed',
      details: [{ path: param.name, message: 'must NOT have more than 100 characters' }],
    };
  }
  if (param?.name === 'limit' || param?.name === 'cursor' || param) {
    const name = param.name;
    return {
      error: 'Validation failed',
      details: [
        {
          path: name,
          message: name === 'limit' ? 'must be <= 100' : 'must NOT have more than 400 characters',
        },
      ],
    };
  }
  return { error: 'Invalid JSON body' };
}

import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DATABASE_RETRY_AFTER_S, isDatabaseUnavailable } from '../db/unavailable.js';
import { DomainError, type DomainErrorKind } from '../domain/errors.js';
import { StorageUnavailableError } from '../storage/fileStorage.js';

/** Seconds a client is told to wait when file storage is down. */
export const STORAGE_RETRY_AFTER_S = 5;

/** The HTTP status of each kind of domain error (MCP tools report the same). */
export const STATUS: Record<DomainErrorKind, number> = {
  validation: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
};

interface AjvIssue {
  instancePath?: string;
  message?: string;
  params?: { missingProperty?: string; allowedValues?: unknown[] };
}

/** JSON-pointer-ish path of a schema error, naming the field the caller got wrong. */
function issuePath(context: string | undefined, issue: AjvIssue): string {
  const base = (issue.instancePath ?? '').replace(/^\//, '');
  const field = issue.params?.missingProperty
    ? [base, issue.params.missingProperty].filter(Boolean).join('/')
    : base;
  return field || context || 'body';
}

function issueMessage(issue: AjvIssue): string {
  if (issue.params?.allowedValues) return `must be one of ${issue.params.allowedValues.join(', ')}`;
  return issue.message ?? 'is invalid';
}

/**
 * The longest path parameter the router passes on, escaped: a file URL's name (200 characters,
 * each up to 12 once percent-encoded). Longer ones are refused by the router itself; shorter
 * ones reach the route, whose schema names the limit (ids: 100).
 */
export const MAX_PARAM_LENGTH = 2400;

/**
 * The router's own refusals, before any route or hook runs: a path with a broken percent-escape
 * or a parameter over MAX_PARAM_LENGTH. Fastify's default answers were a 414 and a 400 of its
 * own shape, neither in the document; they are a 400 like any other invalid parameter.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const message =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? `a path parameter is longer than ${MAX_PARAM_LENGTH} characters; ids are at most 100`
      : 'the path holds a malformed percent-escape (such as %E0%A4%A); encode each parameter with encodeURIComponent';
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH' || error.code === 'FST_ERR_BAD_URL') {
    reply.status(400).send({ error: 'Validation failed', details: [{ path: 'params', message }] });
    return;
  }
  reply.status(500).send({ error: 'Internal server error; the request was not completed' });
}

/**
 * The database is away (PostgreSQL restarting, a network cut, SQLite's disk full): nothing was
 * committed (a transaction that broke is rolled back), so the caller may send the same request
 * again, with the same Idempotency-Key for a write. One warn line per request, without a stack:
 * the outage itself is logged by the pool's listener and by GET /ready.
 */
export function databaseUnavailable(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const message = error instanceof Error ? error.message : String(error);
  request.log.warn({ reason: message }, 'the database is unavailable; answered 503');
  return reply
    .status(503)
    .header('retry-after', DATABASE_RETRY_AFTER_S)
    .send({
      error: `The database is unavailable; nothing was changed; retry in ${DATABASE_RETRY_AFTER_S} s (with the same Idempotency-Key for a write)`,
    });
}

/**
 * A 400 names every bad field (the validators run with allErrors), up to this many; the rest are
 * counted in `detailsOmitted`. A 500-item array of wrong items was a 501-line answer.
 */
export const MAX_DETAILS = 20;

/**
 * The one error handler: every error leaves as JSON `{error, ...}` with a message that tells the
 * caller what to do. Unexpected errors are logged with their stack and answered with a generic
 * 500 that never leaks internals.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof DomainError) {
      if (error.kind === 'rate_limited' && typeof error.extra.retryAfter === 'number') {
        reply.header('retry-after', error.extra.retryAfter);
      }
      return reply.status(STATUS[error.kind]).send({ error: error.message, ...error.extra });
    }
    if (error.validation) {
      const issues = error.validation as AjvIssue[];
      const details = issues.slice(0, MAX_DETAILS).map((issue) => ({
        path: issuePath(error.validationContext, issue),
        message: issueMessage(issue),
      }));
      const omitted = issues.length - details.length;
      return reply
        .status(400)
        .send({ error: 'Validation failed', details, ...(omitted > 0 ? { detailsOmitted: omitted } : {}) });
    }
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return reply.status(400).send({ error: 'Invalid JSON body' });
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return reply.status(413).send({ error: tooLargeMessage(request.routeOptions.bodyLimit) });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return reply.status(415).send({ error: 'Unsupported Content-Type; send application/json' });
    }
    if (error instanceof SyntaxError || (error as { type?: string }).type === 'entity.parse.failed') {
      return reply.status(400).send({ error: 'Invalid JSON body' });
    }
    if (error instanceof StorageUnavailableError) {
      request.log.warn({ err: error.cause }, 'file storage is unavailable');
      return reply
        .status(503)
        .header('retry-after', STORAGE_RETRY_AFTER_S)
        .send({
          error: `File storage is unavailable; nothing was stored; retry in ${STORAGE_RETRY_AFTER_S} s`,
        });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return reply.status(status).send({ error: error.message });
    if (isDatabaseUnavailable(error)) return databaseUnavailable(error, request, reply);
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ error: 'Internal server error; the request was not completed' });
  });

  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({ error: `Route ${request.method} ${request.url.split('?')[0]} not found` }),
  );
}

/** The 413 text: the route's limit, and where files go instead. */
function tooLargeMessage(limitBytes: number | undefined): string {
  if (!limitBytes) return `Request body is too large${UPLOAD_HINT}`;
  const mib = limitBytes / (1024 * 1024);
  if (Number.isInteger(mib)) return `Request body is too large (at most ${mib} MiB here)${UPLOAD_HINT}`;
  // A short route (see bodyLimits.ts): no file belongs there.
  const kib = limitBytes / 1024;
  const limit = Number.isInteger(kib) ? `${kib} KiB` : `${limitBytes} bytes`;
  return `Request body is too large (at most ${limit} here); this route takes a few short fields: send only those`;
}

const UPLOAD_HINT = "; send files through the upload routes (POST /upload, or upload_file's uploadUrl)";

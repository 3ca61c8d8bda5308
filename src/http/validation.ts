import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { ValidationErrorBody } from './schemas/common.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

const SHARED: Options = {
  // Unknown fields are dropped before handlers see them: `status` or `balance` in a create-task
  // body changes nothing.
  removeAdditional: 'all',
  useDefaults: true,
  allErrors: true,
  allowUnionTypes: true,
  strict: false,
  // Our schemas are fixed TypeBox definitions, not input: checking each against the JSON Schema
  // meta-schema made every Ajv compile that meta-schema first (about 100 ms of CPU per instance
  // at start-up). A malformed schema is a bug in our code, which the OpenAPI lint
  // (test/http/openapi.test.ts) and each route's tests catch.
  validateSchema: false,
};

/**
 * The process's validators, made with the first app: a compiled validator depends only on its
 * schema and these fixed options, so a process that builds the app again (the tests build several
 * hundred) reuses them instead of compiling every schema again (profiled: ajv's compile was about
 * half a second of CPU per test app). ajv reuses a compiled validator for the same schema object;
 * `compiled` also reuses it for an equal schema built again (a shared path parameter, a page query).
 */
let validators: { strict: Ajv; coercing: Ajv; compiled: Map<string, ValidateFunction> } | undefined;

function makeValidators() {
  return {
    strict: addFormats(new Ajv({ ...SHARED, coerceTypes: false })),
    coercing: addFormats(new Ajv({ ...SHARED, coerceTypes: 'array' })),
    compiled: new Map<string, ValidateFunction>(),
  };
}

/**
 * Two validators. Query strings, path parameters and headers arrive as text, so they are coerced
 * (`limit=5` is the number 5). JSON bodies are not: `"score": "5"` or `"title": 123` is a 400
 * that says which type was expected, never a silent conversion.
 */
export function registerValidation(app: FastifyInstance): void {
  validators ??= makeValidators();
  const { strict, coercing, compiled } = validators;
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    const key = `${httpPart === 'body' ? 'body' : 'text'} ${schemaText(schema)}`;
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(schema);
      compiled.set(key, validate);
    }
    return validate;
  });
  app.addHook('onRoute', documentValidationErrors);
}

/**
 * Every route that takes input documents the 400 its input can earn, from one rule instead of a
 * list kept by hand (twelve operations once answered an undocumented 400): path parameters (the
 * router refuses a broken escape), a query string, a body (or a method that carries one: a broken
 * JSON body is a 400 before any schema runs), or an Idempotency-Key. Only a GET without path
 * parameters or query string takes nothing that can be wrong (the NUL guard ignores undeclared
 * query parameters for that reason).
 */
function documentValidationErrors(route: RouteOptions): void {
  const schema = route.schema;
  if (!schema?.response || (schema.response as Record<string, unknown>)[400]) return;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const carriesBody = methods.some((m) => m !== 'GET' && m !== 'HEAD');
  if (!schema.params && !schema.querystring && !schema.body && !carriesBody && !route.url.includes(':'))
    return;
  schema.response = { ...(schema.response as object), 400: ValidationErrorBody };
}

/** The schema as JSON: what ajv compiles from (TypeBox's symbol keys are not part of it). */
function schemaText(schema: unknown): string {
  return JSON.stringify(schema, (_key, value) => (typeof value === 'bigint' ? `${value}n` : value));
}

const NUL = '\u0000';
const NUL_MESSAGE = 'must not contain the NUL character (U+0000); remove it and send again';
/** Half of a surrogate pair without its other half: not Unicode text, UTF-8 cannot encode it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const SURROGATE_MESSAGE =
  'must be Unicode text: it holds a lone surrogate (half of a UTF-16 pair, U+D800-U+DFFF); send the whole character';
/** Deeper than any request schema nests; a deeper body is refused by its schema anyway. */
const MAX_DEPTH = 8;

export interface TextProblem {
  /** JSON-pointer-ish, without the leading slash ('' for the value itself). */
  path: string;
  message: string;
}

function textProblem(text: string): string | null {
  if (text.includes(NUL)) return NUL_MESSAGE;
  if (LONE_SURROGATE.test(text)) return SURROGATE_MESSAGE;
  return null;
}

/** Every string (and object key) in `value` holding U+0000 or a lone surrogate, with what is wrong. */
export function textProblems(value: unknown, at = '', depth = 0, found: TextProblem[] = []): TextProblem[] {
  if (typeof value === 'string') {
    const message = textProblem(value);
    if (message) found.push({ path: at, message });
  } else if (value !== null && typeof value === 'object' && depth < MAX_DEPTH) {
    for (const [key, item] of Object.entries(value)) {
      const path = at ? `${at}/${key}` : key;
      const keyMessage = textProblem(key);
      if (keyMessage) found.push({ path, message: keyMessage });
      textProblems(item, path, depth + 1, found);
    }
  }
  return found;
}

/**
 * U+0000 anywhere the caller typed text (body, query string, path) is refused in one place,
 * before any route runs: PostgreSQL cannot store it in text ("invalid byte sequence for encoding
 * UTF8: 0x00") while SQLite can, and both databases must answer the same. So is a lone surrogate
 * (JSON can carry "\ud800"): either database would store U+FFFD in its place, and
 * encodeURIComponent throws on it (a file URL from such a name was a 500). Routes marked
 * `config: { acceptNul: true }` (Telegram's updates, which are not typed by our caller) opt out.
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    /** Skip the NUL guard: the route's text does not come from our caller (Telegram updates). */
    acceptNul?: boolean;
  }
}

export function registerNulGuard(app: FastifyInstance): void {
  // A callback hook: it runs on every request and answers at once either way.
  app.addHook('preValidation', (request, reply, done) => {
    if (request.routeOptions.config?.acceptNul) return done();
    // One list for the three parts: nothing is allocated on the usual, clean request.
    const problems: TextProblem[] = [];
    textProblems(request.params, '', 0, problems);
    // A query parameter no schema declares is never read: it cannot be stored or echoed.
    if (request.routeOptions.schema?.querystring) textProblems(request.query, '', 0, problems);
    if (!request.isMultipart?.()) textProblems(request.body, '', 0, problems);
    if (problems.length === 0) return done();
    reply.status(400).send({
      error: 'Validation failed',
      details: problems.map(({ path, message }) => ({ path: path || 'body', message })),
    });
  });
}

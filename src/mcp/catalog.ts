import { createHash } from 'node:crypto';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { DomainError } from '../domain/errors.js';
import { IDEMPOTENCY_KEY_PATTERN, idempotent } from '../domain/idempotency.js';
import { STATUS } from '../http/errors.js';
import { KEY_REQUIRED_MESSAGE } from '../http/idempotency.js';
import type { Bucket, Counted } from '../http/rateLimit.js';
import { compactTools } from './compactTools.js';
import { ErrorCode } from './jsonRpcCodes.js';
import { type JsonSchema, mergeObjects, objectBranch, objectOutput } from './jsonSchema.js';
import { protocolError } from './protocolError.js';
import type { RouteTable } from './routeTable.js';
import type { Args, ToolDef, ToolEnv } from './tool.js';
import { accessKey, refusal, type ToolAccess } from './toolAccess.js';
import { toolsetOf } from './toolsets.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

interface Entry {
  def: ToolDef;
  validate: ValidateFunction;
  bucket: Bucket;
}

export interface CallDeps {
  /** Counts the call against the agent's bucket, as the REST route would. */
  count(bucket: Bucket): Promise<Counted>;
  logError(error: unknown, tool: string): void;
}

/**
 * Tool arguments arrive as typed JSON, so nothing is coerced (as for REST bodies); unknown fields
 * are dropped and defaults filled in, as REST does. One validator per input schema for the
 * process: a process that builds the app again (the tests build several hundred) reuses them
 * (profiled: compiling the tools' inputs was about 400 ms of CPU per test app).
 */
let argumentsAjv: Ajv | undefined;
const compiledInputs = new Map<string, ValidateFunction>();

function compiledInput(schema: JsonSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiledInputs.get(key);
  if (!validate) {
    argumentsAjv ??= addFormats(
      new Ajv({
        removeAdditional: 'all',
        useDefaults: true,
        allErrors: true,
        allowUnionTypes: true,
        strict: false,
      }),
    );
    validate = argumentsAjv.compile(schema);
    compiledInputs.set(key, validate);
  }
  return validate;
}

/**
 * The tools as MCP lists them, built once per app from the tool definitions and the REST routes'
 * schemas; `call` validates, rate-limits and runs one call.
 */
export class ToolCatalog {
  /** Every tool with its full schemas, in list order. */
  readonly tools: Tool[] = [];
  private readonly entries = new Map<string, Entry>();
  /** Tool name -> the title of its route's body, when it has one (compactTools names it later). */
  private readonly bodies = new Map<string, string>();
  /** The compacted list per access (few: one per choice of toolsets), built on first use. */
  private readonly lists = new Map<string, Tool[]>();

  constructor(defs: ToolDef[], routes: RouteTable) {
    for (const def of defs) {
      if (!toolsetOf(def.name))
        throw new Error(`MCP tool ${def.name} is in no toolset: add it to src/mcp/toolsets.ts`);
      const route = def.route ? routes.get(def.route) : undefined;
      const part = (schema: JsonSchema | undefined) => ({ schema, rename: def.rename, omit: def.omit });
      const inputSchema = mergeObjects([
        part(route?.params),
        part(route?.querystring),
        part(route?.body),
        { schema: def.extraInput },
        {
          schema: def.keyed ? (def.keyed.keyRequired ? IDEMPOTENCY_REQUIRED : IDEMPOTENCY_INPUT) : undefined,
        },
      ]);
      const bodyTitle = objectBranch(route?.body)?.title;
      if (typeof bodyTitle === 'string') this.bodies.set(def.name, bodyTitle);
      const success = route?.response['200'] ?? route?.response['201'];
      const output = def.output ?? success;
      if (!output) throw new Error(`MCP tool ${def.name} has no output schema`);
      const tool: Tool = {
        name: def.name,
        title: def.title,
        description: def.description,
        inputSchema: inputSchema as Tool['inputSchema'],
        outputSchema: objectOutput(output as JsonSchema) as Tool['outputSchema'],
        annotations: { title: def.title, ...def.annotations },
      };
      this.tools.push(tool);
      this.entries.set(def.name, {
        def,
        validate: compiledInput(inputSchema),
        bucket: route?.bucket ?? 'standard',
      });
    }
  }

  /** What `tools/list` answers this connection: the tools it may call, each thing said once. */
  list(access: ToolAccess): Tool[] {
    const key = accessKey(access);
    let list = this.lists.get(key);
    if (!list) {
      list = compactTools(
        this.tools.filter((tool) => refusal(this.entries.get(tool.name)!.def, access) === undefined),
        this.bodies,
      );
      // Bounded by the choices there are; the cap only guards against a rule with many keys.
      if (this.lists.size < 256) this.lists.set(key, list);
    }
    return list;
  }

  async call(
    env: ToolEnv,
    name: string,
    rawArgs: unknown,
    deps: CallDeps,
    access: ToolAccess,
  ): Promise<CallToolResult> {
    const entry = this.entries.get(name);
    // Counted before the name is checked, so a call of an unknown tool costs a standard request.
    const counted = await deps.count(entry?.bucket ?? 'standard');
    if (!entry)
      throw protocolError(ErrorCode.InvalidParams, `Unknown tool ${name}; list the tools to see their names`);
    const refused = refusal(entry.def, access);
    if (refused) throw protocolError(ErrorCode.InvalidParams, refused);
    if (counted.exceeded) {
      return failure({
        status: 429,
        error: 'Rate limit exceeded',
        retryAfter: counted.resetS,
        message: counted.message,
      });
    }
    const args: Args = structuredClone(rawArgs ?? {}) as Args;
    // Refused with REST's sentence (not the schema's "must have required property").
    if (entry.def.keyed?.keyRequired && args.idempotencyKey === undefined) {
      return failure({
        status: 400,
        error: 'Validation failed',
        details: [{ path: 'idempotencyKey', message: KEY_REQUIRED_MESSAGE }],
      });
    }
    if (!entry.validate(args)) {
      return failure({
        status: 400,
        error: 'Validation failed',
        details: (entry.validate.errors ?? []).map(issue),
      });
    }
    try {
      const result = await runKeyed(env, entry.def, args);
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    } catch (error) {
      if (error instanceof DomainError) {
        return failure({ status: STATUS[error.kind], error: error.message, ...error.extra });
      }
      deps.logError(error, name);
      return failure({ status: 500, error: 'Internal server error; the request was not completed' });
    }
  }
}

/**
 * Input of every tool that creates something or moves money: the REST routes' Idempotency-Key
 * as an argument. The stdio entry adds one to every such call, so its own retries are safe.
 */
const IDEMPOTENCY_INPUT: JsonSchema = {
  type: 'object',
  properties: {
    idempotencyKey: {
      type: 'string',
      pattern: IDEMPOTENCY_KEY_PATTERN.source,
      description:
        'Optional. A unique string (a UUID): a repeat with the same arguments within 24 hours returns the ' +
        'first result instead of acting twice; other arguments are refused.',
    },
  },
};

/** The key of a tool whose REST route requires Idempotency-Key (pay_bonus). */
const IDEMPOTENCY_REQUIRED: JsonSchema = {
  type: 'object',
  properties: {
    idempotencyKey: {
      type: 'string',
      pattern: IDEMPOTENCY_KEY_PATTERN.source,
      description:
        'Required. A new UUID per operation, the same on a retry: a repeat returns the first result, never pays twice.',
    },
  },
  required: ['idempotencyKey'],
};

/**
 * Runs a tool, under the domain's idempotency facility when it is keyed and the caller gave a key:
 * the key is scoped to the agent, as REST's Idempotency-Key, and fingerprinted by tool and arguments.
 */
async function runKeyed(env: ToolEnv, def: ToolDef, args: Args): Promise<Record<string, unknown>> {
  const { idempotencyKey, ...rest } = args as Args & { idempotencyKey?: string };
  const view = def.keyed?.view ?? ((result: object) => result as Record<string, unknown>);
  if (!def.keyed || idempotencyKey === undefined) return view(await def.run(env, rest as Args));
  const fingerprint = createHash('sha256')
    .update(JSON.stringify(['mcp', def.name, sortedKeys(rest)]))
    .digest('hex');
  const outcome = await idempotent(
    env.ctx,
    { scope: `agent:${env.agentId}`, key: idempotencyKey, fingerprint },
    // A tool that requires the key also hands it to the domain (a bonus row keeps it for good).
    (ctx) => def.run({ ...env, ctx }, (def.keyed?.keyRequired ? args : rest) as Args),
    (result) => ({ status: 200, body: view(result) }),
  );
  return outcome.body as Record<string, unknown>;
}

/** The same arguments in any key order give the same fingerprint. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => [k, sortedKeys(v)]),
  );
}

/** An API error as a tool error: the REST error body (with its status) as the text. */
function failure(body: { status: number; error: string } & Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/** A schema error as REST reports it: the field's path and what is wrong with it. */
function issue(error: ErrorObject): { path: string; message: string } {
  const base = error.instancePath.replace(/^\//, '');
  const missing = (error.params as { missingProperty?: string }).missingProperty;
  const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
  return {
    path: (missing ? [base, missing].filter(Boolean).join('/') : base) || 'arguments',
    message: allowed ? `must be one of ${allowed.join(', ')}` : (error.message ?? 'is invalid'),
  };
}

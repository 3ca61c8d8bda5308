import { type Static, type TSchema, Type } from 'typebox';

/**
 * An amount in JSON: a decimal string, no exponent, no trailing zeros ("6.5", "100", "0.013"), in
 * the currency its object names (`currency`). Every object of the agent API with an amount names
 * it; only the spec's TON-named fields (`balance`/`lockedByTasks` of GET /agents/me, a worker's
 * hourlyRate and totalEarned) are TON by their description.
 */
export const Amount = Type.String({
  description:
    'Amount as a decimal string, e.g. "6.5", in the currency its object names (`currency`: TON, up to 9 decimals, or USDT, up to 6)',
  examples: ['6.5'],
});
/** Which currency the amounts next to it are in (issue 29). */
export const Currency = Type.Enum(['TON', 'USDT'], {
  description:
    'The currency of the amounts beside it: TON (9 decimals) or USDT on TON (a jetton, 6 decimals)',
});
/** Amounts in requests: a decimal string or a JSON number. */
export const AmountInput = Type.Unsafe<string | number>({
  type: ['string', 'number'],
  maxLength: 40,
  description:
    'Amount: a decimal string such as "6.5" (preferred) or a JSON number; at most 9 decimals for TON, 6 for USDT (the currency the request names; TON by default). A JSON number that parsing would round (more digits than a double holds) is refused: send a string.',
});
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 timestamp, UTC' });
/**
 * `T or null`. For primitive schemas this is `type: [T, "null"]` rather than anyOf: Fastify's
 * Ajv coerces types, and inside anyOf it would turn a JSON null into "" before the null branch
 * is tried, so `{"webhookUrl": null}` would arrive as an empty string.
 */
export const Nullable = <T extends TSchema>(schema: T) => {
  const type = (schema as { type?: unknown }).type;
  if (typeof type === 'string' || Array.isArray(type)) {
    const types = Array.isArray(type) ? type : [type];
    return Type.Unsafe<Static<T> | null>({ ...schema, type: [...types, 'null'] });
  }
  return Type.Unsafe<Static<T> | null>(Type.Union([schema, Type.Null()]));
};

/** Every error: `{error}` plus named extra fields (details, currentStatus, retryAfter...). */
export const ErrorBody = Type.Object(
  { error: Type.String({ description: 'What went wrong and what to do about it' }) },
  { additionalProperties: true, $id: 'Error' },
);
// Not every 400 is a field validation: "Invalid JSON body" and "task must be completed before
// rating" carry no `details`. A literal `error` or a required `details` here made the response
// serializer fail on those, turning the 400 into a 500.
export const ValidationErrorBody = Type.Object(
  {
    error: Type.String({ description: '"Validation failed" (with details), or another reason' }),
    details: Type.Optional(
      Type.Array(Type.Object({ path: Type.String(), message: Type.String() }), {
        maxItems: 20,
        description: 'Every bad field, up to 20',
      }),
    ),
    detailsOmitted: Type.Optional(
      Type.Integer({ minimum: 1, description: 'How many more problems there were than `details` lists' }),
    ),
  },
  { additionalProperties: true },
);
export const UnauthorizedBody = Type.Object(
  {
    error: Type.Literal('Unauthorized'),
    reason: Type.Enum(['missing', 'malformed', 'unknown', 'ended'], {
      description:
        'No credential sent, not in the expected form, not one the service knows, or (console) a session that has ended',
    }),
    message: Type.String({ description: 'What to send instead' }),
  },
  { additionalProperties: true },
);
nameSchemas({ Error: ErrorBody, ValidationError: ValidationErrorBody, Unauthorized: UnauthorizedBody });

export const IdParam = Type.Object({ id: Type.String({ maxLength: 100 }) });
export const TaskIdParam = Type.Object({ taskId: Type.String({ maxLength: 100 }) });

export const Cursor = Type.Optional(
  Type.String({
    maxLength: 400,
    description: 'The nextCursor of the previous page; omit for the first page',
  }),
);
export const Limit = (fallback: number, max: number) =>
  Type.Integer({ minimum: 1, maximum: max, default: fallback, description: `Page size, 1 to ${max}` });
export const NextCursor = Nullable(
  Type.String({ description: 'Pass as cursor for the next page; null on the last page' }),
);

/**
 * Names schemas for the OpenAPI document: each becomes `components.schemas.<Name>` and is
 * referenced by $ref wherever it is used (see refineDocument in openapi.ts). Only the title is
 * added; validation and serialization ignore it.
 */
export function nameSchemas(schemas: Record<string, TSchema>): void {
  for (const [name, schema] of Object.entries(schemas)) Object.assign(schema, { title: name });
}

/**
 * An example of what `schema` accepts, shown in the API reference (/docs) and checked against the
 * schema by test/http/openapiExamples.test.ts: `example(Task, {...})`. A copy of the schema with
 * `examples`, so a shared schema keeps no one route's example; TypeScript checks the value's shape.
 * For a body or a response: `body: example(CreateTaskBody, {...})`, `200: example(Type.Object(...), {...})`.
 */
export function example<T extends TSchema>(schema: T, ...values: Static<T>[]): T {
  const { $id: _id, ...rest } = schema as T & { $id?: string };
  return { ...rest, examples: values } as unknown as T;
}

/** An error's example: its message, or the whole body when it carries more than `error`. */
export type ErrorExample = string | ({ error: string } & Record<string, unknown>);

/**
 * Error responses a route can give, by status; each documents the shared error shape. Give the
 * route's own errors an example as the last argument, by status:
 * `errors(401, 403, { 404: 'Task not found', 409: { error: '...', currentStatus: 'ASSIGNED' } })`.
 * Statuses whose body is the same on every route (400, 401, 403, 413, 415, 422, 429, 503) get a
 * standard example from the document builder (openapi.ts) when the route gives none; a 404, 409
 * or 402 needs the route's own (the examples test says which is missing).
 */
export function errors(
  ...codes: (number | Partial<Record<number, ErrorExample>>)[]
): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  const examples: Partial<Record<number, ErrorExample>> = {};
  for (const code of codes) {
    if (typeof code === 'object') Object.assign(examples, code);
    else out[code] = code === 400 ? ValidationErrorBody : code === 401 ? UnauthorizedBody : ErrorBody;
  }
  for (const [status, given] of Object.entries(examples)) {
    const code = Number(status);
    const base = out[code] ?? ErrorBody;
    out[code] = example(base, (typeof given === 'string' ? { error: given } : given) as Static<typeof base>);
  }
  return out;
}

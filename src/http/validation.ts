import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

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
};

/**
 * Two validators. Query strings, path parameters and headers arrive as text, so they are coerced
 * (`limit=5` is the number 5). JSON bodies are not: `"score": "5"` or `"title": 123` is a 400
 * that says which type was expected, never a silent conversion.
 */
export function registerValidation(app: FastifyInstance): void {
  const strict = addFormats(new Ajv({ ...SHARED, coerceTypes: false }));
  const coercing = addFormats(new Ajv({ ...SHARED, coerceTypes: 'array' }));
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? strict : coercing).compile(schema),
  );
}

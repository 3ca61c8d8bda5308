import fc from 'fast-check';

/**
 * Values from JSON Schema (the served OpenAPI document's, or a route's TypeBox schema, which is
 * JSON Schema too): well-shaped values for the fuzzer to start from, and the paths of every
 * string field so that hostile text can be put into each of them.
 */

// biome-ignore lint/suspicious/noExplicitAny: schemas are untyped JSON walked by key
export type Schema = Record<string, any>;
/** A field's place in a body: property names and array indexes. */
export type FieldPath = (string | number)[];

/** Resolves `#/components/schemas/X` (and friends) against the document; other schemas pass through. */
export function resolve(doc: Schema, schema: Schema | undefined): Schema {
  let current = schema ?? {};
  for (let hops = 0; typeof current.$ref === 'string' && hops < 20; hops++) {
    const parts = (current.$ref as string).replace(/^#\//, '').split('/');
    current = parts.reduce<Schema>((node, key) => node?.[key], doc) ?? {};
  }
  return current;
}

/** Long enough to pass most minimums, short enough to keep each request small. */
const SHORT_STRING = 24;
/** Objects nest (a task's location, a worker's skills); deeper than this is not worth generating. */
const MAX_DEPTH = 5;

/** A value of the schema's shape (not always a value the route accepts: ranges are loose). */
export function arbitraryOf(doc: Schema, raw: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(doc, raw);
  if (depth > MAX_DEPTH) return fc.constant(null);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alternatives?.length) return fc.oneof(...alternatives.map((s) => arbitraryOf(doc, s, depth + 1)));
  if (Array.isArray(schema.allOf) && schema.allOf.length) return arbitraryOf(doc, schema.allOf[0], depth + 1);
  const type = Array.isArray(schema.type) ? schema.type : [schema.type];
  return fc.oneof(...type.map((one: string | undefined) => valueOfType(doc, schema, one, depth)));
}

function valueOfType(doc: Schema, schema: Schema, type: string | undefined, depth: number) {
  switch (type) {
    case 'object':
      return objectOf(doc, schema, depth);
    case 'array':
      return fc.array(arbitraryOf(doc, schema.items, depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3)),
      });
    case 'string':
      return stringOf(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      // No type (a free-form value): a string reaches the most code.
      return properties(schema) ? objectOf(doc, schema, depth) : fc.string({ maxLength: SHORT_STRING });
  }
}

const properties = (schema: Schema): Record<string, Schema> | undefined => schema.properties;

function objectOf(doc: Schema, schema: Schema, depth: number): fc.Arbitrary<unknown> {
  const props = properties(schema) ?? {};
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, sub] of Object.entries(props)) record[name] = arbitraryOf(doc, sub, depth + 1);
  return fc.record(record, { requiredKeys: (schema.required as string[] | undefined) ?? [] });
}

/** Strings that honour a pattern and the length bounds where fast-check can make them. */
function stringOf(schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? SHORT_STRING, SHORT_STRING));
  if (typeof schema.pattern === 'string') {
    try {
      const pattern = new RegExp(schema.pattern, 'u');
      return fc.stringMatching(pattern).filter((s) => s.length >= minLength && s.length <= maxLength + 40);
    } catch {
      // A pattern JavaScript cannot compile: fall through to a plain string.
    }
  }
  if (schema.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  if (schema.format === 'uri') return fc.constantFrom('https://example.com/hook', 'http://127.0.0.1:1/x');
  return fc.string({ minLength, maxLength });
}

/**
 * Every string field the schema describes (array items as index 0), including optional ones and
 * those inside nested objects, so hostile text reaches each of them.
 */
export function stringPaths(
  doc: Schema,
  raw: Schema | undefined,
  prefix: FieldPath = [],
  depth = 0,
): FieldPath[] {
  const schema = resolve(doc, raw);
  if (depth > MAX_DEPTH) return [];
  const alternatives = (schema.anyOf ?? schema.oneOf ?? schema.allOf) as Schema[] | undefined;
  if (alternatives?.length) {
    const seen = new Map<string, FieldPath>();
    for (const alt of alternatives)
      for (const p of stringPaths(doc, alt, prefix, depth + 1)) seen.set(JSON.stringify(p), p);
    return [...seen.values()];
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const out: FieldPath[] = [];
  if (types.includes('string') || (schema.type === undefined && !properties(schema) && depth > 0))
    out.push(prefix);
  if (types.includes('array')) out.push(...stringPaths(doc, schema.items, [...prefix, 0], depth + 1));
  for (const [name, sub] of Object.entries(properties(schema) ?? {}))
    out.push(...stringPaths(doc, sub, [...prefix, name], depth + 1));
  return out;
}

/** Every leaf field (any type) the schema describes: where wrong types and huge numbers go. */
export function leafPaths(
  doc: Schema,
  raw: Schema | undefined,
  prefix: FieldPath = [],
  depth = 0,
): FieldPath[] {
  const schema = resolve(doc, raw);
  if (depth > MAX_DEPTH) return [];
  const props = properties(schema);
  if (props)
    return Object.entries(props).flatMap(([name, sub]) => leafPaths(doc, sub, [...prefix, name], depth + 1));
  if (schema.type === 'array') return [prefix, ...leafPaths(doc, schema.items, [...prefix, 0], depth + 1)];
  return prefix.length ? [prefix] : [];
}

/** The schema at a field path (for its bounds), or an empty schema. */
export function schemaAt(doc: Schema, raw: Schema | undefined, path: FieldPath): Schema {
  let schema = resolve(doc, raw);
  for (const key of path) {
    const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
    if (alternatives) schema = resolve(doc, alternatives.find((a) => resolve(doc, a).type !== 'null') ?? {});
    schema = resolve(doc, typeof key === 'number' ? schema.items : properties(schema)?.[key]);
  }
  return schema;
}

/** A copy of `value` with `leaf` at `path`, creating the objects and arrays on the way. */
export function setAt(value: unknown, path: FieldPath, leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const [head, ...rest] = path as [string | number, ...FieldPath];
  if (typeof head === 'number') {
    const array = Array.isArray(value) ? [...value] : [];
    array[head] = setAt(array[head], rest, leaf);
    return array;
  }
  const object = value && typeof value === 'object' && !Array.isArray(value) ? { ...value } : {};
  (object as Record<string, unknown>)[head] = setAt((object as Record<string, unknown>)[head], rest, leaf);
  return object;
}

/** A readable name for a field path, as the API's `details[].path` writes it. */
export const pathName = (path: FieldPath) => path.join('/') || '(body)';

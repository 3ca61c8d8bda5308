/** A JSON Schema as a plain object (TypeBox schemas are plain JSON Schema objects). */
export type JsonSchema = Record<string, unknown>;

/**
 * A deep copy without `$id`s: every tool's schema stands alone, and a named schema that appears
 * in several tools would otherwise be registered twice in a client's validator.
 */
export function standalone(schema: unknown): JsonSchema {
  return JSON.parse(JSON.stringify(schema), (key, value) => (key === '$id' ? undefined : value));
}

/** The object schema of `schema`, or of its first object branch (`{...} | null` bodies). */
export function objectBranch(schema: JsonSchema | undefined): JsonSchema | undefined {
  if (!schema) return undefined;
  if (schema.type === 'object') return schema;
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  return branches?.find((b) => b.type === 'object');
}

export interface InputPart {
  schema: JsonSchema | undefined;
  /** Field names as the tool calls them: the route's `id` is the tool's `taskId`. */
  rename?: Record<string, string>;
  omit?: readonly string[];
}

/** One object schema from a route's path parameters, query string and body. */
export function mergeObjects(parts: InputPart[]): JsonSchema {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const part of parts) {
    const object = objectBranch(part.schema);
    if (!object) continue;
    const needed = new Set((object.required as string[] | undefined) ?? []);
    for (const [field, schema] of Object.entries((object.properties ?? {}) as Record<string, unknown>)) {
      if (part.omit?.includes(field)) continue;
      const name = part.rename?.[field] ?? field;
      properties[name] = schema;
      // A field with a default is filled in when absent, so the caller need not send it.
      if (needed.has(field) && (schema as JsonSchema).default === undefined) required.push(name);
    }
  }
  return standalone({ type: 'object', properties, required, additionalProperties: false });
}

/** MCP wants an object at the root: a union of objects becomes an object with `anyOf`. */
export function objectOutput(schema: JsonSchema): JsonSchema {
  const copy = standalone(schema);
  if (copy.type === 'object') return copy;
  if (Array.isArray(copy.anyOf)) return { type: 'object', anyOf: copy.anyOf };
  throw new Error('an MCP output schema must describe an object');
}

import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchema } from './jsonSchema.js';

/**
 * The tool list as a model reads it, in every conversation. The REST routes' schemas describe the
 * same resources in many tools (a Task is the output of five), so the list weighed 110 KB, 85 KB
 * of it output schemas. Here, in the order the tools are listed:
 * - input schemas keep every constraint of the routes' (they say what a call may send), but a
 *   description already given in the list (the same text) is not repeated, and a route body that
 *   is a whole earlier tool's input (a batch's task bodies are create_task's) is named, not
 *   written out again (`{type, description: "as create_task's input"}`). They do not say
 *   `additionalProperties: false` nor an empty `required`: the catalog drops unknown arguments
 *   (as REST drops unknown fields) rather than refusing them, and nothing required is the default;
 * - output schemas keep the shape of the result: every field with its type, enum, format and
 *   nesting. A named resource shape (a schema with a `title`: Task, Dispute, Submission...) is
 *   written out where it first appears and later named (`{type, description: "Task, as described
 *   in create_task's output"}`, which accepts the same values). Output schemas drop field
 *   descriptions and what only constrains input (lengths, bounds, patterns, examples, defaults,
 *   `required`, `additionalProperties`), and the title of a shape no later tool names: what each result field means is in the tool's description
 *   and, field by field, in the API reference of the route the tool mirrors (/docs).
 * - a nullable object is `type: ["object", "null"]` rather than a two-branch anyOf.
 * Nothing here changes what a tool accepts or returns: the catalog validates arguments with the
 * full schemas, and clients validate results against these looser ones.
 */
export function compactTools(
  tools: readonly Tool[],
  bodies: ReadonlyMap<string, string> = new Map(),
): Tool[] {
  const said = new Set<string>();
  const shapes = new Map<string, string>();
  /** The shapes a later tool names. */
  const named = new Set<string>();
  /** A route body's title -> the first listed tool whose input it is (CreateTaskBody: create_task). */
  const inputs = new Map<string, string>();
  const compacted = tools.map((tool) => {
    const inputSchema = compactInput(tool.inputSchema, said, inputs) as Tool['inputSchema'];
    const body = bodies.get(tool.name);
    if (body && !inputs.has(body)) inputs.set(body, tool.name);
    const outputSchema = tool.outputSchema
      ? (compactOutput(tool.outputSchema as JsonSchema, tool.name, shapes, named) as Tool['outputSchema'])
      : undefined;
    const { title: _same, ...annotations } = tool.annotations ?? {};
    return {
      ...tool,
      inputSchema,
      ...(outputSchema ? { outputSchema } : {}),
      ...(tool.annotations ? { annotations } : {}),
    };
  });
  return compacted.map((tool) =>
    tool.outputSchema
      ? { ...tool, outputSchema: trimmedOutput(tool.outputSchema, named, true) as Tool['outputSchema'] }
      : tool,
  );
}

/**
 * The last pass over an output schema: a shape's title only serves the later tools that name it,
 * so a shape nobody names loses it (a property called "title" stays); an object with
 * `properties` needs no `type: "object"`, except at the root, where MCP requires it; and every
 * timestamp is an ISO 8601 string, so none says `format: "date-time"`.
 */
function trimmedOutput(schema: unknown, named: ReadonlySet<string>, root = false): unknown {
  if (Array.isArray(schema)) return schema.map((item) => trimmedOutput(item, named));
  if (!schema || typeof schema !== 'object') return schema;
  const node = schema as JsonSchema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'title' && typeof value === 'string' && !named.has(value)) continue;
    if (key === 'type' && value === 'object' && node.properties && !root) continue;
    if (key === 'format' && value === 'date-time') continue;
    if (key === 'properties' && value && typeof value === 'object') {
      out[key] = Object.fromEntries(
        Object.entries(value as JsonSchema).map(([name, field]) => [name, trimmedOutput(field, named)]),
      );
    } else out[key] = trimmedOutput(value, named);
  }
  return out;
}

/** Shapes smaller than this (an enum of statuses, say) cost less written out than referred to. */
const SHAPE_MIN_CHARS = 150;
/** What a result's schema need not say: these only constrain what a caller sends. */
const INPUT_ONLY = new Set([
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'minimum',
  'maximum',
  'pattern',
  'examples',
  'default',
  'required',
  'additionalProperties',
  '$id',
]);

function compactInput(schema: unknown, said: Set<string>, inputs: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => compactInput(item, said, inputs));
  if (!schema || typeof schema !== 'object') return schema;
  const node = schema as JsonSchema;
  const first = typeof node.title === 'string' ? inputs.get(node.title) : undefined;
  if (first) {
    const what = typeof node.description === 'string' ? `${node.description}: ` : '';
    return { ...(node.type ? { type: node.type } : {}), description: `${what}as ${first}'s input` };
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'title') continue;
    if (key === 'additionalProperties' && value === false) continue;
    if (key === 'required' && Array.isArray(value) && value.length === 0) continue;
    if (key === 'description' && typeof value === 'string') {
      if (said.has(value)) continue;
      said.add(value);
      out[key] = value;
    } else if (key === 'properties' && value && typeof value === 'object') {
      out[key] = Object.fromEntries(
        Object.entries(value as JsonSchema).map(([name, field]) => [name, compactInput(field, said, inputs)]),
      );
    } else out[key] = compactInput(value, said, inputs);
  }
  return out;
}

function compactOutput(
  schema: unknown,
  tool: string,
  shapes: Map<string, string>,
  named: Set<string>,
): unknown {
  if (Array.isArray(schema)) return schema.map((item) => compactOutput(item, tool, shapes, named));
  if (!schema || typeof schema !== 'object') return schema;
  const node = schema as JsonSchema;
  const title = typeof node.title === 'string' ? node.title : undefined;
  const shape = title !== undefined && JSON.stringify(node).length >= SHAPE_MIN_CHARS;
  if (shape) {
    const first = shapes.get(title);
    if (first) {
      named.add(title);
      return {
        ...(node.type ? { type: node.type } : {}),
        description: `${title}: see ${first}'s output`,
      };
    }
    shapes.set(title, tool);
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (INPUT_ONLY.has(key)) continue;
    if (key === 'title' && !shape) continue;
    if (key === 'description') continue;
    if (key === 'properties' && value && typeof value === 'object') {
      out[key] = Object.fromEntries(
        Object.entries(value as JsonSchema).map(([name, field]) => [
          name,
          compactOutput(field, tool, shapes, named),
        ]),
      );
    } else out[key] = compactOutput(value, tool, shapes, named);
  }
  return nullableObject(out);
}

/** `anyOf: [{type: "object", ...}, {type: "null"}]` -> `{type: ["object", "null"], ...}`. */
function nullableObject(node: JsonSchema): JsonSchema {
  const branches = node.anyOf as JsonSchema[] | undefined;
  if (!Array.isArray(branches) || branches.length !== 2 || node.type !== undefined) return node;
  const [object, nothing] = branches;
  if (object?.type !== 'object' || nothing?.type !== 'null' || Object.keys(nothing).length !== 1) return node;
  const { anyOf: _branches, ...rest } = node;
  return { ...object, ...rest, type: ['object', 'null'] };
}

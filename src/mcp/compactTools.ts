import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchema } from './jsonSchema.js';

/**
 * The tool list as a model reads it, in every conversation. The REST routes' schemas describe the
 * same resources in many tools (a Task is the output of five), so the list weighed 110 KB, 85 KB
 * of it output schemas. Here, in the order the tools are listed:
 * - input schemas stay as the routes have them, every constraint included (they say what a call
 *   may send), but a description already given in the list (the same text) is not repeated;
 * - output schemas keep the shape of the result: every field with its type, enum, format and
 *   nesting. A named resource shape (a schema with a `title`: Task, Dispute, Submission...) is
 *   written out where it first appears and later named (`{type, description: "Task, as described
 *   in create_task's output"}`, which accepts the same values). Output schemas drop field
 *   descriptions and what only constrains input (lengths, bounds, patterns, examples, defaults,
 *   `required`, `additionalProperties`): what each result field means is in the tool's description
 *   and, field by field, in the API reference of the route the tool mirrors (/docs).
 * - a nullable object is `type: ["object", "null"]` rather than a two-branch anyOf.
 * Nothing here changes what a tool accepts or returns: the catalog validates arguments with the
 * full schemas, and clients validate results against these looser ones.
 */
export function compactTools(tools: readonly Tool[]): Tool[] {
  const said = new Set<string>();
  const shapes = new Map<string, string>();
  return tools.map((tool) => {
    const inputSchema = withoutRepeats(tool.inputSchema, said) as Tool['inputSchema'];
    const outputSchema = tool.outputSchema
      ? (compactOutput(tool.outputSchema as JsonSchema, tool.name, shapes) as Tool['outputSchema'])
      : undefined;
    const { title: _same, ...annotations } = tool.annotations ?? {};
    return {
      ...tool,
      inputSchema,
      ...(outputSchema ? { outputSchema } : {}),
      ...(tool.annotations ? { annotations } : {}),
    };
  });
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

function withoutRepeats(schema: unknown, said: Set<string>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => withoutRepeats(item, said));
  if (!schema || typeof schema !== 'object') return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema as JsonSchema)) {
    if (key === 'description' && typeof value === 'string') {
      if (said.has(value)) continue;
      said.add(value);
      out[key] = value;
    } else if (key === 'properties' && value && typeof value === 'object') {
      out[key] = Object.fromEntries(
        Object.entries(value as JsonSchema).map(([name, field]) => [name, withoutRepeats(field, said)]),
      );
    } else out[key] = withoutRepeats(value, said);
  }
  return out;
}

function compactOutput(schema: unknown, tool: string, shapes: Map<string, string>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => compactOutput(item, tool, shapes));
  if (!schema || typeof schema !== 'object') return schema;
  const node = schema as JsonSchema;
  const title = typeof node.title === 'string' ? node.title : undefined;
  const shape = title !== undefined && JSON.stringify(node).length >= SHAPE_MIN_CHARS;
  if (shape) {
    const first = shapes.get(title);
    if (first) {
      return {
        ...(node.type ? { type: node.type } : {}),
        description: `${title}, as described in ${first}'s output`,
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
          compactOutput(field, tool, shapes),
        ]),
      );
    } else out[key] = compactOutput(value, tool, shapes);
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

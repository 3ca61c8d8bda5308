import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

/**
 * Fastify's own response serializer factory (fast-json-stringify), with one compiled serializer
 * per schema instead of one per route and status. The agent API is mounted twice (at `/` and
 * under the console), so without this every response schema was compiled twice at start-up; and
 * routes that answer the same view share it too. The default compiler reads only the schema and
 * the options (not the method, URL or status), so a shared serializer writes exactly what a
 * route's own would. Only contexts without added schemas share (we add none): a `$ref` could
 * otherwise resolve differently in another context.
 *
 * The cache is the process's, keyed by the schema's and the options' JSON: a process that builds
 * the app more than once (the tests build several hundred, the bench a few) compiled every
 * serializer again for each, about a second of CPU per app (profiled: fast-json-stringify's
 * build was the largest part of a test app's life).
 */
const compiledSerializers = new Map<string, Serializer>();

export function sharedSerializers(): SerializerFactory {
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    if (externalSchemas && typeof externalSchemas === 'object' && Object.keys(externalSchemas).length > 0) {
      return compile;
    }
    const optionsText = jsonText(options ?? {});
    return (route) => {
      const { schema } = route;
      if (!schema || typeof schema !== 'object') return compile(route);
      const key = `${optionsText}\u0000${jsonText(schema)}`;
      let serializer = compiledSerializers.get(key);
      if (!serializer) {
        serializer = compile(route);
        compiledSerializers.set(key, serializer);
      }
      return serializer;
    };
  };
}

/** JSON of a schema or options object; a bigint (a TypeBox default, say) written as text. */
function jsonText(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `${v}n` : v));
}

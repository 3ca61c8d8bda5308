import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

/**
 * Fastify's own response serializer factory (fast-json-stringify), with one compiled serializer
 * per schema object instead of one per route and status. The agent API is mounted twice (at `/`
 * and under the console), so without this every response schema was compiled twice at start-up;
 * and routes that answer the same view share it too. The default compiler reads only the schema
 * and the options (not the method, URL or status), so a shared serializer writes exactly what a
 * route's own would. Only contexts without added schemas share (we add none): a `$ref` could
 * otherwise resolve differently in another context.
 */
export function sharedSerializers(): SerializerFactory {
  const build = SerializerSelector();
  // Keyed by the options object Fastify passes (the server's serializerOpts, one for the process).
  const byOptions = new WeakMap<object, WeakMap<object, Serializer>>();
  const noOptions = {};
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    if (externalSchemas && typeof externalSchemas === 'object' && Object.keys(externalSchemas).length > 0) {
      return compile;
    }
    const optionsKey = options ?? noOptions;
    let cache = byOptions.get(optionsKey);
    if (!cache) {
      cache = new WeakMap();
      byOptions.set(optionsKey, cache);
    }
    const shared = cache;
    return (route) => {
      const { schema } = route;
      if (!schema || typeof schema !== 'object') return compile(route);
      let serializer = shared.get(schema);
      if (!serializer) {
        serializer = compile(route);
        shared.set(schema, serializer);
      }
      return serializer;
    };
  };
}

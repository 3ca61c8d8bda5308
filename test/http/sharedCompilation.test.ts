import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { sharedSerializers } from '../../src/http/sharedSerializers.js';
import { registerValidation } from '../../src/http/validation.js';

/**
 * The agent API is mounted twice (at `/` and under the console): start-up compiled every
 * validator and serializer once per mount. These pin that a schema compiles once and that the
 * shared functions still answer as each route's own did.
 */
const View = Type.Object({ id: Type.String(), amount: Type.String() });
const captured: Record<string, unknown[]> = {};
const routes: FastifyPluginAsync = async (api) => {
  api.get(
    '/things/:id',
    {
      schema: {
        // Built on each registration, as a route plugin may: equal schemas, distinct objects.
        params: Type.Object({ id: Type.String({ maxLength: 8 }) }),
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 5, default: 2 }) }),
        response: { 200: View },
      },
    },
    async (request, reply) => {
      captured[request.routeOptions.url!] = [
        reply.getSerializationFunction('200'),
        request.getValidationFunction('querystring'),
        request.getValidationFunction('params'),
      ];
      const { id } = request.params as { id: string };
      const { limit } = request.query as { limit: number };
      return { id, amount: String(limit), secret: 'dropped' };
    },
  );
};

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function twoMounts(): Promise<FastifyInstance> {
  const server = Fastify({
    schemaController: { compilersFactory: { buildSerializer: sharedSerializers() } },
  });
  registerValidation(server);
  await server.register(routes);
  await server.register(routes, { prefix: '/console/agents/:agentId' });
  return server;
}

describe('shared compilation of the twice-mounted API', () => {
  it('compiles each response schema and each equal request schema once for both mounts', async () => {
    app = await twoMounts();
    const a = await app.inject({ url: '/things/t1?limit=3' });
    const b = await app.inject({ url: '/console/agents/a1/things/t1?limit=3' });
    expect(a.json()).toEqual({ id: 't1', amount: '3' });
    expect(b.body).toBe(a.body);
    const [serializeA, queryA, paramsA] = captured['/things/:id']!;
    const [serializeB, queryB, paramsB] = captured['/console/agents/:agentId/things/:id']!;
    expect(serializeB).toBe(serializeA);
    expect(queryB).toBe(queryA);
    expect(paramsB).toBe(paramsA);
  });

  it('keeps each mount validating and defaulting as before', async () => {
    app = await twoMounts();
    for (const prefix of ['', '/console/agents/a1']) {
      const tooMany = await app.inject({ url: `${prefix}/things/t1?limit=9` });
      expect(tooMany.statusCode).toBe(400);
      const longId = await app.inject({ url: `${prefix}/things/t123456789` });
      expect(longId.statusCode).toBe(400);
      const defaulted = await app.inject({ url: `${prefix}/things/t1` });
      expect(defaulted.json()).toEqual({ id: 't1', amount: '2' });
    }
  });

  it('does not share serializers between contexts that added schemas of their own', () => {
    const factory = sharedSerializers();
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const route = { schema, method: 'GET', url: '/x', httpStatus: '200' };
    const plain = factory({}, undefined)(route);
    expect(factory({}, undefined)({ ...route, url: '/y' })).toBe(plain);
    const withRefs = factory({ other: { $id: 'other', type: 'string' } }, undefined)(route);
    expect(withRefs).not.toBe(plain);
    expect(withRefs({ a: 'x', b: 1 })).toBe(plain({ a: 'x', b: 1 }));
  });
});

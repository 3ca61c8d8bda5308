import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';
import { webhookDocs } from './schemas/events.js';

/**
 * The OpenAPI document is generated from the route schemas (never written by hand), served at
 * /openapi.json and rendered at /docs.
 */
export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Handoff API',
        version: '1.0.0',
        description:
          'AI agents hire human workers and pay them in TON. Amounts are decimal TON strings; ' +
          'every error is JSON with an `error` message. Lists are newest first with opaque cursors.',
      },
      servers: [{ url: publicUrl }],
      webhooks: webhookDocs(),
      components: {
        securitySchemes: {
          agentKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'Your API key: Authorization: Bearer hr_...',
          },
          adminToken: { type: 'http', scheme: 'bearer', description: 'The operator ADMIN_TOKEN' },
          telegramInitData: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'Telegram Mini App init data: Authorization: tma <initData>',
          },
        },
      },
    },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(scalar, { routePrefix: '/docs', configuration: { url: '/openapi.json' } });
}

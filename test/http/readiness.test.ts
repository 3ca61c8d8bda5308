import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { adminQuery, createTestApp, DIALECT } from '../helpers/app.js';

/**
 * GET /ready, what a load balancer routes by: 200 while the database answers, 503 once the
 * instance drains (SIGTERM: test/prod/lifecycle.test.ts drives that through a real process) or
 * once the database stops answering. GET /health stays 200 throughout: the process is alive.
 */
describe(`GET /ready on ${DIALECT}`, () => {
  it('is 200 while the database answers, 503 while draining or when the database is gone', async () => {
    const t = await createTestApp();
    try {
      const ready = await t.app.inject({ method: 'GET', url: '/ready' });
      expect([ready.statusCode, ready.json()]).toEqual([200, { status: 'ready' }]);

      t.app.readiness.draining = true;
      const draining = await t.app.inject({ method: 'GET', url: '/ready' });
      expect(draining.statusCode).toBe(503);
      expect(draining.json()).toEqual({ error: expect.stringMatching(/^Shutting down: .*another instance/) });
      expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
      t.app.readiness.draining = false;

      await t.services.db.close();
      const down = await t.app.inject({ method: 'GET', url: '/ready' });
      expect(down.statusCode).toBe(503);
      expect(down.json()).toEqual({ error: expect.stringMatching(/database is not answering/) });
      expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    } finally {
      // The database is closed already: close the rest by hand.
      await t.app.close();
      await t.services.chain.close();
      if (t.pgSchema) await adminQuery(`drop schema ${t.pgSchema} cascade`);
      rmSync(t.config.dataDir, { recursive: true, force: true });
    }
  });

  it('is in the OpenAPI document with its 503', async () => {
    const t = await createTestApp();
    try {
      const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      expect(Object.keys(doc.paths['/ready'].get.responses).sort()).toEqual(['200', '503']);
    } finally {
      await t.close();
    }
  });
});

import { afterAll, beforeAll, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { runExampleAgent } from '../helpers/exampleAgent.js';
import { listen } from '../helpers/mcp.js';
import { type Service, serviceOf } from '../helpers/service.js';

// test/prod/dist.test.ts runs the same example against the production build.
let t: TestApp;
let service: Service;

beforeAll(async () => {
  t = await createTestApp();
  service = serviceOf(t, await listen(t));
});
afterAll(async () => {
  await t?.close();
});

it('the example agent goes from an API key to a completed, paid task', async () => {
  await runExampleAgent(service);
});

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { renderSdkTypes, SDK_TYPES_FILE } from '../../scripts/sdkTypes.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

it('the SDK types are generated from the OpenAPI document the service serves', async () => {
  const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const fresh = await renderSdkTypes(document);
  const committed = readFileSync(SDK_TYPES_FILE, 'utf8');
  expect(committed === fresh, `${SDK_TYPES_FILE} is out of date: run npm run sdk:generate`).toBe(true);
});

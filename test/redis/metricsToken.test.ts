import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { dropPrefix, TEST_REDIS_URL, testPrefix } from '../helpers/redis.js';

/**
 * GET /metrics with a wrong token while the failed-authentication throttle counts in Redis: the
 * throttle's answer is then a Promise, which once decided the hook's branch unawaited (always
 * truthy) and left the request without any answer. It is a 401 as without Redis.
 */
const prefix = testPrefix();
const METRICS_TOKEN = randomBytes(24).toString('hex');
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    redis: { url: TEST_REDIS_URL, prefix },
    config: { metricsToken: METRICS_TOKEN },
  });
});
afterAll(async () => {
  await t.close();
  await dropPrefix(prefix);
});

describe('GET /metrics with Redis', () => {
  it('answers a wrong token 401 at once, and the right one 200', async () => {
    const wrong = await Promise.race([
      t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer wrong' } }),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 5_000)),
    ]);
    expect(wrong, 'no answer within 5 s').not.toBeNull();
    expect(wrong!.statusCode).toBe(401);
    expect(wrong!.json()).toMatchObject({
      error: 'Unauthorized',
      message: expect.stringMatching(/^Wrong token/),
    });
    const right = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(right.statusCode).toBe(200);
  });
});

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RedisLink } from '../../src/redis/link.js';
import { RedisRateLimitStore } from '../../src/redis/rateLimitStore.js';
import { dropPrefix, TEST_REDIS_URL } from '../helpers/redis.js';

/**
 * The failed sign-in refusal before the body (issue #35, finding 5) reads a window without
 * counting: in Redis as in memory, and by the caller's clock.
 */
describe('RedisRateLimitStore.peek', () => {
  it('reads the shared window without counting; none before the first hit or after its end', async () => {
    const prefix = `peek${randomBytes(4).toString('hex')}:`;
    const link = new RedisLink(TEST_REDIS_URL, prefix);
    await link.connect();
    try {
      const store = new RedisRateLimitStore(link);
      expect(await store.peek('auth:x', 60_000, 1_000)).toBeNull();
      await store.hit('auth:x', 60_000, 1_000);
      await store.hit('auth:x', 60_000, 2_000);
      expect(await store.peek('auth:x', 60_000, 3_000)).toEqual({ count: 2, resetAtMs: 61_000 });
      expect(await store.peek('auth:x', 60_000, 3_000)).toEqual({ count: 2, resetAtMs: 61_000 });
      expect(await store.peek('auth:x', 60_000, 61_000)).toBeNull();
    } finally {
      link.close();
      await dropPrefix(prefix);
    }
  });
});

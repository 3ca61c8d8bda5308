import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiKeyCache } from '../../src/domain/agents/apiKeyCache.js';
import { call } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent } from '../helpers/fixtures.js';

/** What another instance (or an operator in SQL) does when it revokes every key of an agent. */
async function revokeElsewhere(t: TestApp, agentId: string) {
  await t.ctx.db
    .updateTable('api_keys')
    .set({ revoked_at: t.clock.now().toISOString() })
    .where('agent_id', '=', agentId)
    .execute();
}

describe('API key cache', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('a key revoked by another instance stops working within the TTL, and at once once forgotten here', async () => {
    const ttlMs = t.config.apiKeyCacheTtlMs;
    const agent = await createAgent(t);
    expect((await call(t, agent, 'GET', '/agents/me')).statusCode).toBe(200);
    await revokeElsewhere(t, agent.id);
    // Trusted from the cache for less than the TTL: the documented bound on staleness.
    t.clock.advance(ttlMs - 1);
    expect((await call(t, agent, 'GET', '/agents/me')).statusCode).toBe(200);
    t.clock.advance(1);
    expect((await call(t, agent, 'GET', '/agents/me')).statusCode).toBe(401);

    const other = await createAgent(t);
    expect((await call(t, other, 'GET', '/agents/me')).statusCode).toBe(200);
    await revokeElsewhere(t, other.id);
    t.ctx.apiKeys.forgetAgent(other.id);
    expect((await call(t, other, 'GET', '/agents/me')).statusCode).toBe(401);
  });

  it('an unknown key is never cached: a key created later works at once', async () => {
    const agent = await createAgent(t);
    const stranger = { headers: { authorization: `Bearer hr_${'0'.repeat(64)}` } };
    expect((await call(t, stranger, 'GET', '/agents/me')).statusCode).toBe(401);
    expect((await call(t, agent, 'GET', '/agents/me')).statusCode).toBe(200);
  });
});

const key = (agentId: string) => ({ agentId, keyId: `key_${agentId}`, scopes: null, livemode: true });

describe('ApiKeyCache bounds', () => {
  it('keeps at most maxEntries, dropping the oldest', () => {
    const cache = new ApiKeyCache(10_000, 2);
    cache.remember('a', key('agt_a'), 0);
    cache.remember('b', key('agt_b'), 0);
    cache.remember('c', key('agt_c'), 0);
    expect([
      cache.keyOf('a', 1)?.agentId ?? null,
      cache.keyOf('b', 1)?.agentId ?? null,
      cache.keyOf('c', 1)?.agentId ?? null,
    ]).toEqual([null, 'agt_b', 'agt_c']);
  });

  it('a TTL of 0 caches nothing, and a clock that went back distrusts the entry', () => {
    const off = new ApiKeyCache(0);
    off.remember('a', key('agt_a'), 0);
    expect(off.keyOf('a', 0)?.agentId ?? null).toBeNull();
    const on = new ApiKeyCache(10_000);
    on.remember('a', key('agt_a'), 5_000);
    expect(on.keyOf('a', 4_999)?.agentId ?? null).toBeNull();
  });
});

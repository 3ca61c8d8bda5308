import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/domain/agents/keyScopes.js';
import { ROUTE_SCOPES } from '../../src/http/routeScopes.js';
import { ALL_TOOLS } from '../../src/mcp/allTools.js';
import { scopeOfTool } from '../../src/mcp/toolAccess.js';
import type { Json } from '../helpers/agentApi.js';
import { call, ok } from '../helpers/agentApi.js';
import type { TestApp } from '../helpers/app.js';
import { createAgent, type TestAgent } from '../helpers/fixtures.js';
import { connectHttp, listen } from '../helpers/mcp.js';
import { createUnthrottledTestApp } from '../helpers/moneyChecks.js';

/** Scopes per API key (issue 38): every agent route and MCP tool needs one. */
let t: TestApp;
let doc: Json;

beforeAll(async () => {
  t = await createUnthrottledTestApp();
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
});
afterAll(async () => {
  await t?.close();
});

async function withScopes(agent: TestAgent, scopes: string[]) {
  const { keys } = await ok(t, { headers: t.admin }, 'GET', `/admin/agents/${agent.id}/keys`);
  return ok(t, { headers: t.admin }, 'PATCH', `/admin/agents/${agent.id}/keys/${keys[0].id}`, { scopes });
}

describe('every agent route has a scope', () => {
  it('each operation the API document lists under the agent key is in ROUTE_SCOPES, and nothing else is', () => {
    const agentRoutes: string[] = [];
    for (const [path, ops] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(ops)) {
        const schemes = (op.security ?? []).flatMap((s: Json) => Object.keys(s));
        if (!schemes.includes('agentKey')) continue;
        agentRoutes.push(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
      }
    }
    expect(agentRoutes.length).toBeGreaterThan(30);
    expect(agentRoutes.filter((r) => !(r in ROUTE_SCOPES))).toEqual([]);
    expect(Object.keys(ROUTE_SCOPES).filter((r) => !agentRoutes.includes(r))).toEqual([]);
  });

  it('every MCP tool has a scope', () => {
    expect(ALL_TOOLS.filter((def) => !scopeOfTool(def)).map((d) => d.name)).toEqual([]);
  });
});

describe('a key without a scope is refused', () => {
  it('on every agent route: 403 naming the scope, before anything happens', async () => {
    const agent = await createAgent(t, { deposit: '10' });
    for (const scope of SCOPES) {
      await withScopes(
        agent,
        SCOPES.filter((s) => s !== scope),
      );
      for (const [route, needed] of Object.entries(ROUTE_SCOPES)) {
        if (needed !== scope) continue;
        const [method, path] = route.split(' ') as ['GET', string];
        const url = path.replace(/:\w+/g, 'tsk_nope');
        const res = await call(
          t,
          agent,
          method,
          url,
          method === 'GET' || method === 'DELETE' ? undefined : {},
        );
        expect(res.statusCode, `${route}: ${res.body}`).toBe(403);
        expect(res.json().scope, route).toBe(scope);
        expect(res.json().error).toContain(`lacks the ${scope} scope`);
      }
    }
    expect((await call(t, agent, 'GET', '/agents/me')).json().agent.balance).toBe('10');
  });

  it('a read-only key reads but cannot create; GET /agents/me shows its scopes; the console owner is not limited', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const { key } = await withScopes(agent, ['tasks:read', 'workers:read']);
    expect(key.scopes).toEqual(['tasks:read', 'workers:read']);
    const me = await ok(t, agent, 'GET', '/agents/me');
    expect(me.apiKey.scopes).toEqual(['tasks:read', 'workers:read']);
    const refused = await call(t, agent, 'POST', '/tasks', { title: 'x', description: 'y', reward: '1' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().scope).toBe('tasks:write');
    expect((await ok(t, agent, 'GET', '/agents/me')).agent.balance).toBe('100');
    // Every scope again: the key may create.
    await withScopes(agent, [...SCOPES]);
    expect(
      (await call(t, agent, 'POST', '/tasks', { title: 'x', description: 'y', reward: '1' })).statusCode,
    ).toBe(201);
  });

  it('unknown or repeated scopes are a 400 and change nothing', async () => {
    const agent = await createAgent(t);
    const { keys } = await ok(t, { headers: t.admin }, 'GET', `/admin/agents/${agent.id}/keys`);
    const url = `/admin/agents/${agent.id}/keys/${keys[0].id}`;
    for (const scopes of [['admin'], ['chat', 'chat']]) {
      expect((await call(t, { headers: t.admin }, 'PATCH', url, { scopes })).statusCode).toBe(400);
    }
    expect((await ok(t, agent, 'GET', '/agents/me')).apiKey.scopes).toHaveLength(6);
  });
});

describe('MCP follows the scopes', () => {
  it('lists only the tools the key may use, and refuses a call outside them', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    await withScopes(agent, ['tasks:read', 'chat']);
    const base = await listen(t);
    const client: Client = await connectHttp(base, agent.apiKey);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
      const expected = ALL_TOOLS.filter((d) => ['tasks:read', 'chat'].includes(scopeOfTool(d)!))
        .map((d) => d.name)
        .sort();
      expect(names).toEqual(expected);
      expect(names).toContain('get_task');
      expect(names).not.toContain('create_task');
      await expect(
        client.callTool({ name: 'create_task', arguments: { title: 'x', description: 'y', reward: '1' } }),
      ).rejects.toThrow(/tasks:write scope/);
    } finally {
      await client.close();
    }
    expect((await ok(t, agent, 'GET', '/agents/me')).agent.balance).toBe('100');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { consoleCall, consoleOk, signInOwner, type TestOwner } from '../helpers/consoleApi.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const asKey = (key: string) => ({ authorization: `Bearer ${key}` });
const me = (key: string) => t.app.inject({ method: 'GET', url: '/agents/me', headers: asKey(key) });

async function ownedAgent(owner: TestOwner, name = 'Scout') {
  return consoleOk(t, owner, 'POST', '/agents', { name }, 201);
}

describe('owners, agents and API keys', () => {
  it('creates an agent whose first key works, and lists it with its deposit details', async () => {
    const owner = await signInOwner(t);
    const { agent, apiKey } = await ownedAgent(owner);
    expect(agent).toMatchObject({ name: 'Scout', balance: '0', spent: '0' });
    expect((await me(apiKey)).json().agent.id).toBe(agent.id);
    const list = await consoleOk(t, owner, 'GET', '/agents');
    expect(list.agents.map((a: { id: string }) => a.id)).toEqual([agent.id]);
    const detail = await consoleOk(t, owner, 'GET', `/agents/${agent.id}`);
    expect(detail.keys).toHaveLength(1);
    expect(detail.keys[0]).toMatchObject({ name: 'default', revokedAt: null });
    expect(detail.keys[0].lastUsedAt).toBe(t.clock.now().toISOString());
    expect(detail.deposit).toMatchObject({
      network: 'sandbox',
      address: t.services.chain.depositAddress,
      memo: agent.id,
      link: `ton://transfer/${t.services.chain.depositAddress}?text=${agent.id}`,
    });
  });

  it('holds several named keys; a revoked key is refused on its next request, the others keep working', async () => {
    const owner = await signInOwner(t);
    const { agent, apiKey: first } = await ownedAgent(owner);
    const created = await consoleOk(
      t,
      owner,
      'POST',
      `/agents/${agent.id}/keys`,
      { name: ' ci runner ' },
      201,
    );
    expect(created.key).toMatchObject({ name: 'ci runner', lastUsedAt: null, revokedAt: null });
    expect(created.apiKey).toMatch(/^hr_[0-9a-f]{64}$/);
    expect(created.key.hint).toBe(`${created.apiKey.slice(0, 7)}...${created.apiKey.slice(-4)}`);
    expect((await me(created.apiKey)).statusCode).toBe(200);

    const revoked = await consoleOk(t, owner, 'POST', `/agents/${agent.id}/keys/${created.key.id}/revoke`);
    expect(revoked.key.revokedAt).toBe(t.clock.now().toISOString());
    expect((await me(created.apiKey)).statusCode).toBe(401);
    expect((await me(first)).statusCode).toBe(200);
    const again = await consoleCall(t, owner, 'POST', `/agents/${agent.id}/keys/${created.key.id}/revoke`);
    expect(again.statusCode).toBe(409);
    const unknown = await consoleCall(t, owner, 'POST', `/agents/${agent.id}/keys/key_nope/revoke`);
    expect(unknown.statusCode).toBe(404);
    const blank = await consoleCall(t, owner, 'POST', `/agents/${agent.id}/keys`, { name: '   ' });
    expect(blank.statusCode).toBe(400);
  });

  it('with every key revoked, the test webhook says to create a key instead of failing', async () => {
    const owner = await signInOwner(t);
    const { agent } = await ownedAgent(owner);
    const [key] = (await consoleOk(t, owner, 'GET', `/agents/${agent.id}`)).keys;
    await consoleOk(t, owner, 'PATCH', `/agents/${agent.id}/api/agents/webhooks`, {
      url: 'http://127.0.0.1:9/hook',
    });
    await consoleOk(t, owner, 'POST', `/agents/${agent.id}/keys/${key.id}/revoke`);
    const res = await consoleCall(t, owner, 'POST', `/agents/${agent.id}/api/agents/webhooks`);
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatch(/create a key/);
  });

  it("refuses one owner another owner's agent, its keys and its agent API", async () => {
    const alice = await signInOwner(t);
    const bob = await signInOwner(t);
    const { agent, apiKey } = await ownedAgent(alice);
    const [key] = (await consoleOk(t, alice, 'GET', `/agents/${agent.id}`)).keys;
    const tries: [string, string, unknown?][] = [
      ['GET', `/agents/${agent.id}`],
      ['GET', `/agents/${agent.id}/spending`],
      ['POST', `/agents/${agent.id}/keys`, { name: 'mine now' }],
      ['POST', `/agents/${agent.id}/keys/${key.id}/revoke`],
      ['POST', `/agents/${agent.id}/faucet`, { amount: '1' }],
      ['GET', `/agents/${agent.id}/api/agents/me`],
      ['GET', `/agents/${agent.id}/api/agents/tasks`],
      ['GET', `/agents/${agent.id}/api/transactions`],
      // The task actions the console offers: accept an application, cancel, complete, review.
      ['GET', `/agents/${agent.id}/api/tasks/tsk_any`],
      ['PATCH', `/agents/${agent.id}/api/applications/app_any`, {}],
      ['DELETE', `/agents/${agent.id}/api/tasks/tsk_any`],
      ['POST', `/agents/${agent.id}/api/tasks/tsk_any/complete`],
      ['POST', `/agents/${agent.id}/api/tasks/tsk_any/revisions`, { reason: 'redo' }],
      ['POST', `/agents/${agent.id}/api/tasks/tsk_any/dispute`, { reason: 'bad' }],
    ];
    for (const [method, url, body] of tries) {
      const res = await consoleCall(t, bob, method as 'GET', url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error).toBe('Agent not found');
    }
    expect((await consoleOk(t, bob, 'GET', '/agents')).agents).toEqual([]);
    expect((await me(apiKey)).statusCode).toBe(200);
    // An operator-made agent belongs to no owner.
    const admin = await t.app.inject({ method: 'POST', url: '/admin/agents', headers: t.admin, payload: {} });
    const operatorAgent = admin.json().agent.id;
    expect((await consoleCall(t, bob, 'GET', `/agents/${operatorAgent}`)).statusCode).toBe(404);
    expect((await me(admin.json().apiKey)).statusCode).toBe(200);
  });

  it("refuses the task actions on another owner's task, through the owner's own agent too", async () => {
    const alice = await signInOwner(t);
    const bob = await signInOwner(t);
    const { agent, apiKey } = await ownedAgent(alice);
    const { agent: bobAgent } = await ownedAgent(bob);
    await consoleOk(t, alice, 'POST', `/agents/${agent.id}/faucet`, { amount: '5' }, 201);
    const created = await t.app.inject({
      method: 'POST',
      url: '/tasks',
      headers: asKey(apiKey),
      payload: { title: 'Count the benches', description: 'In the park', reward: '1' },
    });
    const taskId = created.json().task.id;
    for (const [method, path, body] of [
      ['GET', `/tasks/${taskId}`],
      ['DELETE', `/tasks/${taskId}`],
      ['POST', `/tasks/${taskId}/complete`],
      ['POST', `/tasks/${taskId}/revisions`, { reason: 'redo' }],
    ] as [string, string, unknown?][]) {
      // Through his own agent it is the agent API's answer for another agent's task: 403.
      const viaOwn = await consoleCall(t, bob, method as 'GET', `/agents/${bobAgent.id}/api${path}`, body);
      expect(viaOwn.statusCode, `${method} ${path}`).toBe(403);
      const viaHers = await consoleCall(t, bob, method as 'GET', `/agents/${agent.id}/api${path}`, body);
      expect(viaHers.statusCode, `${method} ${path}`).toBe(404);
    }
    // Nothing changed: the task is still open and funded for Alice.
    const task = await consoleOk(t, alice, 'GET', `/agents/${agent.id}/api/tasks/${taskId}`);
    expect(task.task.status).toBe('FUNDED');
  });

  it('tops up through the sandbox faucet, acts as the agent in the console, and charts the money', async () => {
    const owner = await signInOwner(t);
    const { agent, apiKey } = await ownedAgent(owner);
    const deposit = await consoleOk(t, owner, 'POST', `/agents/${agent.id}/faucet`, { amount: '5' }, 201);
    expect(deposit.transaction).toMatchObject({ type: 'DEPOSIT', amount: '5', status: 'confirmed' });
    expect((await consoleOk(t, owner, 'GET', `/agents/${agent.id}`)).agent.balance).toBe('5');
    expect((await me(apiKey)).json().agent.balance).toBe('5');
    const task = await t.app.inject({
      method: 'POST',
      url: '/tasks',
      headers: asKey(apiKey),
      payload: { title: 'Photograph a storefront', description: 'Two photos of the entrance', reward: '1' },
    });
    expect(task.statusCode, task.body).toBe(201);
    const tasks = await consoleOk(t, owner, 'GET', `/agents/${agent.id}/api/agents/tasks?status=FUNDED`);
    expect(tasks.tasks.map((x: { id: string }) => x.id)).toEqual([task.json().task.id]);
    const spending = await consoleOk(t, owner, 'GET', `/agents/${agent.id}/spending`);
    expect(spending.days).toHaveLength(30);
    expect(spending.days.at(-1)).toEqual({
      day: t.clock.now().toISOString().slice(0, 10),
      deposited: '5',
      spent: '0',
    });
    const tooSmall = await consoleCall(t, owner, 'POST', `/agents/${agent.id}/faucet`, { amount: '0.001' });
    expect(tooSmall.statusCode).toBe(400);
  });
});

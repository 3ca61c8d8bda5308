import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstInexactNumber } from '../../src/http/exactNumbers.js';
import { ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { agentMe, createAgent, type TestAgent } from '../helpers/fixtures.js';

/**
 * JSON.parse rounds numbers to binary doubles without a word; money must arrive as written or
 * not at all. The raw body is what is checked, since the parsed value has already lost it.
 */
describe('firstInexactNumber', () => {
  it.each([
    ['{"reward": 1.5}'],
    ['{"reward": 10, "executionDeadlineDays": 7}'],
    ['{"reward": 1.0000000001}'],
    ['{"reward": 1.10}'],
    ['{"reward": 1e2, "b": 1E-7, "c": -0}'],
    ['{"a": [0.1, 0.2, 123456789012345]}'],
    ['{"note": "1.00000000000000001 written in a string", "id": "tsk_01jq8e9x"}'],
    ['{"k\\"ey": "\\\\", "x": 9007199254740992}'],
  ])('finds nothing to round in %s', (text) => {
    expect(firstInexactNumber(text)).toBeNull();
  });

  it.each([
    ['{"reward": 1.0000000000000001}', 'reward', '1.0000000000000001'],
    ['{"amount": 100000000.123456789}', 'amount', '100000000.123456789'],
    ['{"a": {"b": [1, 2, 0.30000000000000001]}}', 'a/b/2', '0.30000000000000001'],
    ['[{"x": 1}, {"x": 9007199254740993}]', '1/x', '9007199254740993'],
    ['{"s": "a,b", "reward": 1e400}', 'reward', '1e400'],
    [`{"reward": 0.${'0'.repeat(600)}1}`, 'reward', `0.${'0'.repeat(600)}1`],
    ['2.00000000000000000001', '', '2.00000000000000000001'],
  ])('finds the rounded number in %s', (text, path, literal) => {
    expect(firstInexactNumber(text)).toEqual({ path, literal });
  });
});

describe('money sent as JSON numbers', () => {
  let t: TestApp;
  let agent: TestAgent;
  beforeAll(async () => {
    t = await createTestApp();
    agent = await createAgent(t, { name: 'Exact', deposit: '100' });
  });
  afterAll(() => t.close());

  const postTask = (rawReward: string) =>
    t.app.inject({
      method: 'POST',
      url: '/tasks',
      headers: { ...agent.headers, 'content-type': 'application/json' },
      payload: `{"title": "A task", "description": "Details", "reward": ${rawReward}}`,
    });

  it.each(['1.0000000000000001', '6.50000000000000000001'])(
    'a reward of %s, which JSON.parse rounds, is 400 and creates nothing',
    async (reward) => {
      const before = await agentMe(t, agent);
      const res = await postTask(reward);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toEqual({
        error: 'Validation failed',
        details: [
          {
            path: 'reward',
            message: `the JSON number ${reward} cannot be read exactly (JSON numbers are binary floating point); send amounts as strings such as "1.5", with at most 9 decimals`,
          },
        ],
      });
      expect(await agentMe(t, agent)).toEqual(before);
    },
  );

  it('a reward number with 10 decimals is 400 saying at most 9 decimals', async () => {
    const before = await agentMe(t, agent);
    const res = await postTask('1.0000000001');
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().details).toEqual([
      { path: 'reward', message: expect.stringContaining('at most 9 decimals') },
    ]);
    expect(await agentMe(t, agent)).toEqual(before);
  });

  it('exact numbers still work', async () => {
    const res = await postTask('1.5');
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().task.reward).toBe('1.5');
  });

  it('a deposit amount the parse would round is 400 and moves nothing', async () => {
    const other = await createAgent(t);
    const res = await t.app.inject({
      method: 'POST',
      url: `/admin/agents/${other.id}/deposits`,
      headers: { ...t.admin, 'content-type': 'application/json' },
      payload: '{"amount": 100000000.123456789}',
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().details[0].path).toBe('amount');
    expect((await ok(t, other, 'GET', '/agents/me')).agent.balance).toBe('0');
  });
});

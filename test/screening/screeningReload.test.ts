import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RULES_FILE } from '../../src/domain/trust/screening.js';
import { call, ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent } from '../helpers/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'screening-'));
const file = join(dir, 'rules.json');
copyFileSync(DEFAULT_RULES_FILE, file);

let t: TestApp;
let admin: { headers: Record<string, string> };
beforeAll(async () => {
  t = await createTestApp({ config: { screening: { rulesFile: file, freezeAfter: 5 } } });
  admin = { headers: t.admin };
});
afterAll(() => t.close());

const rules = (extra: object[]) => ({
  version: 'test-2',
  rules: [
    {
      id: 'no-pineapple',
      name: 'Pineapple on pizza',
      category: 'dangerous_acts',
      action: 'refuse',
      patterns: ['pineapple', 'ананас'],
    },
    ...extra,
  ],
});

describe('reloading the screening rules without a restart', () => {
  it('a good file takes effect at once; a bad one is a 400 saying what is wrong, the rules in force stay', async () => {
    const agent = await createAgent(t, { name: 'Pizza agent', deposit: '100' });
    const post = (title: string) =>
      call(t, agent, 'POST', '/tasks', { title, description: 'Details in the chat', reward: '5' });
    expect((await post('Buy a pineapple pizza for the office')).statusCode).toBe(201);

    writeFileSync(file, JSON.stringify(rules([])));
    const loaded = await ok(t, admin, 'POST', '/admin/screening/reload');
    expect(loaded).toMatchObject({ file, version: 'test-2', rules: 1, loadedAt: expect.any(String) });
    const refused = await post('Buy a pineapple pizza for the office');
    expect(refused.statusCode).toBe(400);
    expect(refused.json().rule.id).toBe('no-pineapple');

    writeFileSync(
      file,
      JSON.stringify(
        rules([
          { id: 'bad', name: 'Bad rule', category: 'dangerous_acts', action: 'hold', patterns: ['a.*b'] },
        ]),
      ),
    );
    const bad = await call(t, admin, 'POST', '/admin/screening/reload');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toContain('rule bad, pattern 1');
    expect(bad.json().error).toContain('stay in force');
    expect(bad.json().kept).toMatchObject({ version: 'test-2', rules: 1 });
    writeFileSync(file, '{ not json');
    const broken = await call(t, admin, 'POST', '/admin/screening/reload');
    expect(broken.statusCode).toBe(400);
    expect(broken.json().error).toContain('not valid JSON');
    // The rules in force are still the last good ones.
    expect((await post('Buy a pineapple pizza again')).statusCode).toBe(400);
    expect((await call(t, agent, 'POST', '/admin/screening/reload')).statusCode).toBe(401);
  });
});

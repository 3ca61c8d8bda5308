import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, type Json, ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createWorker, expectBooksBalanced } from '../helpers/fixtures.js';
import { listen } from '../helpers/mcp.js';

let t: TestApp;
let baseUrl: string;

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await listen(t);
});
afterAll(async () => {
  await t?.close();
});

const pause = () => new Promise((resolve) => setTimeout(resolve, 50));

/** Polls `probe` until it returns something, for at most `tries` rounds. */
async function eventually<T>(probe: () => Promise<T | undefined>, what: string, tries = 1200): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const found = await probe();
    if (found !== undefined) return found;
    await pause();
  }
  throw new Error(`gave up waiting for ${what}`);
}

it('the example agent goes from an API key to a completed, paid task', async () => {
  const agent = await createAgent(t, { name: null, deposit: '10' });
  const worker = await createWorker(t);
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/agent.ts'], {
    env: { ...process.env, HANDOFF_URL: baseUrl, HANDOFF_API_KEY: agent.apiKey, EXAMPLE_POLL_MS: '50' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += String(chunk);
  });
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));

  // The worker's side, through the worker API: find the task, apply, answer in the chat.
  const task = await eventually(async () => {
    const { tasks } = await ok(t, worker, 'GET', '/worker/tasks?limit=100');
    return (tasks as Json[]).find((x) => x.agent?.id === agent.id || x.title === 'Photo of the town hall');
  }, 'the example’s task');
  await ok(
    t,
    worker,
    'POST',
    `/worker/tasks/${task.id}/applications`,
    { message: 'I am at the square' },
    201,
  );
  await eventually(async () => {
    const res = await call(t, worker, 'GET', `/worker/chat/${task.id}/messages`);
    return res.statusCode === 200 && res.json().messages.length > 0 ? true : undefined;
  }, 'the agent’s message');
  await ok(t, worker, 'POST', `/worker/chat/${task.id}/messages`, { content: 'Photo sent, done!' }, 201);

  expect(await exited, `stdout:\n${stdout}\nstderr:\n${stderr}`).toBe(0);
  const summary = JSON.parse(stdout.trim().split('\n').at(-1)!);
  expect(summary).toMatchObject({
    taskId: task.id,
    status: 'COMPLETED',
    paymentStatus: 'RELEASED',
    paidTo: worker.wallet,
  });
  expect(summary.txHash).toMatch(/^[0-9a-f]{64}$/);
  expect(await t.ctx.chain.getBalance(worker.wallet!)).toBeGreaterThan(900_000_000n);
  const ratings = await ok(t, agent, 'GET', `/tasks/${task.id}/ratings`);
  expect(ratings.agentRating).toMatchObject({ score: 5 });
  await expectBooksBalanced(t);
});

import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect } from 'vitest';
import type { Json } from './agentApi.js';
import { expectAudited, expectStatus, newAgent, newWorker, type Service, send } from './service.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
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

/**
 * Runs examples/agent.ts (the SDK example, a child process) against `service` with a fresh
 * agent, plays the worker through the worker API, and checks that it ends with a completed,
 * paid and rated task.
 */
export async function runExampleAgent(service: Service): Promise<void> {
  const agent = await newAgent(service, { name: null, deposit: '10' });
  const worker = await newWorker(service);
  const child = spawn(
    process.execPath,
    ['--conditions=handoff-source', '--import', 'tsx', 'examples/agent.ts'],
    {
      cwd: ROOT,
      env: { ...process.env, HANDOFF_URL: service.url, HANDOFF_API_KEY: agent.apiKey, EXAMPLE_POLL_MS: '50' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += String(chunk);
  });
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    // The worker's side, through the worker API: find the task, apply, answer in the chat.
    const task = await eventually(async () => {
      const { tasks } = await expectStatus(service, worker, 'GET', '/worker/tasks?limit=100');
      return (tasks as Json[]).find((x) => x.agent?.id === agent.id);
    }, 'the example’s task');
    await expectStatus(
      service,
      worker,
      'POST',
      `/worker/tasks/${task.id}/applications`,
      { message: 'I am at the square' },
      201,
    );
    await eventually(async () => {
      const res = await send(service, worker, 'GET', `/worker/chat/${task.id}/messages`);
      return res.status === 200 && res.json.messages.length > 0 ? true : undefined;
    }, 'the agent’s message');
    await expectStatus(
      service,
      worker,
      'POST',
      `/worker/chat/${task.id}/messages`,
      { content: 'Photo sent, done!' },
      201,
    );

    expect(await exited, `stdout:\n${stdout}\nstderr:\n${stderr}`).toBe(0);
    const summary = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(summary).toMatchObject({
      taskId: task.id,
      status: 'COMPLETED',
      paymentStatus: 'RELEASED',
      paidTo: worker.wallet,
    });
    expect(summary.txHash).toMatch(/^[0-9a-f]{64}$/);
    if (service.chainBalance)
      expect(await service.chainBalance(worker.wallet!)).toBeGreaterThan(900_000_000n);
    const ratings = await expectStatus(service, agent, 'GET', `/tasks/${task.id}/ratings`);
    expect(ratings.agentRating).toMatchObject({ score: 5 });
    await expectAudited(service);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  }
}

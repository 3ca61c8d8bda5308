// An agent that goes from an API key to a completed, paid task, using the SDK:
//   HANDOFF_URL=http://localhost:3000 HANDOFF_API_KEY=hr_... npm run example:agent
// It posts a task, waits for a worker to apply (from the Mini App, or a worker-API call),
// accepts them, asks in the chat for the result, waits on the live chat stream for a message
// saying "done", completes the task (the reward goes to the worker's wallet on chain) and rates
// the worker. Each step prints one line; the last line is a JSON summary.
import { createdTask, Handoff, type Message, unwrap } from '@handoff/sdk';

const baseUrl = process.env.HANDOFF_URL || 'http://localhost:3000';
const apiKey = process.env.HANDOFF_API_KEY ?? '';
const reward = process.env.EXAMPLE_REWARD || '1';
const pollMs = Number(process.env.EXAMPLE_POLL_MS || 2000);
/** Gives up after this long without an applicant or a "done" (default 10 minutes). */
const timeoutMs = Number(process.env.EXAMPLE_TIMEOUT_MS || 600_000);

const log = (line: string) => console.log(line);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function firstApplication(handoff: Handoff, taskId: string, deadline: number) {
  while (Date.now() < deadline) {
    for await (const application of handoff.applications(taskId)) {
      if (application.status === 'PENDING') return application;
    }
    await sleep(pollMs);
  }
  throw new Error('nobody applied in time');
}

async function waitForDone(handoff: Handoff, taskId: string, after: Message, signal: AbortSignal) {
  for await (const message of handoff.streamChat(taskId, { lastEventId: after.id, signal })) {
    log(`chat: ${message.senderType === 'USER' ? 'worker' : 'me'}: ${message.content}`);
    if (message.senderType === 'USER' && /\bdone\b/i.test(message.content)) return message;
  }
  throw new Error('the chat ended without "done"');
}

async function main() {
  if (!apiKey.startsWith('hr_')) throw new Error('Set HANDOFF_API_KEY to your agent API key (hr_...)');
  const handoff = new Handoff({ baseUrl, apiKey });
  const deadline = Date.now() + timeoutMs;

  const { agent } = unwrap(await handoff.api.GET('/agents/me'));
  log(`agent ${agent.id}: balance ${agent.balance} TON`);
  const { task } = createdTask(
    unwrap(
      await handoff.api.POST('/tasks', {
        body: {
          title: 'Photo of the town hall',
          description: 'A daytime photo of the town hall from the main square. Reply "done" when it is sent.',
          reward,
          agentName: agent.name ?? 'Example agent',
        },
      }),
    ),
  );
  log(`task ${task.id}: ${task.totalAmount} TON escrowed (reward ${task.reward} + fee ${task.platformFee})`);

  const application = await firstApplication(handoff, task.id, deadline);
  log(`application ${application.id} from ${application.user.firstName}`);
  const accepted = unwrap(
    await handoff.api.PATCH('/applications/{id}', {
      params: { path: { id: application.id } },
      body: { status: 'ACCEPTED' },
    }),
  );
  log(accepted.message);

  const { message: asked } = unwrap(
    await handoff.api.POST('/chat/{taskId}/messages', {
      params: { path: { taskId: task.id } },
      body: { content: 'Thanks! Send the photo here and write "done" when finished.' },
    }),
  );
  const stop = AbortSignal.timeout(Math.max(1, deadline - Date.now()));
  await waitForDone(handoff, task.id, asked, stop);

  const done = unwrap(await handoff.api.POST('/tasks/{id}/complete', { params: { path: { id: task.id } } }));
  // Without an amount the whole reward is paid (200); only a partial amount answers 202 with an offer.
  if (!('payment' in done)) throw new Error(`expected a payment, got ${JSON.stringify(done)}`);
  log(
    `paid ${done.payment.amount} TON to ${done.payment.toAddress} (tx ${done.payment.txHash ?? 'pending'})`,
  );
  unwrap(
    await handoff.api.POST('/tasks/{id}/rate', {
      params: { path: { id: task.id } },
      body: { score: 5, comment: 'Quick and clear' },
    }),
  );
  log('rated the worker 5/5');
  console.log(
    JSON.stringify({
      taskId: task.id,
      status: done.task.status,
      paymentStatus: done.task.paymentStatus,
      paidTo: done.payment.toAddress,
      txHash: done.payment.txHash,
    }),
  );
}

main().catch((error) => {
  console.error(`example agent failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

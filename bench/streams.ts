/**
 * "Messages per second with 1,000 open streams": chats of assigned tasks, each watched by several
 * SSE streams (half on the agent's route, half on the worker's), while the agent posts messages
 * round-robin over the chats as fast as a fixed number of concurrent clients allows. The clients
 * run in streamClients.ts, in a thread of their own; this side makes the state over HTTP, checks
 * the server's view of the streams, and samples the CPU around the measured run.
 */
import { randomBytes } from 'node:crypto';
import { keyPairFromSeed } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import { formatAddress } from '../src/chain/address.js';
import { InProcessFanout } from '../src/events/fanout.js';
import { signInitData } from '../src/telegram/initData.js';
import { type CpuSplit, finishCpuSample, startCpuSample } from './cpu.js';
import { call, type Fixture, TASK_BODY } from './fixtures.js';
import type { HandoffServer } from './servers.js';
import type { BenchSettings } from './settings.js';
import type { StreamClientsInput, StreamClientsResult } from './streamClients.js';
import { ClientThread } from './thread.js';
import { inParallel } from './util.js';

export interface StreamMeasurement extends Omit<StreamClientsResult, 'type'> {
  scenario: string;
  database: string;
  streams: number;
  chats: number;
  /** Subscriptions the server still held a few seconds after the clients closed every stream. */
  leftSubscribed: number;
  cpu: CpuSplit | null;
  /** Why the run failed, if it did: any lost, doubled or stray event, a failed POST, a leak. */
  problems: string[];
}

/** Set-up requests in flight at once, and streams being opened at once. */
const SETUP_CONCURRENCY = 10;
const OPEN_CONCURRENCY = 50;
/** Time to open all streams, and for the server to notice they closed. */
const OPEN_TIMEOUT_S = 60;
const CLOSE_TIMEOUT_S = 5;

/** Upper bound of the scenario after its set-up, for run.ts's overall time limit. */
export function streamBudgetS(s: BenchSettings): number {
  return (
    OPEN_TIMEOUT_S +
    s.warmupS +
    s.streamDurationS +
    2 * (s.requestTimeoutS + s.drainTimeoutS) +
    CLOSE_TIMEOUT_S
  );
}

/** A fresh, never-deployed V4 wallet address, as test/helpers/fixtures.ts makes one. */
function newWalletAddress(): string {
  const keys = keyPairFromSeed(randomBytes(32));
  return formatAddress(
    WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey }).address,
    'sandbox',
  );
}

/**
 * One worker signed in through Telegram init data (signed with the app's bot token) with a
 * wallet, and `chats` tasks of the fixture's agent assigned to it through apply + accept, each of
 * which opens a chat.
 */
async function makeChats(server: HandoffServer, fixture: Fixture, chats: number) {
  const initData = signInitData(
    { id: 700_000_000 + Math.floor(Math.random() * 1_000_000), first_name: 'Bench' },
    server.telegramBotToken,
    new Date(),
  );
  const worker = { authorization: `tma ${initData}` };
  const agent = { authorization: fixture.authorization };
  const { baseUrl } = server;
  await call(baseUrl, 'GET', '/worker/me', worker, undefined, 200);
  await call(baseUrl, 'PUT', '/worker/me/wallet', worker, { address: newWalletAddress() }, 200);
  const taskIds = await inParallel(
    Array.from({ length: chats }, (_, i) => i),
    SETUP_CONCURRENCY,
    async () => {
      const task = (await call(baseUrl, 'POST', '/tasks', agent, TASK_BODY, 201)).task as { id: string };
      const applied = await call(
        baseUrl,
        'POST',
        `/worker/tasks/${task.id}/applications`,
        worker,
        { message: 'I can do it' },
        201,
      );
      const applicationId = (applied.application as { id: string }).id;
      await call(baseUrl, 'PATCH', `/applications/${applicationId}`, agent, { status: 'ACCEPTED' }, 200);
      return task.id;
    },
  );
  return { taskIds, worker };
}

function subscriptions(server: HandoffServer): number | null {
  const fanout = server.app.ctx.fanout;
  return fanout instanceof InProcessFanout ? fanout.subscriberCount() : null;
}

export async function measureStreams(
  server: HandoffServer,
  fixture: Fixture,
  database: string,
  postgresDatabase: string | null,
  settings: BenchSettings,
): Promise<StreamMeasurement> {
  const { taskIds, worker } = await makeChats(server, fixture, settings.streamChats);
  const streams: StreamClientsInput['streams'] = Array.from({ length: settings.streams }, (_, s) => {
    // Stream s watches chat s mod chats; alternate rounds of chats use the agent's and the worker's route.
    const side = Math.floor(s / taskIds.length) % 2 === 0 ? 'agent' : 'worker';
    return {
      chat: s % taskIds.length,
      side,
      authorization: side === 'agent' ? fixture.authorization : worker.authorization,
    };
  });
  const input: StreamClientsInput = {
    baseUrl: server.baseUrl,
    taskIds,
    streams,
    posterAuthorization: fixture.authorization,
    concurrency: settings.connections,
    warmupS: settings.warmupS,
    durationS: settings.streamDurationS,
    requestTimeoutS: settings.requestTimeoutS,
    drainTimeoutS: settings.drainTimeoutS,
    openConcurrency: OPEN_CONCURRENCY,
  };
  const thread = new ClientThread(new URL('./streamClients.ts', import.meta.url), input);
  let result: StreamClientsResult;
  let cpu: CpuSplit | null;
  try {
    await thread.next('open', OPEN_TIMEOUT_S * 1000);
    const held = subscriptions(server);
    if (held !== null && held !== settings.streams) {
      throw new Error(`${settings.streams} streams are open but the server holds ${held} subscriptions`);
    }
    thread.send({ type: 'go' });
    const phaseLimitMs = (s: number) => (s + settings.requestTimeoutS + settings.drainTimeoutS + 5) * 1000;
    await thread.next('measuring', phaseLimitMs(settings.warmupS));
    const cpuStart = startCpuSample(postgresDatabase);
    await thread.next('measured', phaseLimitMs(settings.streamDurationS));
    cpu = finishCpuSample(cpuStart);
    result = await thread.next<StreamClientsResult>('result', phaseLimitMs(0));
  } finally {
    await thread.stop();
  }
  // Every closed stream must give its subscription back, or a server leaks one per reconnect.
  const until = performance.now() + CLOSE_TIMEOUT_S * 1000;
  while ((subscriptions(server) ?? 0) > 0 && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const { type: _type, ...numbers } = result;
  const measurement = {
    scenario: `POST message, ${settings.streams} streams`,
    database,
    streams: settings.streams,
    chats: taskIds.length,
    ...numbers,
    leftSubscribed: subscriptions(server) ?? 0,
    cpu,
  };
  return { ...measurement, problems: streamProblems(measurement) };
}

function streamProblems(m: Omit<StreamMeasurement, 'problems'>): string[] {
  const found: string[] = [];
  if (m.postErrors > 0)
    found.push(`${m.postErrors} POSTs failed (statuses ${JSON.stringify(m.statusCounts)})`);
  if (m.lost > 0) found.push(`${m.lost} events lost on ${m.streamsWithLosses} streams`);
  if (m.duplicates > 0) found.push(`${m.duplicates} events arrived twice`);
  if (m.unexpected > 0) found.push(`${m.unexpected} events of another chat or of no posted message`);
  if (m.closedEarly > 0) found.push(`${m.closedEarly} streams closed by the server`);
  if (m.leftSubscribed > 0) found.push(`${m.leftSubscribed} subscriptions left after the streams closed`);
  if (m.messages === 0) found.push('no message was posted in the measured run');
  return found;
}

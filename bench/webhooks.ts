/**
 * "Webhook deliveries per second to a local receiver": an agent whose webhook URL points at the
 * receiver in receiver.ts creates tasks (each commits a task.funded event and its delivery row)
 * and the app's own background loop (`jobs: true`: polls every 250 ms, batches of 50, 16 at a
 * time) delivers them. Two runs:
 *
 * - live: the receiver answers at once while autocannon creates tasks; shows how far behind the
 *   event the delivery arrives (lag) when the loop keeps pace, and the rate it kept;
 * - backlog drain: the receiver holds its answers, which stalls the loop on its first attempts
 *   while autocannon creates a backlog; then the answers are released and the rate at which the
 *   loop empties the backlog is its capacity.
 *
 * Every delivery must arrive exactly once with a valid signature, and the app's own records must
 * show every one delivered, none pending or failed.
 */
import { type CpuSplit, finishCpuSample, startCpuSample } from './cpu.js';
import { call, makeFixture, TASK_BODY } from './fixtures.js';
import type { HandoffServer } from './servers.js';
import type { BenchSettings } from './settings.js';
import { ClientThread } from './thread.js';
import type { Produced, ReceiverReport, WebhookClientsInput } from './webhookClients.js';

export interface WebhookMeasurement {
  scenario: string;
  database: string;
  /** Events created in the run (POST /tasks answered 201): one delivery each is expected. */
  expected: number;
  /** Distinct deliveries received. */
  deliveries: number;
  /** live: first event created -> last delivery received; drain: release -> last received. */
  windowS: number;
  /** Deliveries received in the window (drain: not the ones held before the release). */
  inWindow: number;
  /** inWindow / windowS. */
  deliveriesPerSecond: number;
  /** Event created -> delivery received; null in the drain run, where it is time spent queued. */
  lagP50Ms: number | null;
  lagP99Ms: number | null;
  lagMaxMs: number | null;
  duplicates: number;
  badSignatures: number;
  malformed: number;
  /** POST /tasks that did not answer 201, and their statuses. */
  producerErrors: number;
  producerStatus: Record<string, number>;
  cpu: CpuSplit | null;
  /** Why the run failed, if it did: see `problems`. Empty when all is well. */
  problems: string[];
}

const LISTEN_TIMEOUT_MS = 10_000;
/** Time to page through the app's delivery records, and for the receiver to close. */
const CHECK_TIMEOUT_S = 20;
/** How long the app's records get to show the last attempts (see settledRecords). */
const SETTLE_TIMEOUT_MS = 5_000;

/** Upper bound of the scenario after its set-up, for run.ts's overall time limit. */
export function webhookBudgetS(s: BenchSettings): number {
  return 2 * (s.webhookRunS + s.requestTimeoutS + s.deliveryTimeoutS) + CHECK_TIMEOUT_S;
}

/** The agent's deliveries in one status, counted through its own API, page by page. */
async function countDeliveries(server: HandoffServer, authorization: string, status: string) {
  let count = 0;
  let cursor: string | null = null;
  for (let page = 0; page < 10_000; page++) {
    const query: string = `status=${status}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const body = await call(
      server.baseUrl,
      'GET',
      `/agents/webhooks/deliveries?${query}`,
      { authorization },
      undefined,
      200,
    );
    count += (body.deliveries as unknown[]).length;
    cursor = body.hasMore ? (body.nextCursor as string) : null;
    if (!cursor) return count;
  }
  throw new Error('more delivery pages than the bench can have created');
}

export async function measureWebhooks(
  server: HandoffServer,
  database: string,
  postgresDatabase: string | null,
  settings: BenchSettings,
): Promise<WebhookMeasurement[]> {
  // An agent of its own, so no earlier scenario's events are in its queue.
  const fixture = await makeFixture(server.baseUrl, server.adminToken);
  const { authorization } = fixture;
  const apiKey = authorization.slice('Bearer '.length);
  const input: WebhookClientsInput = {
    apiKey,
    baseUrl: server.baseUrl,
    taskBody: TASK_BODY,
    concurrency: settings.connections,
    requestTimeoutS: settings.requestTimeoutS,
  };
  const thread = new ClientThread(new URL('./webhookClients.ts', import.meta.url), input);
  const deliveryLimitMs = (settings.deliveryTimeoutS + 5) * 1000;
  const produceLimitMs = (settings.webhookRunS + settings.requestTimeoutS + 5) * 1000;
  try {
    const { url } = await thread.next<{ type: string; url: string }>('listening', LISTEN_TIMEOUT_MS);
    await call(server.baseUrl, 'PATCH', '/agents/webhooks', { authorization }, { url }, 200);

    const liveCpu = startCpuSample(postgresDatabase);
    thread.send({ type: 'produce', hold: false, seconds: settings.webhookRunS });
    const live = await thread.next<Produced>('produced', produceLimitMs);
    thread.send({ type: 'report', count: live.created, timeoutMs: settings.deliveryTimeoutS * 1000 });
    const liveReport = await thread.next<ReceiverReport>('report', deliveryLimitMs);
    const liveCpuSplit = finishCpuSample(liveCpu);

    thread.send({ type: 'produce', hold: true, seconds: settings.webhookRunS });
    const backlog = await thread.next<Produced>('produced', produceLimitMs);
    thread.send({ type: 'release' });
    const drainCpu = startCpuSample(postgresDatabase);
    thread.send({ type: 'report', count: backlog.created, timeoutMs: settings.deliveryTimeoutS * 1000 });
    const drainReport = await thread.next<ReceiverReport>('report', deliveryLimitMs);
    const drainCpuSplit = finishCpuSample(drainCpu);

    const recorded = await settledRecords(server, authorization);
    const liveWindowS = (liveReport.lastArrivalAt - liveReport.firstEventAt) / 1000;
    const drainWindowS = (drainReport.lastArrivalAt - drainReport.releasedAt) / 1000;
    const measurements: Omit<WebhookMeasurement, 'problems'>[] = [
      {
        ...counts(liveReport),
        database,
        scenario: 'webhooks, live',
        expected: live.created,
        windowS: liveWindowS,
        inWindow: liveReport.deliveries,
        deliveriesPerSecond: liveReport.deliveries / liveWindowS,
        lagP50Ms: liveReport.lagP50Ms,
        lagP99Ms: liveReport.lagP99Ms,
        lagMaxMs: liveReport.lagMaxMs,
        producerErrors: errorsOf(live),
        producerStatus: live.statusCounts,
        cpu: liveCpuSplit,
      },
      {
        ...counts(drainReport),
        database,
        scenario: 'webhooks, backlog drain',
        expected: backlog.created,
        windowS: drainWindowS,
        inWindow: drainReport.afterRelease,
        deliveriesPerSecond: drainReport.afterRelease / drainWindowS,
        lagP50Ms: null,
        lagP99Ms: null,
        lagMaxMs: null,
        producerErrors: errorsOf(backlog),
        producerStatus: backlog.statusCounts,
        cpu: drainCpuSplit,
      },
    ];
    // The app's records are checked once, after both runs, and reported with the last one.
    const recordedProblems = recordProblems(recorded, live.created + backlog.created);
    return measurements.map((m, i) => ({
      ...m,
      problems: [...webhookProblems(m), ...(i === measurements.length - 1 ? recordedProblems : [])],
    }));
  } finally {
    thread.send({ type: 'close' });
    await thread.next('closed', LISTEN_TIMEOUT_MS).catch(() => {});
    await thread.stop();
  }
}

function errorsOf(produced: Produced): number {
  return Object.values(produced.statusCounts).reduce((sum, n) => sum + n, 0) - produced.created;
}

function counts(report: ReceiverReport) {
  return {
    deliveries: report.deliveries,
    duplicates: report.duplicates,
    badSignatures: report.badSignatures,
    malformed: report.malformed,
  };
}

/**
 * The app's delivery records once they settle: the app records an attempt after the receiver's
 * answer, so the last few deliveries can still read pending just after they arrived. Asks again
 * (bounded) until none is pending.
 */
async function settledRecords(server: HandoffServer, authorization: string) {
  const until = performance.now() + SETTLE_TIMEOUT_MS;
  let pending = await countDeliveries(server, authorization, 'pending');
  while (pending > 0 && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    pending = await countDeliveries(server, authorization, 'pending');
  }
  return {
    pending,
    failed: await countDeliveries(server, authorization, 'failed'),
    delivered: await countDeliveries(server, authorization, 'delivered'),
  };
}

/** What makes a run a failure: anything but every event delivered once, signed, and recorded so. */
function webhookProblems(m: Omit<WebhookMeasurement, 'problems'>): string[] {
  const found: string[] = [];
  if (m.producerErrors > 0)
    found.push(`${m.producerErrors} POST /tasks failed (statuses ${JSON.stringify(m.producerStatus)})`);
  if (m.deliveries !== m.expected) found.push(`${m.deliveries} of ${m.expected} deliveries arrived`);
  if (m.duplicates > 0) found.push(`${m.duplicates} deliveries arrived more than once`);
  if (m.badSignatures > 0) found.push(`${m.badSignatures} deliveries had a bad signature`);
  if (m.malformed > 0) found.push(`${m.malformed} requests were not well-formed webhooks`);
  if (m.expected === 0) found.push('no event was created');
  return found;
}

/** The app's records after both runs: every delivery delivered, none pending or failed. */
function recordProblems(
  recorded: { pending: number; failed: number; delivered: number },
  expected: number,
): string[] {
  const found: string[] = [];
  if (recorded.pending)
    found.push(`${recorded.pending} deliveries still pending after ${SETTLE_TIMEOUT_MS} ms`);
  if (recorded.failed) found.push(`${recorded.failed} deliveries failed`);
  if (recorded.delivered !== expected)
    found.push(`the app recorded ${recorded.delivered} deliveries delivered, ${expected} expected`);
  return found;
}

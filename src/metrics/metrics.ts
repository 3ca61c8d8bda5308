import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { RequestDurations } from './requestDurations.js';

/**
 * The app's Prometheus metrics, one registry per app (tests build many apps in one process, and
 * prom-client's default registry is global). Counters move as things happen; gauges of database
 * state are set at scrape time (`src/metrics/scrape.ts`). Node's process metrics live in one
 * registry for the whole process (`processRegistry`): they describe the process, not an app,
 * and prom-client's collectors for them (an event-loop monitor, a GC observer) are never
 * released, so one set per app would pile up in a test process.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly httpDuration = new RequestDurations(this.registry);

  readonly webhookDeliveries = new Counter({
    name: 'handoff_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: delivered, retry (failed, tried again later), failed (given up)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly telegramNotifications = new Counter({
    name: 'handoff_telegram_notifications_total',
    help: 'Telegram notification attempts by outcome: sent, retry, failed (given up), recorded (no bot configured)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'handoff_rate_limited_total',
    help: 'Requests refused with 429, by limit: standard, chat, upload, mcp, streams (open streams per key), auth_failures',
    labelNames: ['bucket'] as const,
    registers: [this.registry],
  });
  /** Open streams by side, read at scrape time (`countStreams`). */
  private openStreams: ReadonlyMap<string, number> = new Map();
  readonly sseStreams = (() => {
    const metrics = this;
    return new Gauge({
      name: 'handoff_sse_streams',
      help: 'Chat streams (Server-Sent Events) open on this instance, by side: agent or worker',
      labelNames: ['side'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const side of ['agent', 'worker']) this.set({ side }, metrics.openStreams.get(side) ?? 0);
      },
    });
  })();
  readonly outboxPending = new Gauge({
    name: 'handoff_outbox_pending',
    help: 'Background work not yet done, by kind (counted up to 100000), read from the database at scrape time',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly outboxOldestDue = new Gauge({
    name: 'handoff_outbox_oldest_due_seconds',
    help: 'How long the longest-waiting due item of each kind has been due (0: nothing due), at scrape time',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly payoutsPending = new Gauge({
    name: 'handoff_payouts_pending',
    help: 'Payouts to workers recorded but not yet confirmed on chain, at scrape time',
    registers: [this.registry],
  });
  readonly hotWalletBalance = new Gauge({
    name: 'handoff_chain_hot_wallet_balance_nanoton',
    help: 'Balance of the hot wallet that pays workers, in nanoton (read at most every 30 s)',
    registers: [this.registry],
  });
  readonly watcherLag = new Gauge({
    name: 'handoff_chain_watcher_lag_seconds',
    help: 'How far behind the chain the deposit and payout watcher is (0 in sandbox mode, where it is never behind)',
    registers: [this.registry],
  });
  readonly scrapeErrors = new Counter({
    name: 'handoff_metrics_scrape_errors_total',
    help: 'Scrapes whose database or chain readings failed (those gauges are left out of that scrape)',
    labelNames: ['source'] as const,
    registers: [this.registry],
  });

  /**
   * Adds handoff_redis_up (1 while Redis answers, 0 during an outage), read from `answering` at
   * scrape time. Only with REDIS_URL set: without Redis there is nothing to be up or down.
   */
  watchRedis(answering: () => boolean): void {
    new Gauge({
      name: 'handoff_redis_up',
      help: 'Whether Redis (REDIS_URL) answers: 0 while limits count per instance and chat reaches other instances late; the instance stays ready',
      registers: [this.registry],
      collect() {
        this.set(answering() ? 1 : 0);
      },
    });
  }

  /** Where handoff_sse_streams is read from: the app's stream counter, kept up to date by the streams. */
  countStreams(openBySide: ReadonlyMap<string, number>): void {
    this.openStreams = openBySide;
  }

  /** Called for every answered request (the onSend hook of registerRequestTiming, metricsRoute.ts). */
  observeRequest(method: string, route: string | undefined, statusCode: number, elapsedMs: number): void {
    this.httpDuration.observe(method, route, statusCode, elapsedMs);
  }

  /** The text a scrape answers: this app's metrics and the process's. */
  async text(): Promise<string> {
    const [app, proc] = await Promise.all([this.registry.metrics(), processRegistry().metrics()]);
    return `${app}\n${proc}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

let shared: Registry | undefined;

/** Node's default metrics (CPU, memory, event loop lag, GC, handles), made once per process. */
function processRegistry(): Registry {
  if (!shared) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared });
  }
  return shared;
}

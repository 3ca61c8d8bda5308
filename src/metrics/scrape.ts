import { outboxBacklog, pendingPayouts } from '../db/repositories/backlog.js';
import { readChainState } from '../db/repositories/chainState.js';
import type { OutboxTable } from '../db/repositories/outbox.js';
import { SYNCED_KEY } from '../domain/chain/chainSender.js';
import type { DomainContext } from '../domain/context.js';
import type { Metrics } from './metrics.js';

/** The kinds of background work as labelled, by table. */
const KINDS: [OutboxTable, string][] = [
  ['webhook_deliveries', 'webhook_delivery'],
  ['notifications', 'telegram_notification'],
  ['chain_transfers', 'chain_transfer'],
  ['chain_batches', 'chain_batch'],
];
/** A scrape's readings give up after this: Prometheus times a scrape out at 10 s by default. */
const READ_TIMEOUT_MS = 3_000;
/** In network mode a balance costs a provider request from the shared budget: at most this often. */
const BALANCE_MAX_AGE_MS = 30_000;

/**
 * Sets the gauges that describe shared state (the database, the chain) just before a scrape
 * answers, so every instance reports the same backlog and nothing polls between scrapes. Each
 * reading is bounded (capped counts on indexed columns, a time-out); one that fails is left out
 * of this scrape, counted in handoff_metrics_scrape_errors_total and logged, never a failed scrape.
 */
export class ScrapeReadings {
  private balance: { value: bigint; atMs: number } | null = null;

  constructor(
    private readonly ctx: DomainContext,
    private readonly metrics: Metrics,
    private readonly onError: (source: string, error: unknown) => void,
  ) {}

  async refresh(): Promise<void> {
    await Promise.all([
      this.read('database', () => this.readDatabase()),
      this.read('chain', () => this.readChain()),
    ]);
  }

  private async read(source: string, reading: () => Promise<void>): Promise<void> {
    try {
      await withTimeout(reading(), READ_TIMEOUT_MS);
    } catch (error) {
      this.metrics.scrapeErrors.inc({ source });
      this.onError(source, error);
    }
  }

  private async readDatabase(): Promise<void> {
    const { db, clock } = this.ctx;
    const m = this.metrics;
    m.outboxPending.reset();
    m.outboxOldestDue.reset();
    m.payoutsPending.reset();
    m.watcherLag.reset();
    const now = clock.now();
    const backlogs = await Promise.all(KINDS.map(([table]) => outboxBacklog(db, table, now.toISOString())));
    KINDS.forEach(([, kind], i) => {
      const { pending, oldestDueAt } = backlogs[i]!;
      m.outboxPending.set({ kind }, pending);
      const dueMs = oldestDueAt ? now.getTime() - Date.parse(oldestDueAt) : 0;
      m.outboxOldestDue.set({ kind }, Math.max(0, dueMs) / 1000);
    });
    m.payoutsPending.set(await pendingPayouts(db));
    const live = this.ctx.chain.live;
    if (!live) {
      m.watcherLag.set(0);
      return;
    }
    // The follower writes the chain time it had read up to once a walk finishes; never yet: unknown.
    const syncedAt = await readChainState(db, SYNCED_KEY);
    if (syncedAt) m.watcherLag.set(Math.max(0, live.nowSeconds() - Number(syncedAt)));
  }

  private async readChain(): Promise<void> {
    const nowMs = this.ctx.clock.now().getTime();
    if (!this.balance || nowMs - this.balance.atMs >= BALANCE_MAX_AGE_MS) {
      this.metrics.hotWalletBalance.reset();
      const { chain } = this.ctx;
      this.balance = { value: await chain.getBalance(chain.hotWalletAddress), atMs: nowMs };
    }
    this.metrics.hotWalletBalance.set(Number(this.balance.value));
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  work.catch(() => {});
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

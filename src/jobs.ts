import type { FastifyBaseLogger } from 'fastify';
import { expireApprovals } from './domain/agents/approvals.js';
import { followWallet } from './domain/chain/chainFollower.js';
import { runChainSender } from './domain/chain/chainSender.js';
import { readFollowerProblems } from './domain/chain/followerProblems.js';
import { CHAIN_LEASE, Lease, type LeaseSettings, thisProcess } from './domain/chain/lease.js';
import type { DomainContext } from './domain/context.js';
import { purgeExpiredKeys } from './domain/idempotency.js';
import { sendDueJettonTransfers } from './domain/money/jettonTransfers.js';
import { sendDueTransfers } from './domain/money/payouts.js';
import { expireOverdueTasks } from './domain/tasks/expiry.js';
import { runReviewWindow } from './domain/trust/reviewWindow.js';
import { followerProblemLog } from './followerLog.js';
import { sendDueNotifications } from './outbox/notifications.js';
import { startWebhookPump } from './outbox/webhookDeliveries.js';
import type { TelegramSender } from './telegram/notifier.js';

const TRANSFER_POLL_MS = 5_000;
/** Webhooks go out within this after their event commits (sooner while a backlog drains). */
const WEBHOOK_POLL_MS = 250;
/** Overdue tasks return to FUNDED within this after their deadline. */
const DEADLINE_POLL_MS = 30_000;
/** Reviews past their window are auto-released (and reminders sent) within this after they are due. */
const REVIEW_POLL_MS = 30_000;
/** Telegram notifications go out within this after they are due. */
const NOTIFICATION_POLL_MS = 1_000;
/** Approvals past their time become EXPIRED within this. */
const APPROVAL_POLL_MS = 30_000;
/** Idempotency keys past their 24 hours are deleted within this. */
const IDEMPOTENCY_PURGE_MS = 600_000;

/**
 * Background work driven by database rows, so any instance can do it and a crash loses nothing:
 * pending chain transfers (payouts and fees, TON or USDT, whose first send failed or was
 * interrupted), webhook deliveries, execution deadlines, review windows (auto-release, reminders)
 * and workers' Telegram notifications.
 */
export function startBackgroundJobs(
  ctx: DomainContext,
  log: FastifyBaseLogger,
  /** Sends worker notifications; null (no bot) records them instead. */
  telegram: TelegramSender | null = null,
  /** Who this instance is and the lease settings, for the chain lease (network mode). */
  instance: { instanceId: string } & LeaseSettings = { instanceId: 'local', ttlMs: 15_000, skewMs: 5_000 },
) {
  const live = ctx.chain.live;
  const followerProblems = followerProblemLog(() => readFollowerProblems(ctx.db), log);
  // Sandbox: the outbox runner retries pending transfers (one sandbox instance per database:
  // sandboxGuard.ts). Testnet/mainnet: due transfers are batched and the runner sends the
  // batches; the wallet follower (a cursor over the wallet's transactions, not an outbox)
  // confirms them and credits deposits. Both run only on the instance holding the chain lease,
  // so the provider sees one instance's traffic however many run.
  const lease = live
    ? new Lease(ctx.db, ctx.clock, CHAIN_LEASE, thisProcess(instance.instanceId), instance)
    : null;
  const chainLoops =
    live && lease
      ? [
          leaseLoop(lease, log),
          // Each round does nothing (no query, no provider request) unless this instance holds it.
          pollLoop('chain batches', live.pollMs, () => runChainSender(ctx, live, lease), log),
          pollLoop(
            'chain follower',
            live.pollMs,
            async () => {
              const processed = await followWallet(ctx, live, lease);
              if (!lease.held()) return 0;
              await followerProblems();
              if (processed > 0)
                log.info(
                  { background: 'chain follower', processed },
                  `chain follower: ${processed} wallet transactions processed`,
                );
              return 0; // a full round is picked up at the next poll, not at once
            },
            log,
          ),
        ]
      : [
          pollLoop('pending transfers', TRANSFER_POLL_MS, () => sendDueTransfers(ctx), log),
          // USDT payouts and fees as jetton transfers (network mode batches them in its sender).
          pollLoop('pending jetton transfers', TRANSFER_POLL_MS, () => sendDueJettonTransfers(ctx), log),
        ];
  // Webhooks never wait for a slow receiver before claiming more: the pump's attempts run on
  // while its loop keeps claiming other agents' deliveries (fair shares, webhookFairness.ts).
  const webhooks = startWebhookPump(ctx, ctx.webhooks, (error) =>
    log.warn({ err: error, background: 'webhook delivery' }, 'webhook delivery failed'),
  );
  const loops = [
    ...chainLoops,
    pollLoop('webhook delivery', WEBHOOK_POLL_MS, () => webhooks.tick(), log),
    pollLoop('execution deadlines', DEADLINE_POLL_MS, () => expireOverdueTasks(ctx), log, {
      done: (n) => `${n} overdue tasks returned to FUNDED (task.expired sent)`,
    }),
    // Reviews that came due while no instance ran are released right after a start.
    pollLoop('review windows', REVIEW_POLL_MS, () => runReviewWindow(ctx, reviewFailed(log)), log, {
      firstDelayMs: 1_000,
    }),
    // One approval that fails to expire is logged and skipped; the others still expire.
    pollLoop('approval expiry', APPROVAL_POLL_MS, () => expireApprovals(ctx, approvalFailed(log)), log, {
      done: (n) => `${n} approvals expired unanswered (approval.expired sent)`,
    }),
    pollLoop('telegram notifications', NOTIFICATION_POLL_MS, () => sendDueNotifications(ctx, telegram), log),
    pollLoop('idempotency keys', IDEMPOTENCY_PURGE_MS, () => purgeExpiredKeys(ctx), log, {
      done: (n) => `${n} idempotency keys past their 24 hours deleted`,
    }),
  ];
  return {
    async stop() {
      await Promise.all(loops.map((loop) => loop.stop()));
      await webhooks.stop();
      // Given up on a clean stop, so another instance takes over at once rather than at expiry.
      await lease?.release().catch((error) => log.warn({ err: error }, 'releasing the chain lease failed'));
    },
  };
}

function approvalFailed(log: FastifyBaseLogger) {
  return (approvalId: string, error: unknown) =>
    log.warn({ err: error, background: 'approval expiry', approvalId }, 'expiring an approval failed');
}

/** One review that failed is logged with its task; the run goes on with the others. */
function reviewFailed(log: FastifyBaseLogger) {
  return (taskId: string, error: unknown) =>
    log.warn({ err: error, background: 'review windows', taskId }, 'review window step failed');
}

/** A loop that keeps failing logs again at most this often (with how many failures it skipped). */
export const FAILURE_LOG_INTERVAL_MS = 60_000;

/**
 * Takes the chain lease when it is free and renews it while held, every third of its TTL, the
 * first time at once. Logs when this instance starts or stops being the chain sender.
 */
function leaseLoop(lease: Lease, log: FastifyBaseLogger) {
  let was = false;
  return pollLoop(
    'chain lease',
    lease.renewEveryMs,
    async () => {
      const outcome = await lease.tick();
      if (outcome.held && !was)
        log.info(
          { lease: lease.name, token: lease.currentToken },
          'holding the chain lease: this instance sends payouts and follows the wallet',
        );
      if (!outcome.held && (was || outcome.lost)) {
        log.warn(
          { lease: lease.name, holder: outcome.other?.holder },
          'lost the chain lease: another instance sends payouts now',
        );
      }
      was = outcome.held;
      return 0;
    },
    log,
    { firstDelayMs: 0 },
  );
}

/**
 * Runs `work` again at once while it reports a full batch, else after `intervalMs` (the first
 * time after `firstDelayMs`, by default `intervalMs`); one run at a time; the loop goes on after
 * errors. What it logs is bounded whatever happens: a round that did nothing logs nothing (the
 * outbox runner logs each attempt itself; `done` describes a round that did something, for work
 * outside the runner), and a failure is logged at warn with its error the first time, then at
 * most once a minute while the same error repeats, then once when the loop recovers.
 */
function pollLoop(
  name: string,
  intervalMs: number,
  work: () => Promise<number>,
  log: FastifyBaseLogger,
  options: { done?: (count: number) => string; firstDelayMs?: number } = {},
) {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const failures = new FailureLog(name, log);
  const tick = () => {
    running = (async () => {
      let done = 0;
      try {
        done = await work();
        failures.succeeded();
        if (done > 0 && options.done)
          log.info({ background: name, count: done }, `${name}: ${options.done(done)}`);
      } catch (error) {
        failures.failed(error);
      }
      if (!stopped) timer = setTimeout(tick, done > 0 ? 0 : intervalMs);
    })();
  };
  timer = setTimeout(tick, options.firstDelayMs ?? intervalMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/** The failure lines of one loop (see pollLoop): no flood while, say, the database is down. */
export class FailureLog {
  private failing = 0;
  private skipped = 0;
  private lastMessage = '';
  private lastLoggedMs = 0;

  constructor(
    private readonly name: string,
    private readonly log: FastifyBaseLogger,
    private readonly nowMs: () => number = Date.now,
  ) {}

  failed(error: unknown): void {
    this.failing++;
    const message = error instanceof Error ? error.message : String(error);
    const now = this.nowMs();
    if (message === this.lastMessage && now - this.lastLoggedMs < FAILURE_LOG_INTERVAL_MS) {
      this.skipped++;
      return;
    }
    const again = this.skipped > 0 ? ` (${this.skipped} more failures since the last line)` : '';
    this.log.warn(
      { err: error, background: this.name, failures: this.failing },
      `${this.name} failed${again}`,
    );
    this.lastMessage = message;
    this.lastLoggedMs = now;
    this.skipped = 0;
  }

  succeeded(): void {
    if (this.failing === 0) return;
    this.log.info(
      { background: this.name, failures: this.failing },
      `${this.name} works again after ${this.failing} failed rounds`,
    );
    this.failing = 0;
    this.skipped = 0;
    this.lastMessage = '';
  }
}

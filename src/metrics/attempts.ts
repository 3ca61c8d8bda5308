import type { FastifyBaseLogger } from 'fastify';
import type { AttemptObserver, AttemptReport } from '../outbox/kind.js';
import type { Metrics } from './metrics.js';

/** The outcome labels of the two counters the issue names, by outcome as the runner reports it. */
const WEBHOOK_OUTCOME = { done: 'delivered', retry: 'retry', failed: 'failed' } as const;
const NOTIFICATION_OUTCOME = {
  done: 'sent',
  retry: 'retry',
  failed: 'failed',
  recorded: 'recorded',
} as const;

/**
 * Logs every background attempt's outcome (a success at info, a failure at warn with its
 * error) and counts webhook deliveries and Telegram notifications. One line per attempt: the
 * runner attempts only due rows, so an idle instance writes nothing.
 */
export function attemptObserver(log: FastifyBaseLogger, metrics: Metrics): AttemptObserver {
  return (report) => {
    count(metrics, report);
    const fields = { background: report.kind, id: report.id, attempt: report.attempt };
    switch (report.outcome) {
      case 'done':
        log.info(fields, `${report.kind} ${report.id} done (attempt ${report.attempt})`);
        break;
      case 'recorded':
        log.info(fields, `${report.kind} ${report.id} recorded, not sent (no Telegram bot is configured)`);
        break;
      case 'retry':
        log.warn(
          { ...fields, error: report.error, retryInMs: report.retryInMs },
          `${report.kind} ${report.id} failed (attempt ${report.attempt}); retrying in ${Math.round((report.retryInMs ?? 0) / 1000)} s: ${report.error}`,
        );
        break;
      case 'failed':
        log.warn(
          { ...fields, error: report.error },
          `${report.kind} ${report.id} failed (attempt ${report.attempt}) and is given up: ${report.error}`,
        );
        break;
      case 'superseded':
        log.warn(
          { ...fields, error: report.error },
          `${report.kind} ${report.id}: attempt ${report.attempt} outlived its claim; another runner holds the row, its outcome was not recorded`,
        );
        break;
    }
  };
}

function count(metrics: Metrics, { table, outcome }: AttemptReport): void {
  if (table === 'webhook_deliveries' && outcome !== 'recorded' && outcome !== 'superseded') {
    metrics.webhookDeliveries.inc({ outcome: WEBHOOK_OUTCOME[outcome] });
  } else if (table === 'notifications' && outcome !== 'superseded') {
    metrics.telegramNotifications.inc({ outcome: NOTIFICATION_OUTCOME[outcome] });
  }
}

import { findAgent, updateAgentProfile } from '../../db/repositories/agents.js';
import { insertApplication } from '../../db/repositories/applications.js';
import { balanceOf, lockFunds } from '../../db/repositories/balances.js';
import type { TaskRow, WorkerRow } from '../../db/repositories/executor.js';
import { insertLedgerRow } from '../../db/repositories/ledger.js';
import { listOfferTimes } from '../../db/repositories/notifications.js';
import { insertTask } from '../../db/repositories/tasks.js';
import { isBlocked } from '../../db/repositories/workerProtection.js';
import { findWorker } from '../../db/repositories/workers.js';
import { refuseIfFrozen } from '../agents/agentFreeze.js';
import { checkName } from '../agents/agents.js';
import { checkSpend, countSpend } from '../agents/keyPolicies.js';
import { isLiveAgent } from '../agents/testMode.js';
import type { DomainContext } from '../context.js';
import { conflict, DomainError, invalid, notFound } from '../errors.js';
import { recordEvent } from '../events/events.js';
import { checkWebhookTarget, checkWebhookUrl } from '../events/webhookUrl.js';
import { isIdOf, newId } from '../ids.js';
import {
  amountText,
  type Currency,
  currencyFacts,
  formatAmount,
  parseAmountField,
  requestedCurrency,
} from '../money/currency.js';
import { noteSpend } from '../money/lowBalance.js';
import { type TaskCost, taskCost } from '../money/money.js';
import { UNSETTLED } from '../money/settlement.js';
import { checkOffersToWorker, recheckOffersToWorker } from '../owners/ownerLimits.js';
import { isBlank, textLength } from '../text.js';
import { inTransaction } from '../transaction.js';
import { checkTaskLocation } from '../trust/location.js';
import { logModeration, screenNewTask } from '../trust/moderation.js';
import type { ScreeningVerdict } from '../trust/screening.js';
import { notifyWorker } from '../workers/notifications.js';

export const TITLE_MAX = 200;
export const DESCRIPTION_MAX = 10_000;
export const DEADLINE_DAYS = { min: 1, max: 90, default: 7 } as const;
/** The review window after a submission, in hours (issue 25): 1 hour to 14 days, 3 days by default. */
export const REVIEW_HOURS = { min: 1, max: 336, default: 72 } as const;

/** The review window of a task: the one its agent chose, else the default. */
export function reviewHoursOf(task: Pick<TaskRow, 'review_hours'>): number {
  return task.review_hours ?? REVIEW_HOURS.default;
}
/**
 * Every direct offer, and every withdrawal of one, is a Telegram message to the worker: an agent
 * may send one worker at most this many offers in any 24 hours, whatever became of them.
 */
export const MAX_OFFERS_PER_WORKER_PER_DAY = 5;
const OFFER_WINDOW_MS = 86_400_000;
/** An absolute deadline may lie at most a year ahead. */
const MAX_DEADLINE_AHEAD_MS = 365 * 86_400_000;

export interface CreateTaskInput {
  title: string;
  description: string;
  reward: string | number;
  /** What reward, fee and total are in; TON when not given (the spec's tasks). */
  currency?: string;
  executionDeadlineDays?: number;
  deadline?: string;
  agentName?: string;
  webhookUrl?: string;
  assignToUserId?: string;
  reviewHours?: number;
  location?: { latitude: number; longitude: number; radiusMeters: number; label?: string };
}

/**
 * Creating the task an owner approved (approvals.ts): approvalAbove no longer applies, `check`
 * runs in the transaction before anything is written (the approval is still pending), `record`
 * after the task row exists (the approval's compare-and-set and its event), so the task, its
 * escrow and the approval's move commit together or not at all.
 */
export interface ApprovedCreation {
  check(trx: DomainContext['db'], now: Date): Promise<void>;
  record(trx: DomainContext['db'], task: TaskRow, now: Date): Promise<void>;
}

export interface CreatedTask {
  task: TaskRow;
  agentName: string | null;
  /** False when a test key made it (the agent is a test twin: src/domain/agents/testMode.ts). */
  livemode: boolean;
  offeredWorker: WorkerRow | null;
}

/**
 * Creates a funded task (or a direct offer) and escrows reward + fee from the agent's balance,
 * in one transaction with its ledger row and its task.funded event. The balance check is the
 * compare-and-set in lockFunds, so concurrent creations can never overdraw.
 */
export async function createTask(
  ctx: DomainContext,
  agentId: string,
  input: CreateTaskInput,
  /** The API key that asks (its spend policy applies); null: the owner, in the console. */
  keyId: string | null = null,
  approval: ApprovedCreation | null = null,
): Promise<CreatedTask> {
  const now = ctx.clock.now();
  const fields = checkTaskInput(ctx, input, now);
  const currency = fields.currency;
  if (fields.webhookUrl) await checkWebhookTarget('webhookUrl', fields.webhookUrl, ctx.webhooks);
  // Before the transaction: a refusal writes nothing but its log row, and the optional
  // classifier's round trip holds no database connection.
  const hold = await screenNewTask(ctx, agentId, {
    title: fields.title,
    description: fields.description,
    label: fields.location?.label,
  });
  const cost = taskCost(fields.rewardNano);
  const at = now.toISOString();
  return inTransaction(ctx.db, async (trx) => {
    const agent = await findAgent(trx, agentId);
    if (!agent) throw notFound('Agent');
    let agentName = agent.name;
    if (!agentName) {
      if (input.agentName === undefined) {
        throw invalid('agentName', 'is required on your first task: it becomes your display name');
      }
      agentName = checkName('agentName', input.agentName);
    }
    const worker = input.assignToUserId
      ? await offerableWorker(trx, input.assignToUserId, agentId, isLiveAgent(agent))
      : null;
    if (worker) await checkOffersToWorker(trx, worker.id, agent.owner_id, now, false);
    // Every refusal so far, and the usual 402 here, comes before anything is written: on SQLite
    // a transaction that fails after a write undoes its whole commit group (sqliteDriver.ts).
    // The compare-and-set in lockFunds below stays the guard against concurrent spending.
    // Only the task's currency's balance is looked at or moved (balances.ts): a TON balance can
    // never pay for a USDT task, nor the other way round.
    await refuseIfFrozen(trx, agentId);
    if (approval) await approval.check(trx, now);
    if (keyId) await checkSpend(trx, keyId, currency, cost.totalNano, now, { approved: !!approval });
    const balance = balanceOf(agent, currency).balance;
    if (balance < cost.totalNano) throw insufficientBalance(currency, balance, cost);
    if (!agent.name) await updateAgentProfile(trx, agentId, { name: agentName }, at);
    const task = newTaskRow({
      agentId,
      fields,
      currency,
      cost,
      at: now,
      keyId,
      worker: worker?.id ?? null,
      batchId: null,
      hold,
    });
    await insertTask(trx, task);
    if (approval) await approval.record(trx, task, now);
    if (hold) {
      await logModeration(trx, { agentId, taskId: task.id, action: 'held', rule: hold.rule.id, now });
    }
    await insertLedgerRow(trx, {
      id: newId('transaction', now.getTime()),
      agent_id: agentId,
      task_id: task.id,
      type: 'TASK_ESCROW',
      currency,
      amount_nano: cost.totalNano,
      from_address: null,
      to_address: null,
      tx_hash: null,
      status: 'confirmed',
      created_at: at,
      updated_at: at,
    });
    if (worker) {
      await insertApplication(trx, {
        id: newId('application', now.getTime()),
        task_id: task.id,
        worker_id: worker.id,
        status: 'OFFERED',
        message: '',
        created_at: at,
        updated_at: at,
      });
      // A held offer reaches its worker only when an operator approves it (moderation.ts).
      if (!hold) await notifyOffer(trx, task, worker.id, agentName, now);
    }
    await recordEvent(trx, {
      agentId,
      taskId: task.id,
      type: 'task.funded',
      data: {
        taskId: task.id,
        deposit: { amount: formatAmount(currency, cost.totalNano), txHash: null, currency },
      },
      now,
      // The task's own URL wins over the agent's, as webhookTarget decides for later events.
      webhookUrl: task.webhook_url ?? agent.webhook_url,
    });
    // The balance moves last: on PostgreSQL its row lock is then held only until commit, so
    // one agent's concurrent creations queue for the shortest time. A refusal rolls back the
    // rows written above.
    const locked = await lockFunds(trx, agentId, currency, cost.totalNano, at);
    if (!locked) {
      const after = await findAgent(trx, agentId);
      throw insufficientBalance(currency, after ? balanceOf(after, currency).balance : 0n, cost);
    }
    // From the row the compare-and-set returned: exactly one of concurrent spends crosses (lowBalance.ts).
    await noteSpend(trx, locked, currency, cost.totalNano, now);
    // Counted after lockFunds, under the agent's row lock on PostgreSQL; the key's own row is the
    // compare-and-set that keeps its limits exact across instances (keyPolicies.ts).
    if (keyId) await countSpend(trx, keyId, currency, cost.totalNano, now, { approved: !!approval });
    // Counted after lockFunds: on PostgreSQL the agent's row lock makes its concurrent offers
    // count one after the other, so none slips past the bound. This offer's own row counts too.
    if (worker) {
      await checkOfferBound(trx, agentId, worker.id, now);
      // And across agents and owners, under the worker's row lock (ownerLimits.ts).
      await recheckOffersToWorker(trx, worker.id, agent.owner_id, now);
    }
    return { task, agentName, livemode: isLiveAgent(agent), offeredWorker: worker };
  });
}

/** The Telegram message of a direct offer, at creation or when an operator approves a held one. */
export function notifyOffer(
  trx: DomainContext['db'],
  task: TaskRow,
  workerId: string,
  agentName: string | null,
  now: Date,
) {
  const currency = task.currency;
  return notifyWorker(trx, {
    workerId,
    taskId: task.id,
    kind: 'offer',
    data: {
      taskId: task.id,
      title: task.title,
      reward: formatAmount(currency, task.reward_nano),
      currency,
      agentName,
    },
    now,
  });
}

function insufficientBalance(currency: Currency, balance: bigint, cost: TaskCost): DomainError {
  const text = (units: bigint) => amountText(currency, units);
  return new DomainError('payment_required', 'Insufficient balance', {
    currentBalance: formatAmount(currency, balance),
    requiredAmount: formatAmount(currency, cost.totalNano),
    currency,
    message: `This task costs ${text(cost.totalNano)} (reward ${text(cost.rewardNano)} + 30% fee ${text(cost.feeNano)}); your ${currency} balance is ${text(balance)}. Top up your ${currency} balance and try again.`,
  });
}

async function checkOfferBound(trx: DomainContext['db'], agentId: string, workerId: string, now: Date) {
  const since = new Date(now.getTime() - OFFER_WINDOW_MS).toISOString();
  const times = await listOfferTimes(trx, agentId, workerId, since);
  if (times.length <= MAX_OFFERS_PER_WORKER_PER_DAY) return;
  // Free again once the oldest offer that counts leaves the 24-hour window.
  const oldest = Date.parse(times[times.length - 1 - MAX_OFFERS_PER_WORKER_PER_DAY]!);
  const retryAfter = Math.max(1, Math.ceil((oldest + OFFER_WINDOW_MS - now.getTime()) / 1000));
  throw new DomainError(
    'rate_limited',
    `You sent this worker ${MAX_OFFERS_PER_WORKER_PER_DAY} direct offers in the last 24 hours, the most allowed (each one notifies them); retry in ${retryAfter} s, or post the task without assignToUserId so anyone can apply`,
    { retryAfter },
  );
}

async function offerableWorker(
  trx: DomainContext['db'],
  workerId: string,
  agentId: string,
  livemode: boolean,
): Promise<WorkerRow> {
  const worker = isIdOf('worker', workerId) ? await findWorker(trx, workerId) : undefined;
  // A test key never reaches a real person: to it every real worker is as if it did not exist.
  if (!worker || !livemode) throw notFound('Worker');
  // The worker blocked this agent (POST /worker/agents/:agentId/block): its offers are refused.
  if (await isBlocked(trx, workerId, agentId)) {
    throw new DomainError(
      'forbidden',
      'This worker does not take offers from your agent; post the task without assignToUserId or offer it to another worker',
    );
  }
  if (!worker.wallet_address) {
    throw conflict(
      'This worker has no connected TON wallet yet and cannot receive offers; choose another worker',
    );
  }
  return worker;
}

/** A task body's fields, checked (400 naming the field); POST /batches checks each of its items with it. */
/**
 * A new task's row, FUNDED (or OFFERED to `worker`), as POST /tasks and POST /batches both write
 * it: one place, so a column added to tasks is set for both ways a task is born.
 */
export function newTaskRow(input: {
  agentId: string;
  fields: ReturnType<typeof checkTaskInput>;
  /** The escrow's currency (a batch item's is the batch's). */
  currency: Currency;
  cost: TaskCost;
  at: Date;
  keyId: string | null;
  worker: string | null;
  batchId: string | null;
  /** Held by screening: escrowed like any task, but no worker sees it until an operator approves. */
  hold: ScreeningVerdict | null;
}): TaskRow {
  const { fields, cost, hold } = input;
  const at = input.at.toISOString();
  return {
    id: newId('task', input.at.getTime()),
    agent_id: input.agentId,
    title: fields.title,
    description: fields.description,
    currency: input.currency,
    reward_nano: cost.rewardNano,
    fee_nano: cost.feeNano,
    total_nano: cost.totalNano,
    status: input.worker ? 'OFFERED' : 'FUNDED',
    payment_status: 'DEPOSITED',
    execution_deadline_days: fields.deadline ? null : fields.executionDeadlineDays,
    deadline: fields.deadline,
    execution_deadline: null,
    webhook_url: fields.webhookUrl,
    worker_id: input.worker,
    created_at: at,
    updated_at: at,
    assigned_at: null,
    completed_at: null,
    cancelled_at: null,
    cancel_reason: null,
    dispute_id: null,
    review_hours: fields.reviewHours,
    review_deadline: null,
    review_reminder_at: null,
    revision_count: 0,
    submission_count: 0,
    location_latitude: fields.location?.latitude ?? null,
    location_longitude: fields.location?.longitude ?? null,
    location_radius_meters: fields.location?.radiusMeters ?? null,
    location_label: fields.location?.label ?? null,
    ...UNSETTLED,
    api_key_id: input.keyId,
    partial_offer_nano: null,
    partial_offer_reason: null,
    partial_offered_at: null,
    batch_id: input.batchId,
    bonus_count: 0,
    bonus_nano: 0n,
    bonus_fee_nano: 0n,
    moderation_status: hold ? 'PENDING' : null,
    moderation_rule: hold?.rule.id ?? null,
  };
}

export function checkTaskInput(ctx: DomainContext, input: CreateTaskInput, now: Date) {
  const title = checkText('title', input.title, TITLE_MAX);
  const description = checkText('description', input.description, DESCRIPTION_MAX);
  const currency = requestedCurrency(ctx.usdt, 'currency', input.currency);
  const rewardNano = checkReward(input.reward, currency);
  if (input.deadline !== undefined && input.executionDeadlineDays !== undefined) {
    throw invalid(
      'deadline',
      'give either executionDeadlineDays (relative) or deadline (absolute), not both',
    );
  }
  const days = input.executionDeadlineDays ?? DEADLINE_DAYS.default;
  if (!Number.isInteger(days) || days < DEADLINE_DAYS.min || days > DEADLINE_DAYS.max) {
    throw invalid(
      'executionDeadlineDays',
      `must be a whole number of days from ${DEADLINE_DAYS.min} to ${DEADLINE_DAYS.max}`,
    );
  }
  const deadline = input.deadline === undefined ? null : checkDeadline(input.deadline, now);
  const webhookUrl = input.webhookUrl === undefined ? null : checkWebhookUrl('webhookUrl', input.webhookUrl);
  const reviewHours = input.reviewHours ?? null;
  if (
    reviewHours !== null &&
    (!Number.isInteger(reviewHours) || reviewHours < REVIEW_HOURS.min || reviewHours > REVIEW_HOURS.max)
  ) {
    throw invalid(
      'reviewHours',
      `must be a whole number of hours from ${REVIEW_HOURS.min} to ${REVIEW_HOURS.max}`,
    );
  }
  const location = input.location === undefined ? null : checkTaskLocation(input.location);
  return {
    title,
    description,
    currency,
    rewardNano,
    executionDeadlineDays: days,
    deadline,
    webhookUrl,
    reviewHours,
    location,
  };
}

export function checkText(path: string, value: string, max: number): string {
  if (isBlank(value)) throw invalid(path, 'must not be blank');
  if (textLength(value) > max) throw invalid(path, `must be at most ${max} characters`);
  return value;
}

/** A reward in `currency`'s smallest unit, within that currency's limits (currency.ts). */
export function checkReward(reward: string | number, currency: Currency = 'TON'): bigint {
  const units = parseAmountField('reward', currency, reward);
  const { minReward, maxReward } = currencyFacts(currency);
  if (units < minReward) throw invalid('reward', `must be at least ${amountText(currency, minReward)}`);
  if (units > maxReward) throw invalid('reward', `must be at most ${amountText(currency, maxReward)}`);
  return units;
}

function checkDeadline(value: string, now: Date): string {
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(time)) {
    throw invalid('deadline', 'must be an ISO 8601 date-time such as 2030-01-31T18:00:00Z');
  }
  if (time <= now.getTime()) throw invalid('deadline', 'must be in the future');
  if (time > now.getTime() + MAX_DEADLINE_AHEAD_MS)
    throw invalid('deadline', 'must be at most 365 days ahead');
  return new Date(time).toISOString();
}

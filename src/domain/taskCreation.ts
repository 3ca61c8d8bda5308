import { escrowTaskFunds, findAgent } from '../db/repositories/agents.js';
import { insertApplication } from '../db/repositories/applications.js';
import type { AgentRow, TaskRow, WorkerRow } from '../db/repositories/executor.js';
import { insertLedgerRow } from '../db/repositories/ledger.js';
import { listOfferTimes } from '../db/repositories/notifications.js';
import { insertTask } from '../db/repositories/tasks.js';
import { findWorker } from '../db/repositories/workers.js';
import { checkName } from './agents.js';
import type { DomainContext } from './context.js';
import { conflict, DomainError, invalid, notFound } from './errors.js';
import { CURRENCY, recordEvent } from './events.js';
import { isIdOf, newId } from './ids.js';
import { formatTon, MAX_REWARD_NANO, MIN_REWARD_NANO, parseTon, type TaskCost, taskCost } from './money.js';
import { notifyWorker } from './notifications.js';
import { isBlank, textLength } from './text.js';
import { inTransaction } from './transaction.js';
import { checkWebhookTarget, checkWebhookUrl } from './webhookUrl.js';

export const TITLE_MAX = 200;
export const DESCRIPTION_MAX = 10_000;
export const DEADLINE_DAYS = { min: 1, max: 90, default: 7 } as const;
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
  executionDeadlineDays?: number;
  deadline?: string;
  agentName?: string;
  webhookUrl?: string;
  assignToUserId?: string;
}

export interface CreatedTask {
  task: TaskRow;
  agentName: string | null;
  offeredWorker: WorkerRow | null;
}

/**
 * Creates a funded task (or a direct offer) and escrows reward + fee from the agent's balance,
 * in one transaction with its ledger row and its task.funded event. The balance check is the
 * compare-and-set in escrowTaskFunds, so concurrent creations can never overdraw.
 */
export async function createTask(
  ctx: DomainContext,
  agentId: string,
  input: CreateTaskInput,
): Promise<CreatedTask> {
  const now = ctx.clock.now();
  const fields = checkTaskInput(input, now);
  if (fields.webhookUrl) await checkWebhookTarget('webhookUrl', fields.webhookUrl, ctx.webhooks);
  const cost = taskCost(fields.rewardNano);
  const at = now.toISOString();
  // A display name given on a later task is ignored, as it always was: only a valid one is passed.
  const named = input.agentName === undefined ? null : checkedName(input.agentName);
  const firstName = typeof named === 'string' ? named : null;
  return inTransaction(ctx.db, async (trx) => {
    const worker = input.assignToUserId ? await offerTarget(trx, input.assignToUserId) : null;
    if (worker instanceof DomainError) throw await refusal(trx, agentId, input, () => worker);
    // The escrow comes first and reads the agent as it writes: nothing is written before it, so
    // a refusal here leaves nothing behind (on SQLite a transaction that fails after a write
    // undoes its whole commit group, sqliteDriver.ts). Its compare-and-set is the guard against
    // concurrent spending; on PostgreSQL its row lock then queues one agent's creations.
    const agent = await escrowTaskFunds(trx, agentId, cost.totalNano, firstName, at);
    if (!agent) {
      throw await refusal(trx, agentId, input, (found) => insufficientBalance(found.balance_nano, cost));
    }
    const agentName = agent.name!;
    const task: TaskRow = {
      id: newId('task', now.getTime()),
      agent_id: agentId,
      title: fields.title,
      description: fields.description,
      reward_nano: cost.rewardNano,
      fee_nano: cost.feeNano,
      total_nano: cost.totalNano,
      status: worker ? 'OFFERED' : 'FUNDED',
      payment_status: 'DEPOSITED',
      execution_deadline_days: fields.deadline ? null : fields.executionDeadlineDays,
      deadline: fields.deadline,
      execution_deadline: null,
      webhook_url: fields.webhookUrl,
      worker_id: worker?.id ?? null,
      created_at: at,
      updated_at: at,
      assigned_at: null,
      completed_at: null,
      cancelled_at: null,
      cancel_reason: null,
    };
    await insertTask(trx, task);
    await insertLedgerRow(trx, {
      id: newId('transaction', now.getTime()),
      agent_id: agentId,
      task_id: task.id,
      type: 'TASK_ESCROW',
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
      await notifyWorker(trx, {
        workerId: worker.id,
        taskId: task.id,
        kind: 'offer',
        data: { taskId: task.id, title: task.title, reward: formatTon(task.reward_nano), agentName },
        now,
      });
    }
    await recordEvent(trx, {
      agentId,
      taskId: task.id,
      type: 'task.funded',
      data: {
        taskId: task.id,
        deposit: { amount: formatTon(cost.totalNano), txHash: null, currency: CURRENCY },
      },
      now,
      // The task's own URL wins over the agent's, as webhookTarget decides for later events.
      webhookUrl: task.webhook_url ?? agent.webhook_url,
    });
    // On PostgreSQL the agent's row lock, taken by the escrow, makes its concurrent offers count
    // one after the other, so none slips past the bound. This offer's own row counts too.
    if (worker) await checkOfferBound(trx, agentId, worker.id, now);
    return { task, agentName, offeredWorker: worker };
  });
}

function insufficientBalance(balance: bigint, cost: TaskCost): DomainError {
  const total = formatTon(cost.totalNano);
  return new DomainError('payment_required', 'Insufficient balance', {
    currentBalance: formatTon(balance),
    requiredAmount: total,
    message: `This task costs ${total} TON (reward ${formatTon(cost.rewardNano)} + 30% fee ${formatTon(cost.feeNano)}); your balance is ${formatTon(balance)} TON. Top up your balance and try again.`,
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

/** The worker a direct offer goes to, or why it cannot go (returned: see refusal). */
async function offerTarget(trx: DomainContext['db'], workerId: string): Promise<WorkerRow | DomainError> {
  const worker = isIdOf('worker', workerId) ? await findWorker(trx, workerId) : undefined;
  if (!worker) return notFound('Worker');
  if (!worker.wallet_address) {
    return conflict(
      'This worker has no connected TON wallet yet and cannot receive offers; choose another worker',
    );
  }
  return worker;
}

/**
 * Why a task cannot be created, in the order the refusals were always given: no such agent, the
 * display name a first task needs (400), then the offered worker (404/409) or the balance (402),
 * which `otherwise` gives. Read only on a refusal, before anything is written.
 */
async function refusal(
  trx: DomainContext['db'],
  agentId: string,
  input: CreateTaskInput,
  otherwise: (agent: AgentRow) => DomainError,
): Promise<DomainError> {
  const agent = await findAgent(trx, agentId);
  if (!agent) return notFound('Agent');
  if (!agent.name) {
    if (input.agentName === undefined) {
      return invalid('agentName', 'is required on your first task: it becomes your display name');
    }
    const named = checkedName(input.agentName);
    if (named instanceof DomainError) return named;
  }
  return otherwise(agent);
}

/** The display name checked, or why it is refused. */
function checkedName(value: string): string | DomainError {
  try {
    return checkName('agentName', value);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
}

function checkTaskInput(input: CreateTaskInput, now: Date) {
  const title = checkText('title', input.title, TITLE_MAX);
  const description = checkText('description', input.description, DESCRIPTION_MAX);
  const rewardNano = checkReward(input.reward);
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
  return { title, description, rewardNano, executionDeadlineDays: days, deadline, webhookUrl };
}

export function checkText(path: string, value: string, max: number): string {
  if (isBlank(value)) throw invalid(path, 'must not be blank');
  if (textLength(value) > max) throw invalid(path, `must be at most ${max} characters`);
  return value;
}

export function checkReward(reward: string | number): bigint {
  let nano: bigint;
  try {
    nano = parseTon(reward);
  } catch (error) {
    throw invalid('reward', (error as Error).message);
  }
  if (nano < MIN_REWARD_NANO) throw invalid('reward', 'must be at least 0.01 TON');
  if (nano > MAX_REWARD_NANO) throw invalid('reward', 'must be at most 1000000 TON');
  return nano;
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

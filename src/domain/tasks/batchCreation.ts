import { findAgent, updateAgentProfile } from '../../db/repositories/agents.js';
import { balanceOf, lockFunds } from '../../db/repositories/balances.js';
import { insertBatch, insertLedgerRows, insertTasks } from '../../db/repositories/batches.js';
import type { BatchRow, TaskRow, TransactionRow } from '../../db/repositories/executor.js';
import { refuseIfFrozen } from '../agents/agentFreeze.js';
import { checkName } from '../agents/agents.js';
import { checkSpend, countSpend } from '../agents/keyPolicies.js';
import { isLiveAgent } from '../agents/testMode.js';
import type { DomainContext } from '../context.js';
import { DomainError, type FieldProblem, invalid, notFound } from '../errors.js';
import { recordEvent } from '../events/events.js';
import { checkWebhookTarget } from '../events/webhookUrl.js';
import { newId } from '../ids.js';
import { amountText, type Currency, formatAmount, requestedCurrency } from '../money/currency.js';
import { noteSpend } from '../money/lowBalance.js';
import { taskCost } from '../money/money.js';
import { inTransaction } from '../transaction.js';
import { logModeration, screenNewTask } from '../trust/moderation.js';
import type { ScreeningVerdict } from '../trust/screening.js';
import { type CreateTaskInput, checkTaskInput, newTaskRow } from './taskCreation.js';

/** Tasks in one batch: 1 to 500 (issue 40). */
export const BATCH_SIZE = { min: 1, max: 500 } as const;

export interface CreateBatchInput {
  /** The tasks, each a POST /tasks body (without assignToUserId); or `template` and `count`. */
  tasks?: CreateTaskInput[];
  template?: CreateTaskInput;
  count?: number;
  /** Tasks of this batch one worker may hold or have held; absent: no limit. */
  maxPerWorker?: number;
  /** The batch's one currency; every item is in it (an item naming another is a 400). */
  currency?: string;
}

export interface CreatedBatch {
  batch: BatchRow;
  tasks: TaskRow[];
  agentName: string;
  /** False when a test key made it (src/domain/agents/testMode.ts). */
  livemode: boolean;
}

type CheckedItem = ReturnType<typeof checkTaskInput>;

/**
 * POST /batches: every task of the batch created and its total escrowed in one transaction, or
 * nothing. Each task is an ordinary task (FUNDED, its own TASK_ESCROW ledger row) that names the
 * batch; the agent's balance moves once, by the sum, with the same compare-and-set as one task
 * (lockFunds), so concurrent creations can never overdraw. The rows go in with multi-row INSERTs,
 * not one statement per task. One batch.created event stands for the tasks' task.funded events.
 */
export async function createBatch(
  ctx: DomainContext,
  agentId: string,
  input: CreateBatchInput,
  /** The API key that asks (its spend policy applies to the batch's sum and to each task); null: the owner. */
  keyId: string | null = null,
): Promise<CreatedBatch> {
  const now = ctx.clock.now();
  const { items, currency, maxPerWorker } = checkBatchInput(ctx, input, now);
  // A network look-up per distinct webhook URL, not per task.
  for (const url of new Set(items.map((item) => item.fields.webhookUrl))) {
    if (url) await checkWebhookTarget('webhookUrl', url, ctx.webhooks);
  }
  // Screened as POST /tasks screens a task: a refused item refuses the whole batch (nothing is
  // written); a held item is escrowed with the others but no worker sees it until an operator does.
  // A template is screened once.
  const verdicts = new Map<(typeof items)[number], ScreeningVerdict | null>();
  for (const item of items) {
    if (verdicts.has(item)) continue;
    const { title, description, location } = item.fields;
    verdicts.set(item, await screenNewTask(ctx, agentId, { title, description, label: location?.label }));
  }
  const holds = items.map((item) => verdicts.get(item) ?? null);
  const costs = items.map((item) => taskCost(item.fields.rewardNano));
  const sum = (pick: (c: (typeof costs)[number]) => bigint) => costs.reduce((s, c) => s + pick(c), 0n);
  const totals = {
    rewardNano: sum((c) => c.rewardNano),
    feeNano: sum((c) => c.feeNano),
    totalNano: sum((c) => c.totalNano),
  };
  const at = now.toISOString();
  return inTransaction(ctx.db, async (trx) => {
    const agent = await findAgent(trx, agentId);
    if (!agent) throw notFound('Agent');
    const agentName = agent.name ?? firstTaskName(items);
    // Every refusal comes before anything is written (see createTask: on SQLite a failed
    // transaction after a write undoes its whole commit group).
    await refuseIfFrozen(trx, agentId);
    // The dearest task, for the per-task limits (bigints: Math.max does not take them).
    let largest = 0n;
    for (const c of costs) if (c.totalNano > largest) largest = c.totalNano;
    if (keyId) await checkSpend(trx, keyId, currency, totals.totalNano, now, { largest });
    const balance = balanceOf(agent, currency).balance;
    if (balance < totals.totalNano) throw batchTooDear(currency, balance, totals, items.length);
    if (!agent.name) await updateAgentProfile(trx, agentId, { name: agentName }, at);
    const batch: BatchRow = {
      id: newId('taskBatch', now.getTime()),
      agent_id: agentId,
      currency,
      task_count: items.length,
      total_nano: totals.totalNano,
      max_per_worker: maxPerWorker,
      created_at: at,
      updated_at: at,
      completed_at: null,
    };
    await insertBatch(trx, batch);
    const tasks = items.map(({ fields }, i) =>
      newTaskRow({
        agentId,
        fields,
        currency,
        cost: costs[i]!,
        at: now,
        keyId,
        worker: null,
        batchId: batch.id,
        hold: holds[i] ?? null,
      }),
    );
    await insertTasks(trx, tasks);
    for (const task of tasks) {
      if (task.moderation_rule) {
        await logModeration(trx, {
          agentId,
          taskId: task.id,
          action: 'held',
          rule: task.moderation_rule,
          now,
        });
      }
    }
    await insertLedgerRows(
      trx,
      tasks.map(
        (task): TransactionRow => ({
          id: newId('transaction', now.getTime()),
          agent_id: agentId,
          task_id: task.id,
          type: 'TASK_ESCROW',
          currency,
          amount_nano: task.total_nano,
          from_address: null,
          to_address: null,
          tx_hash: null,
          status: 'confirmed',
          created_at: at,
          updated_at: at,
        }),
      ),
    );
    await recordEvent(trx, {
      agentId,
      taskId: null,
      type: 'batch.created',
      data: {
        batchId: batch.id,
        count: batch.task_count,
        currency,
        totalAmount: formatAmount(currency, batch.total_nano),
        maxPerWorker,
      },
      now,
      webhookUrl: agent.webhook_url,
    });
    // The balance moves last, once, by the whole sum (createTask says why last).
    const locked = await lockFunds(trx, agentId, currency, totals.totalNano, at);
    if (!locked) {
      const after = await findAgent(trx, agentId);
      throw batchTooDear(currency, after ? balanceOf(after, currency).balance : 0n, totals, items.length);
    }
    await noteSpend(trx, locked, currency, totals.totalNano, now);
    // After lockFunds, as in createTask: the key's row is the compare-and-set of its limits.
    if (keyId) await countSpend(trx, keyId, currency, totals.totalNano, now, { largest });
    return { batch, tasks, agentName, livemode: isLiveAgent(agent) };
  });
}

/**
 * The batch's items, each checked as POST /tasks checks its body, with a 400 whose path names
 * the item (`tasks[3].reward`, `template.title`); one currency for all; the size and the limit.
 */
function checkBatchInput(ctx: DomainContext, input: CreateBatchInput, now: Date) {
  const given = input.tasks !== undefined;
  if (given === (input.template !== undefined)) {
    throw invalid('tasks', 'give either tasks (a list of task bodies) or template and count, not both');
  }
  if (!given && input.count === undefined)
    throw invalid('count', 'is required with template: how many tasks');
  if (given && input.count !== undefined)
    throw invalid('count', 'goes with template only; with tasks, the list is the count');
  const size = given ? (input.tasks?.length ?? 0) : (input.count ?? 0);
  if (!Number.isInteger(size) || size < BATCH_SIZE.min || size > BATCH_SIZE.max) {
    throw invalid(
      given ? 'tasks' : 'count',
      `a batch has ${BATCH_SIZE.min} to ${BATCH_SIZE.max} tasks; this one would have ${size}`,
    );
  }
  const maxPerWorker = input.maxPerWorker ?? null;
  if (maxPerWorker !== null && (!Number.isInteger(maxPerWorker) || maxPerWorker < 1)) {
    throw invalid(
      'maxPerWorker',
      'must be a whole number of at least 1 (1: each person once); leave it out for no limit',
    );
  }
  const currency = requestedCurrency(ctx.usdt, 'currency', input.currency ?? firstCurrency(input));
  const bodies = given ? (input.tasks ?? []) : [input.template as CreateTaskInput];
  const checked = bodies.map((body, i) =>
    checkItem(ctx, body, given ? `tasks[${i}]` : 'template', currency, now),
  );
  const items = given ? checked : Array.from({ length: size }, () => checked[0]!);
  return { items, currency, maxPerWorker };
}

/** Without a batch currency, the items' own (they must then agree), else TON. */
function firstCurrency(input: CreateBatchInput): string | undefined {
  return input.tasks?.find((t) => t.currency !== undefined)?.currency ?? input.template?.currency;
}

function checkItem(ctx: DomainContext, body: CreateTaskInput, path: string, currency: Currency, now: Date) {
  if (body.assignToUserId !== undefined) {
    throw invalid(
      `${path}.assignToUserId`,
      'is not allowed in a batch: a batch’s places are open to every worker; send a direct offer with POST /tasks',
    );
  }
  let fields: CheckedItem;
  try {
    // An item without a currency is in the batch's.
    fields = checkTaskInput(ctx, { ...body, currency: body.currency ?? currency }, now);
  } catch (error) {
    throw withPath(error, path);
  }
  if (fields.currency !== currency) {
    throw invalid(
      `${path}.currency`,
      `is ${fields.currency} but the batch is in ${currency}: a batch has one currency (mixed currencies need two batches)`,
    );
  }
  return { fields, agentName: body.agentName };
}

/** A field problem of one item, its path prefixed with the item's (`tasks[3].reward`). */
function withPath(error: unknown, path: string): unknown {
  if (!(error instanceof DomainError) || error.kind !== 'validation') return error;
  const details = error.extra.details as FieldProblem[] | undefined;
  if (!details) return error;
  return new DomainError(error.kind, error.message, {
    ...error.extra,
    details: details.map((d) => ({ ...d, path: `${path}.${d.path}` })),
  });
}

/** An agent's first tasks name it (agentName), as POST /tasks requires. */
function firstTaskName(items: { agentName?: string }[]): string {
  const given = items.find((item) => item.agentName !== undefined)?.agentName;
  if (given === undefined) {
    throw invalid('tasks[0].agentName', 'is required on your first tasks: it becomes your display name');
  }
  return checkName('agentName', given);
}

function batchTooDear(
  currency: Currency,
  balance: bigint,
  totals: { rewardNano: bigint; feeNano: bigint; totalNano: bigint },
  count: number,
): DomainError {
  const text = (units: bigint) => amountText(currency, units);
  return new DomainError('payment_required', 'Insufficient balance', {
    currentBalance: formatAmount(currency, balance),
    requiredAmount: formatAmount(currency, totals.totalNano),
    currency,
    message: `This batch of ${count} task${count === 1 ? '' : 's'} costs ${text(totals.totalNano)} (rewards ${text(totals.rewardNano)} + 30% fees ${text(totals.feeNano)}); your ${currency} balance is ${text(balance)}, ${text(totals.totalNano - balance)} short. Nothing was created: top up your ${currency} balance and try again.`,
  });
}

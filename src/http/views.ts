import { balanceOf } from '../db/repositories/balances.js';
import type {
  AgentRow,
  ApplicationRow,
  ChatRow,
  MessageRow,
  RatingRow,
  SubmissionRow,
  TaskRow,
  TransactionRow,
  WorkerRow,
} from '../db/repositories/executor.js';
import { isLiveAgent, type TaskOwner } from '../domain/agents/testMode.js';
import { type Currency, formatAmount } from '../domain/money/currency.js';
import { lowBalanceView } from '../domain/money/lowBalance.js';
import { formatTon } from '../domain/money/money.js';
import { reviewHoursOf } from '../domain/tasks/taskCreation.js';
import type { AgentReputation } from '../domain/trust/agentReputation.js';
import { taskLocationOf } from '../domain/trust/location.js';
import { type Grading, partialOfferView } from '../domain/trust/partialPayment.js';
import { submissionView } from '../domain/trust/submissions.js';
import { DEFAULT_LANGUAGE } from '../domain/workers/language.js';
import type { DisputeView } from './disputeViews.js';
import { settlementField, workerSettlementField } from './settlementView.js';

/**
 * Row -> API mapping, one place per resource: column names never leak into the API and every
 * amount leaves as a decimal string of its currency, named beside it (`currency`).
 */
const avg = (sum: number, count: number) => (count === 0 ? null : Math.round((sum / count) * 100) / 100);

export function agentMeView(agent: AgentRow, taskCount: number) {
  return {
    id: agent.id,
    name: agent.name,
    webhookUrl: agent.webhook_url,
    balance: formatTon(agent.balance_nano),
    lockedByTasks: formatTon(agent.locked_nano),
    balances: balancesView(agent),
    createdAt: agent.created_at,
    updatedAt: agent.updated_at,
    taskCount,
    avgRating: avg(agent.rating_sum, agent.rating_count),
    ratingCount: agent.rating_count,
    livemode: isLiveAgent(agent),
  };
}

/** Every currency's balance of the agent, from the one row GET /agents/me reads anyway. */
export function balancesView(agent: AgentRow) {
  const one = (currency: Currency) => {
    const b = balanceOf(agent, currency);
    return {
      balance: formatAmount(currency, b.balance),
      lockedByTasks: formatAmount(currency, b.locked),
      lowBalanceThreshold: lowBalanceView(agent, currency).lowBalanceThreshold,
    };
  };
  return { TON: one('TON'), USDT: one('USDT') };
}

type WorkerNames = Pick<WorkerRow, 'id' | 'username' | 'first_name' | 'show_telegram'>;

/** The Telegram username is shown only when the worker chose to show it. */
const shownUsername = (w: Pick<WorkerRow, 'username' | 'show_telegram'>) =>
  w.show_telegram ? w.username : null;

export function workerRefView(worker: WorkerNames) {
  return { id: worker.id, username: shownUsername(worker), firstName: worker.first_name };
}

/** The review and location fields both sides see. */
function reviewFields(task: TaskRow) {
  return {
    reviewHours: reviewHoursOf(task),
    // Only while a submission waits: after a revision or a decision the clock is not running.
    reviewDeadline: task.status === 'REVIEW' ? task.review_deadline : null,
    revisionCount: task.revision_count,
    location: taskLocationOf(task),
  };
}

/**
 * Whether the agent's view of a task shows the other review fields (and `submission`): once the
 * task uses them — created with reviewHours or a location, or work was submitted
 * (docs/decisions/submissions-and-reviews.md). `reviewHours` itself is on every view.
 */
function showsReview(task: TaskRow): boolean {
  return task.review_hours !== null || task.location_latitude !== null || task.submission_count > 0;
}

export function taskView(
  task: TaskRow,
  owner: TaskOwner,
  worker: WorkerNames | null,
  applications?: ReturnType<typeof applicationView>[],
  submission?: SubmissionRow | null,
  dispute?: DisputeView | null,
) {
  return {
    id: task.id,
    title: task.title,
    description: task.description,
    currency: task.currency,
    reward: formatAmount(task.currency, task.reward_nano),
    platformFee: formatAmount(task.currency, task.fee_nano),
    totalAmount: formatAmount(task.currency, task.total_nano),
    status: task.status,
    paymentStatus: task.payment_status,
    executionDeadlineDays: task.execution_deadline_days,
    ...(task.deadline ? { deadline: task.deadline } : {}),
    executionDeadline: task.execution_deadline,
    webhookUrl: task.webhook_url,
    createdAt: task.created_at,
    updatedAt: task.updated_at,
    agent: { id: task.agent_id, name: owner.name },
    // The owning agent's world: false for a task a test key made (test mode, issue 37).
    livemode: owner.livemode,
    worker: worker ? workerRefView(worker) : null,
    ...settlementField(task),
    ...partialOfferField(task),
    ...(task.batch_id ? { batchId: task.batch_id } : {}),
    ...(task.moderation_status
      ? { moderation: { status: task.moderation_status, rule: task.moderation_rule ?? '' } }
      : {}),
    ...(applications ? { applications } : {}),
    // Always, like currency: an agent reads its own review window even when it chose none (72).
    reviewHours: reviewHoursOf(task),
    ...(showsReview(task) ? reviewFields(task) : {}),
    ...(submission !== undefined && showsReview(task)
      ? { submission: submission ? submissionView(submission) : null }
      : {}),
    // Shown with `submission`: a dispute is only ever about submitted work.
    ...(dispute !== undefined && showsReview(task) ? { dispute } : {}),
  };
}

/** A graded approval's offer while it waits for the worker; absent otherwise (issue 40). */
function partialOfferField(task: TaskRow) {
  const partialOffer = partialOfferView(task);
  return partialOffer ? { partialOffer } : {};
}

/** What a worker sees of a task: no fee, no webhook, no applications; the agent's reputation. */
export function workerTaskView(
  task: TaskRow,
  agent: AgentReputation,
  submission?: SubmissionRow | null,
  dispute?: DisputeView | null,
) {
  return {
    id: task.id,
    title: task.title,
    description: task.description,
    currency: task.currency,
    reward: formatAmount(task.currency, task.reward_nano),
    status: task.status,
    executionDeadlineDays: task.execution_deadline_days,
    ...(task.deadline ? { deadline: task.deadline } : {}),
    executionDeadline: task.execution_deadline,
    createdAt: task.created_at,
    agent,
    ...reviewFields(task),
    ...workerSettlementField(task),
    ...partialOfferField(task),
    ...(submission !== undefined ? { submission: submission ? submissionView(submission) : null } : {}),
    ...(dispute !== undefined ? { dispute } : {}),
  };
}

/** Who applied to a task as a worker sees it: how many people, and whether (and how) they did. */
export function workerApplicantsView(applicants: {
  applicantCount: number;
  ownApplication: ApplicationRow['status'] | null;
}) {
  return { applicants: applicants.applicantCount, yourApplication: applicants.ownApplication };
}

export interface ApplicantColumns {
  worker_username: string | null;
  worker_first_name: string;
  worker_last_name: string | null;
  worker_wallet_address: string | null;
  worker_show_telegram: number;
}

export function applicationView(row: ApplicationRow & ApplicantColumns) {
  return {
    id: row.id,
    status: row.status,
    message: row.message,
    createdAt: row.created_at,
    user: {
      id: row.worker_id,
      username: row.worker_show_telegram ? row.worker_username : null,
      firstName: row.worker_first_name,
      lastName: row.worker_last_name,
      walletAddress: row.worker_wallet_address,
    },
  };
}

export function transactionView(row: TransactionRow & { task_title: string | null }) {
  return {
    id: row.id,
    type: row.type,
    amount: formatAmount(row.currency, row.amount_nano),
    currency: row.currency,
    fromAddress: row.from_address,
    toAddress: row.to_address,
    txHash: row.tx_hash,
    status: row.status,
    createdAt: row.created_at,
    task: row.task_id ? { id: row.task_id, title: row.task_title ?? '' } : null,
  };
}

export function ratingView(row: RatingRow) {
  return {
    id: row.id,
    taskId: row.task_id,
    raterType: row.rater_type,
    score: row.score,
    comment: row.comment,
    createdAt: row.created_at,
  };
}

function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export function workerListEntryView(w: WorkerRow) {
  return {
    id: w.id,
    ...(w.show_telegram && w.username ? { username: w.username } : {}),
    firstName: w.first_name,
    lastName: w.last_name,
    headline: w.headline ?? '',
    country: w.country,
    timezone: w.timezone,
    skills: parseJson<string[]>(w.skills_json, []),
    hourlyRate: w.hourly_rate_nano === null ? null : formatTon(w.hourly_rate_nano),
    completedTasks: w.completed_tasks,
    avgRating: avg(w.rating_sum, w.rating_count),
    ratingCount: w.rating_count,
    memberSince: w.created_at,
  };
}

export function workerDetailView(w: WorkerRow) {
  return {
    id: w.id,
    ...(w.show_telegram && w.username ? { telegramUsername: w.username } : {}),
    firstName: w.first_name,
    lastName: w.last_name,
    headline: w.headline ?? '',
    bio: w.bio,
    city: w.city,
    state: w.state,
    country: w.country,
    timezone: w.timezone,
    skills: parseJson<string[]>(w.skills_json, []),
    socialLinks: parseJson<Record<string, string>>(w.social_links_json, {}),
    hourlyRate: w.hourly_rate_nano === null ? null : formatTon(w.hourly_rate_nano),
    available: w.available === 1,
    completedTasks: w.completed_tasks,
    totalEarned: formatTon(w.total_earned_nano),
    avgRating: avg(w.rating_sum, w.rating_count),
    ratingCount: w.rating_count,
    memberSince: w.created_at,
  };
}

/** The worker's own profile: the detail plus private settings. */
export function workerSelfView(w: WorkerRow) {
  return {
    ...workerDetailView(w),
    telegramUsername: w.username,
    walletAddress: w.wallet_address,
    showTelegram: w.show_telegram === 1,
    language: w.language ?? DEFAULT_LANGUAGE,
    earnings: {
      TON: formatAmount('TON', w.total_earned_nano),
      USDT: formatAmount('USDT', w.usdt_earned_micro),
    },
  };
}

export function messageView(row: MessageRow) {
  return {
    id: row.id,
    senderId: row.sender_id,
    senderType: row.sender_type,
    content: row.content,
    fileUrl: row.file_url,
    fileName: row.file_name,
    fileSize: row.file_size,
    mimeType: row.mime_type,
    createdAt: row.created_at,
  };
}

export interface ChatListColumns {
  task_title: string;
  task_status: TaskRow['status'];
  worker_username: string | null;
  worker_first_name: string;
  worker_show_telegram: number;
  agent_name: string | null;
}

export function chatView(chat: ChatRow & ChatListColumns, lastMessage: MessageRow | null) {
  return {
    id: chat.id,
    taskId: chat.task_id,
    task: { title: chat.task_title, status: chat.task_status },
    user: {
      id: chat.worker_id,
      username: chat.worker_show_telegram ? chat.worker_username : null,
      firstName: chat.worker_first_name,
    },
    agent: { id: chat.agent_id, name: chat.agent_name },
    lastMessage: lastMessage
      ? {
          content: lastMessage.content,
          senderType: lastMessage.sender_type,
          createdAt: lastMessage.created_at,
        }
      : null,
    closed: chat.closed_at !== null,
    updatedAt: chat.updated_at,
  };
}

export function completionView(done: {
  task: TaskRow;
  worker: WorkerNames;
  payout: TransactionRow;
  fee: TransactionRow;
}) {
  return {
    success: true,
    task: { id: done.task.id, status: done.task.status, paymentStatus: done.task.payment_status },
    payment: {
      amount: formatAmount(done.payout.currency, done.payout.amount_nano),
      currency: done.payout.currency,
      toAddress: done.payout.to_address!,
      txHash: done.payout.tx_hash,
      status: done.payout.status,
      pending: done.payout.status !== 'confirmed',
      recipient: workerRefView(done.worker),
    },
    fee: {
      amount: formatAmount(done.fee.currency, done.fee.amount_nano),
      currency: done.fee.currency,
      toAddress: done.fee.to_address!,
      txHash: done.fee.tx_hash,
      success: done.fee.status === 'confirmed',
    },
  };
}

/** POST /tasks/:id/complete's answer: the payment (200), or the offer of part of the reward (202). */
export function gradingView(graded: Grading): { status: 200 | 202; body: Record<string, unknown> } {
  if (graded.kind === 'paid') return { status: 200, body: completionView(graded.completion) };
  const { task } = graded;
  return {
    status: 202,
    body: {
      success: true,
      task: { id: task.id, status: task.status, paymentStatus: task.payment_status },
      partialOffer: partialOfferView(task),
    },
  };
}

export function cancelView(task: TaskRow, refundNano: bigint) {
  return {
    success: true,
    task: { id: task.id, status: task.status, paymentStatus: task.payment_status },
    refund: {
      amount: formatAmount(task.currency, refundNano),
      destination: 'agent_balance' as const,
      currency: task.currency,
    },
  };
}

export function acceptedView(result: {
  application: ApplicationRow;
  worker: WorkerNames;
  task: TaskRow;
  chat: ChatRow;
}) {
  return {
    application: {
      id: result.application.id,
      status: result.application.status,
      user: workerRefView(result.worker),
    },
    chat: { id: result.chat.id },
    message: `${result.worker.first_name} is assigned; the execution deadline is ${result.task.execution_deadline}.`,
  };
}

export function webhookConfigView(agent: AgentRow) {
  const configured = agent.webhook_url !== null;
  return {
    webhook: { url: agent.webhook_url, configured, lastUpdated: agent.updated_at },
    message: configured ? 'Webhooks will be sent to this URL' : 'Webhooks are turned off',
  };
}

/** POST /tasks: the task, and for a direct offer the worker it was offered to. */
export function createdTaskView(created: {
  task: TaskRow;
  agentName: string | null;
  livemode: boolean;
  offeredWorker: WorkerRow | null;
}) {
  const owner = { name: created.agentName, livemode: created.livemode };
  const task = taskView(created.task, owner, created.offeredWorker);
  if (!created.offeredWorker) return { task };
  return {
    task,
    offeredWorker: workerRefView(created.offeredWorker),
    message: `Offer sent to ${created.offeredWorker.first_name}; the task is assigned when they accept.`,
  };
}

/** POST /tasks/:id/revisions (REST and MCP): the sent-back submission and the task. */
export function revisionView(result: {
  task: TaskRow;
  submission: SubmissionRow;
  owner: TaskOwner;
  worker: WorkerNames | null;
}) {
  return {
    submission: submissionView(result.submission),
    task: taskView(result.task, result.owner, result.worker, undefined, result.submission),
  };
}

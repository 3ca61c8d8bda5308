import type { Generated } from 'kysely';
import type { Currency } from '../domain/money/currency.js';
import type { ApplicationStatus, PaymentStatus, TaskStatus } from '../domain/tasks/states.js';

/**
 * Table types. Conventions that hold on both SQLite and PostgreSQL:
 * - money columns end in `_nano` and are bigint (see bigintPlugin.ts, which enforces this); a
 *   `_nano` amount is in the smallest unit of its row's `currency` (nanotons for TON, micro-USDT
 *   for USDT), and the agents' USDT-only columns end in `_micro` (migration 0020);
 *   every other integer column reads as a JS number;
 * - timestamps are fixed-width ISO-8601 UTC text (sorts as time, one code path for both dialects);
 * - booleans are 0/1 integers; JSON values are text.
 */
export interface AgentTable {
  id: string;
  name: string | null;
  webhook_url: string | null;
  /** What the agent can spend. */
  balance_nano: Generated<bigint>;
  /** Sum of totalAmount over tasks neither COMPLETED nor CANCELLED. */
  locked_nano: Generated<bigint>;
  /** Sum of DEPOSIT amounts. */
  deposited_nano: Generated<bigint>;
  /** Sum of totalAmount over COMPLETED tasks. deposited = balance + locked + spent (CHECK). */
  spent_nano: Generated<bigint>;
  /** The same four for USDT, in micro-USDT, under the same conservation CHECK (balances.ts maps them). */
  usdt_balance_micro: Generated<bigint>;
  usdt_locked_micro: Generated<bigint>;
  usdt_deposited_micro: Generated<bigint>;
  usdt_spent_micro: Generated<bigint>;
  rating_sum: Generated<number>;
  rating_count: Generated<number>;
  /** The owner who manages the agent in the web console; null for agents an operator created. */
  owner_id: Generated<string | null>;
  /** 1: a live agent; 0: an agent's test twin, owner of what its test keys make (migration 0042). */
  livemode: Generated<number>;
  /** On a test twin: its live agent; null on live agents. */
  live_agent_id: Generated<string | null>;
  /** The owner's low-balance alert per currency (migration 0043, lowBalance.ts); null: no alert. */
  ton_low_balance_nano: Generated<bigint | null>;
  usdt_low_balance_micro: Generated<bigint | null>;
  created_at: string;
  updated_at: string;
}

export interface ApiKeyTable {
  id: string;
  agent_id: string;
  key_hash: string;
  key_ciphertext: string;
  key_hint: string;
  /** What the owner calls the key ("production", "laptop"); null for keys made before names. */
  name: Generated<string | null>;
  created_at: string;
  /** Updated at most once a minute (see touchApiKey), so a busy key does not write on every request. */
  last_used_at: Generated<string | null>;
  revoked_at: string | null;
  /** Comma-separated scopes the key has (keyScopes.ts); null: every scope. */
  scopes: Generated<string | null>;
}

/**
 * A key's spend policy in one currency and what it escrowed this UTC day and month (migration
 * 0031, src/domain/agents/keyPolicies.ts): limits and counters in one row, so one compare-and-set checks
 * and counts a spend. A null limit is no limit.
 */
export interface ApiKeySpendTable {
  key_id: string;
  currency: Currency;
  max_task_nano: bigint | null;
  daily_limit_nano: bigint | null;
  monthly_limit_nano: bigint | null;
  approval_above_nano: bigint | null;
  /** YYYY-MM-DD (UTC) of day_spent_nano; '' before the first spend. */
  day: Generated<string>;
  day_spent_nano: Generated<bigint>;
  /** YYYY-MM (UTC) of month_spent_nano; '' before the first spend. */
  month: Generated<string>;
  month_spent_nano: Generated<bigint>;
  updated_at: string;
}

/** An operator's freeze of an agent (migration 0032, src/domain/agents/agentFreeze.ts): every spend refused. */
export interface AgentFreezeTable {
  agent_id: string;
  reason: string | null;
  frozen_at: string;
}

/** An agent owner: a TON wallet that signed in to the console with a TON Connect proof. */
export interface OwnerTable {
  id: string;
  /** Canonical form (formatAddress). */
  wallet_address: string;
  created_at: string;
  last_sign_in_at: string;
}

/** A console sign-in payload we issued: random, single-use, short-lived. */
export interface OwnerChallengeTable {
  payload: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
  /** Who asked: an IPv4 address or an IPv6 /64 (clientGroup), for the per-client cap. */
  client: Generated<string>;
  /** SHA-256 of the sign-in cookie of the browser that asked: only it may present the proof. */
  browser_hash: Generated<string>;
}

/** A sandbox faucet top-up an owner took, counted against the owner's faucet allowance. */
export interface FaucetGrantTable {
  id: string;
  owner_id: string;
  agent_id: string;
  amount_nano: bigint;
  created_at: string;
}

/** A console session: the cookie holds the token, the table its SHA-256 (a leaked table signs no one in). */
export interface OwnerSessionTable {
  token_hash: string;
  owner_id: string;
  /** Sent back in X-CSRF-Token with every state-changing request of the session. */
  csrf_token: string;
  expires_at: string;
  created_at: string;
}

export interface WorkerTable {
  id: string;
  telegram_id: string;
  username: string | null;
  first_name: string;
  last_name: string | null;
  headline: string | null;
  bio: string | null;
  city: string | null;
  state: string | null;
  country: string | null;
  timezone: string | null;
  /** 'en', 'ru', ...: the bot's and the Mini App's language; null until the first sign-in sets it. */
  language: string | null;
  /** 1 once the worker picked the language; Telegram's language_code then no longer changes it. */
  language_chosen: number;
  skills_json: string;
  social_links_json: string;
  hourly_rate_nano: bigint | null;
  available: number;
  show_telegram: number;
  wallet_address: string | null;
  completed_tasks: Generated<number>;
  /** TON earned (nanotons); USDT earned is `usdt_earned_micro`. */
  total_earned_nano: Generated<bigint>;
  usdt_earned_micro: Generated<bigint>;
  rating_sum: Generated<number>;
  rating_count: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface WorkerSkillTable {
  worker_id: string;
  /** Lower-cased, for case-insensitive matching. */
  skill: string;
}

export interface TaskTable {
  id: string;
  agent_id: string;
  title: string;
  description: string;
  /** What reward, fee and total are in; every ledger row and transfer of the task has it too. */
  currency: Currency;
  reward_nano: bigint;
  fee_nano: bigint;
  total_nano: bigint;
  status: TaskStatus;
  payment_status: PaymentStatus;
  execution_deadline_days: number | null;
  deadline: string | null;
  execution_deadline: string | null;
  webhook_url: string | null;
  /** The offered or assigned worker; null while the task is open to applicants. */
  worker_id: string | null;
  created_at: string;
  updated_at: string;
  assigned_at: string | null;
  completed_at: string | null;
  cancelled_at: string | null;
  cancel_reason: string | null;
  /**
   * The task's dispute (at most one, ever), set when it opens and kept. While the task is neither
   * COMPLETED nor CANCELLED it means a dispute is open: only its resolution may move the task.
   */
  dispute_id: Generated<string | null>;
  /** The review window the agent chose at creation, 1-336 hours; null: none chosen, 72 applies. */
  review_hours: Generated<number | null>;
  /** When the waiting submission is accepted for the agent (auto-release); null until one is submitted. */
  review_deadline: Generated<string | null>;
  /** When the agent is reminded of the review (a quarter of the window left); null once written or moot. */
  review_reminder_at: Generated<string | null>;
  /** Revisions the agent asked for (at most 3). */
  revision_count: Generated<number>;
  /** Submissions made; refund and DELETE require 0 (checked in their compare-and-set). */
  submission_count: Generated<number>;
  /** Where the work is to be done, when the agent gave a place: all four null otherwise. */
  location_latitude: Generated<number | null>;
  location_longitude: Generated<number | null>;
  location_radius_meters: Generated<number | null>;
  location_label: Generated<string | null>;
  /**
   * The task's money outcome, written by the move that ends it and never again (migration 0028,
   * src/domain/money/settlement.ts): paid to the worker, fee taken, returned to the agent (adding up to
   * total_nano), who decided and when. All null while the task has not ended.
   */
  settlement_worker_nano: Generated<bigint | null>;
  settlement_fee_nano: Generated<bigint | null>;
  settlement_refunded_nano: Generated<bigint | null>;
  settled_by: Generated<SettledBy | null>;
  settled_at: Generated<string | null>;
  /** The API key that escrowed the task (its spend limits get a refund's room back); null: the owner, in the console. */
  api_key_id: Generated<string | null>;
  /**
   * A graded approval's offer (migration 0037): part of the reward the agent offered for the
   * waiting submission, its reason and when; set once, null when none was made.
   */
  partial_offer_nano: Generated<bigint | null>;
  partial_offer_reason: Generated<string | null>;
  partial_offered_at: Generated<string | null>;
  /** The batch this task was created in (POST /batches, migration 0035); null for a single task. */
  batch_id: Generated<string | null>;
  /**
   * Bonuses paid for this task after it ended (migration 0041, task_bonuses): how many, what the
   * worker got and the fees on them, in the task's currency. Raised only by the compare-and-set
   * that pays a bonus; never part of the settlement, which is the escrow's outcome.
   */
  bonus_count: Generated<number>;
  bonus_nano: Generated<bigint>;
  bonus_fee_nano: Generated<bigint>;
  /** Screening (migration 0033): null when no rule held the task; workers see only null or APPROVED. */
  moderation_status: Generated<ModerationStatus | null>;
  /** The rule (or classifier) that held the task. */
  moderation_rule: Generated<string | null>;
}

/** One bonus (POST /tasks/:id/bonus, migration 0041): paid once per agent and Idempotency-Key. */
export interface TaskBonusTable {
  id: string;
  task_id: string;
  agent_id: string;
  worker_id: string;
  currency: Currency;
  /** What the worker gets, in the currency's smallest unit. */
  amount_nano: bigint;
  /** The platform's fee on it (the same percentage as on rewards). */
  fee_nano: bigint;
  reason: string;
  idempotency_key: string;
  /** The BONUS ledger row (its chain transfer pays the worker) and the BONUS_FEE row, if any. */
  payout_txn_id: string;
  fee_txn_id: string | null;
  created_at: string;
}

/** One POST /batches (issue 40, docs/decisions/batches.md): its tasks name it in `tasks.batch_id`. */
export interface BatchTable {
  id: string;
  agent_id: string;
  currency: Currency;
  task_count: number;
  /** The sum of its tasks' totals (reward + fee), escrowed at creation. */
  total_nano: bigint;
  /** Tasks of this batch one worker may hold or have held; null: no limit. */
  max_per_worker: number | null;
  created_at: string;
  updated_at: string;
  /** Set once, when the batch's last open task ended (batch.completed). */
  completed_at: string | null;
}

export type ApprovalStatus = 'PENDING' | 'APPROVED' | 'DECLINED' | 'EXPIRED' | 'FAILED';

/** A task above its key's approvalAbove, waiting for the owner (migration 0039, docs/decisions/approvals.md). */
export interface ApprovalTable {
  id: string;
  agent_id: string;
  api_key_id: string;
  currency: Currency;
  /** The task's total (reward + fee), what approving it escrows. */
  amount_nano: bigint;
  /** The task body as posted (POST /tasks). */
  body_json: string;
  status: ApprovalStatus;
  /** The task approving it created. */
  task_id: string | null;
  /** FAILED: why the task could not be created when it was approved, and that refusal's HTTP status. */
  failure: string | null;
  failure_status: number | null;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  updated_at: string;
}

export type ModerationStatus = 'PENDING' | 'APPROVED' | 'REJECTED';

export type ModerationAction = 'refused' | 'held' | 'approved' | 'rejected' | 'frozen' | 'unfrozen';

/** Every screening outcome and operator decision, with who and why (migration 0033). */
export interface ModerationLogTable {
  id: string;
  agent_id: string;
  task_id: string | null;
  action: ModerationAction;
  rule: string | null;
  /** The operator who decided; null for the screen's own refusals and holds. */
  operator: string | null;
  note: string | null;
  created_at: string;
}

/** Who decided how a task's money went: its agent (or owner), an operator, or the review clock. */
export type SettledBy = 'agent' | 'operator' | 'auto';

export type SubmissionStatus = 'PENDING' | 'ACCEPTED' | 'REVISION_REQUESTED' | 'DISPUTED';

/** Work a worker handed in for review (issue 25): numbered per task, newest last. */
export interface SubmissionTable {
  id: string;
  task_id: string;
  worker_id: string;
  /** 1 for the first submission of the task, 2 after a revision, ... */
  number: number;
  note: string;
  /** JSON: [{fileUrl, name, contentType, size}], copied from the worker's own stored uploads. */
  attachments_json: string;
  latitude: number | null;
  longitude: number | null;
  accuracy_meters: number | null;
  /** 1/0 when both the task and the submission have a location; null otherwise. */
  within_area: number | null;
  /** PENDING (waits for review) -> ACCEPTED | REVISION_REQUESTED | DISPUTED. */
  status: SubmissionStatus;
  /** The agent's reason, when it asked for a revision. */
  revision_reason: string | null;
  /** When it stopped waiting (accepted, revision asked, disputed). */
  decided_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ApplicationTable {
  id: string;
  task_id: string;
  worker_id: string;
  status: ApplicationStatus;
  message: string;
  created_at: string;
  updated_at: string;
}

export interface ChatTable {
  id: string;
  task_id: string;
  agent_id: string;
  worker_id: string;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  /** The worker's read point: the position of the last message their chat screen showed. */
  worker_read_at: string | null;
  worker_read_message_id: string | null;
}

export interface TransactionTable {
  id: string;
  agent_id: string;
  task_id: string | null;
  /** TEST_FAUCET: test money credited to a test twin by POST /test/faucet (test mode, migration 0042). */
  type: 'DEPOSIT' | 'TASK_ESCROW' | 'PAYOUT' | 'REFUND' | 'FEE' | 'BONUS' | 'BONUS_FEE' | 'TEST_FAUCET';
  /** The task's currency for task rows; a DEPOSIT's is what arrived. */
  currency: Currency;
  amount_nano: bigint;
  from_address: string | null;
  to_address: string | null;
  tx_hash: string | null;
  /** confirmed, or pending while a PAYOUT/FEE transfer is not on chain yet. */
  status: 'confirmed' | 'pending';
  created_at: string;
  updated_at: string;
}

/** The intended on-chain transfer behind a PAYOUT or FEE ledger row, recorded before sending. */
export interface ChainTransferTable {
  txn_id: string;
  to_address: string;
  /**
   * TON goes out as a plain transfer from the hot wallet; USDT as a jetton transfer, which only
   * a jetton sender may send (the sandbox: src/domain/money/jettonTransfers.ts; networks: the chain
   * sender's batches), never the TON sender (transfers.ts).
   */
  currency: Currency;
  amount_nano: bigint;
  comment: string;
  /** failed: given up after MAX_TRANSFER_FAILURES (src/domain/money/failedTransfers.ts), still owed. */
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  /** Network mode: the Highload batch that carries this transfer now (null: not yet batched). */
  batch_id: Generated<string | null>;
  /** Network mode: the hot wallet's transaction that sent it (shared by a batch's transfers). */
  chain_tx_hash: Generated<string | null>;
  /**
   * Network mode, USDT: the lt (decimal) of the hot wallet's transaction that sent the jetton
   * transfer in a landed batch; the jetton wallets' transactions after it say whether it was paid
   * (src/domain/chain/jettonConfirmations.ts). Null while not sent in a landed batch.
   */
  sent_lt: Generated<string | null>;
}

/** Network mode: one signed Highload Wallet v3 external message carrying a batch of transfers. */
export interface ChainBatchTable {
  id: string;
  /** Never repeats; maps onto the wallet's query id and is written into the batch's body. */
  seq: number;
  query_id: number;
  /** The message's created_at and created_at + timeout, unix seconds of the chain. */
  chain_created_at: number;
  chain_expires_at: number;
  boc: string;
  message_hash: string;
  /**
   * pending (persisted; sent and sent again by the outbox runner) -> landed (the follower saw it)
   * | expired (past created_at + timeout, unprocessed: its transfers went back to be re-batched).
   */
  status: 'pending' | 'landed' | 'expired';
  transfer_count: number;
  total_nano: bigint;
  /** Outbox claim columns: attempts made (sends and expiry checks), when the next one is due. */
  attempts: number;
  next_attempt_at: string;
  /** The wallet transaction that performed the batch's transfers. */
  tx_hash: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface ChainStateTable {
  key: string;
  value: string;
  updated_at: string;
}

/** Work one instance at a time does (docs/decisions/one-chain-sender.md). */
export interface LeaseTable {
  /** `chain` (network mode's sender and follower) or `sandbox` (the whole sandbox instance). */
  name: string;
  /** The holder's instance id (INSTANCE_ID, or hostname:pid), for operators. */
  holder: string;
  host: string;
  pid: number;
  /** Random per process start: tells a live holder from an earlier process with the same pid. */
  run_id: string;
  /** The fencing token: raised by each new holder, never by a renewal. */
  token: number;
  acquired_at: string;
  renewed_at: string;
  expires_at: string;
}

/** A transaction the wallet follower has read on its walk back to its cursor, not yet processed. */
export interface ChainWalkTransactionTable {
  hash: string;
  /** Zero-padded to 20 digits: text order is chain order. */
  lt: string;
  boc: string;
}

export interface UnmatchedDepositTable {
  tx_hash: string;
  lt: string;
  from_address: string;
  amount_nano: bigint;
  memo: string;
  /**
   * unknown_memo: no comment, or one naming no agent; below_minimum; unreadable_memo: a text
   * comment that cannot be read (see src/chain/textComment.ts); not_credited: the follower
   * failed on this transaction MAX_TX_ATTEMPTS times (GET /admin/chain shows the error);
   * above_limit: USDT past the agent's USDT_MAX_AGENT_DEPOSITS; foreign_jetton: a jetton
   * notification not from the deposit address's own USDT wallet (never credited, never assigned).
   */
  reason:
    | 'unknown_memo'
    | 'below_minimum'
    | 'unreadable_memo'
    | 'not_credited'
    | 'above_limit'
    | 'foreign_jetton';
  /** The currency of `amount_nano` (migration 0023; a foreign_jetton row is the TON it brought). */
  currency: Generated<Currency>;
  /** Jetton rows: the jetton wallet that sent the notification (ours for USDT). */
  jetton_wallet: Generated<string | null>;
  /** foreign_jetton: the amount the notification claimed, in that jetton's own units. */
  jetton_amount: Generated<string | null>;
  status: 'open' | 'assigned' | 'returned';
  agent_id: string | null;
  resolved_at: string | null;
  created_at: string;
}

export interface RatingTable {
  id: string;
  task_id: string;
  rater_type: 'AGENT' | 'USER';
  rater_id: string;
  ratee_id: string;
  score: number;
  comment: string | null;
  created_at: string;
}

/** The outbox: every event is written in the transaction of the change that caused it. */
export interface EventTable {
  id: string;
  agent_id: string;
  task_id: string | null;
  type: string;
  data_json: string;
  created_at: string;
}

export interface MessageTable {
  id: string;
  chat_id: string;
  task_id: string;
  sender_type: 'USER' | 'AGENT';
  sender_id: string;
  content: string;
  file_url: string | null;
  file_name: string | null;
  file_size: number | null;
  mime_type: string | null;
  created_at: string;
}

/** One event to one endpoint: the dispatcher's queue and the agent's delivery log. */
export interface WebhookDeliveryTable {
  id: string;
  event_id: string;
  agent_id: string;
  url: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: string;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
  /** The endpoint (URL origin) the delivery goes to; null only on old settled rows. */
  origin: string | null;
  /** The lease of the attempt in flight; null when none is (the in-flight caps count these). */
  claimed_until: string | null;
}

/** The health of one agent's webhook endpoint (URL origin): time-outs in a row, quarantine. */
export interface WebhookEndpointTable {
  agent_id: string;
  origin: string;
  /** Attempts in a row that got no answer within the time-out; any answer resets it. */
  consecutive_timeouts: number;
  /** Quarantines in a row without an answer in between: sets the next one's length; 0 = healthy. */
  quarantines: number;
  /** Nothing is sent to the endpoint before this; null when not quarantined. */
  quarantined_until: string | null;
  last_error: string | null;
  updated_at: string;
}

export interface UploadTable {
  id: string;
  owner_type: 'AGENT' | 'USER';
  owner_id: string;
  file_name: string;
  mime_type: string;
  /** Null until the bytes are stored (a signed-URL upload not yet PUT). */
  size: number | null;
  /** Where the bytes are in FileStorage; null until stored. */
  storage_key: string | null;
  status: 'pending' | 'stored';
  /** When a signed upload URL stops working. */
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WalletChallengeTable {
  /** The TON Connect proof payload we issued: random, single-use, short-lived. */
  payload: string;
  worker_id: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export type NotificationKind =
  | 'offer'
  | 'application_accepted'
  | 'application_rejected'
  /** A batch's last place was taken: its waiting applicants are told it is full (issue 40). */
  | 'batch_full'
  | 'message'
  | 'payment_sent'
  | 'payment_failed'
  | 'task_expired'
  | 'offer_withdrawn'
  | 'task_cancelled'
  | 'dispute_opened'
  | 'dispute_resolved'
  | 'submission_received'
  | 'revision_requested'
  | 'review_reminder'
  | 'auto_released'
  | 'partial_offered'
  | 'bonus_paid';

/** A transfer that reached the deposit wallet but was not credited: for the operator to settle. */
export interface UncreditedDepositTable {
  tx_hash: string;
  agent_id: string;
  /** The currency of `amount_nano` (migration 0023). */
  currency: Generated<Currency>;
  amount_nano: bigint;
  from_address: string;
  to_address: string;
  reason: string;
  created_at: string;
}

/** A Telegram message to a worker, written with the change that causes it (the bot's outbox). */
export interface NotificationTable {
  id: string;
  worker_id: string;
  task_id: string | null;
  kind: NotificationKind;
  /** What the text is built from; for batched chat messages, the count grows while pending. */
  data_json: string;
  /** pending -> sent, or failed after the retries; `recorded` when no bot token is configured. */
  status: 'pending' | 'sent' | 'failed' | 'recorded';
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  sent_at: string | null;
  created_at: string;
  updated_at: string;
  /** The Telegram message it became (sendMessage's message_id), once sent. */
  telegram_message_id: string | null;
}

/** Telegram updates already handled, so a redelivered update_id is not handled again. */
export interface TelegramUpdateTable {
  update_id: string;
  received_at: string;
}

/** An Idempotency-Key of one caller: `running` while its first request is in flight, then `done`. */
export interface IdempotencyKeyTable {
  /** The caller: `agent:agt_...`, `worker:wrk_...` or `admin`. */
  scope: string;
  key: string;
  /** SHA-256 of the request (method, route, parameters, body); another request under the key is 422. */
  fingerprint: string;
  status: 'running' | 'done';
  /** Which attempt holds a running key; the effect's transaction completes the key only with it. */
  lock_token: string | null;
  /** A running key whose holder is past this (it crashed before its effect committed) may be taken over. */
  locked_until: string | null;
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}

export type DisputeParty = 'AGENT' | 'WORKER';

/** A disagreement over submitted work, judged by an operator (issue 25). One per task at most. */
export interface DisputeTable {
  id: string;
  task_id: string;
  agent_id: string;
  worker_id: string;
  /** The submission the dispute is about (it becomes DISPUTED); null when the task had none. */
  submission_id: string | null;
  opened_by: DisputeParty;
  reason: string;
  status: 'OPEN' | 'RESOLVED';
  /** The task's currency: what the split's amounts are in. */
  currency: Currency;
  /** The resolution's split, null while open: to the worker, to the platform, back to the agent. */
  worker_amount_nano: bigint | null;
  fee_amount_nano: bigint | null;
  agent_amount_nano: bigint | null;
  /** The operator's note to both sides. */
  note: string | null;
  resolved_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Evidence one side adds to an open dispute. */
export interface DisputeStatementTable {
  id: string;
  dispute_id: string;
  author: DisputeParty;
  /** The agent's or the worker's id. */
  author_id: string;
  text: string;
  /** [{fileUrl, name, contentType, size}] from the author's own stored uploads. */
  attachments_json: string;
  created_at: string;
}

export interface Database {
  agents: AgentTable;
  api_keys: ApiKeyTable;
  api_key_spend: ApiKeySpendTable;
  agent_freezes: AgentFreezeTable;
  workers: WorkerTable;
  worker_skills: WorkerSkillTable;
  tasks: TaskTable;
  batches: BatchTable;
  task_bonuses: TaskBonusTable;
  submissions: SubmissionTable;
  applications: ApplicationTable;
  chats: ChatTable;
  transactions: TransactionTable;
  chain_transfers: ChainTransferTable;
  chain_batches: ChainBatchTable;
  chain_state: ChainStateTable;
  leases: LeaseTable;
  chain_walk_transactions: ChainWalkTransactionTable;
  unmatched_deposits: UnmatchedDepositTable;
  ratings: RatingTable;
  events: EventTable;
  messages: MessageTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_endpoints: WebhookEndpointTable;
  uploads: UploadTable;
  wallet_challenges: WalletChallengeTable;
  notifications: NotificationTable;
  idempotency_keys: IdempotencyKeyTable;
  telegram_updates: TelegramUpdateTable;
  owners: OwnerTable;
  owner_challenges: OwnerChallengeTable;
  faucet_grants: FaucetGrantTable;
  owner_sessions: OwnerSessionTable;
  uncredited_deposits: UncreditedDepositTable;
  disputes: DisputeTable;
  dispute_statements: DisputeStatementTable;
  moderation_log: ModerationLogTable;
  approvals: ApprovalTable;
  task_reports: TaskReportTable;
  worker_blocks: WorkerBlockTable;
}

/** A worker's report of a task (migration 0040): one per task and worker. */
export interface TaskReportTable {
  id: string;
  task_id: string;
  worker_id: string;
  reason: string;
  note: string | null;
  created_at: string;
}

/** A worker blocked an agent (migration 0040): its tasks and offers no longer reach the worker. */
export interface WorkerBlockTable {
  worker_id: string;
  agent_id: string;
  created_at: string;
}

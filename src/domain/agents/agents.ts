import { formatAddress } from '../../chain/address.js';
import { countAgentTasks, findAgent, insertAgent, updateAgentProfile } from '../../db/repositories/agents.js';
import { findLiveKeyByHash, insertApiKey, touchApiKey } from '../../db/repositories/apiKeys.js';
import { balanceOf, creditDeposit, totalDeposited } from '../../db/repositories/balances.js';
import type { AgentRow, Executor, TransactionRow } from '../../db/repositories/executor.js';
import { findLedgerRowByHash, insertLedgerRow } from '../../db/repositories/ledger.js';
import { recordUncreditedDeposit } from '../../db/repositories/uncreditedDeposits.js';
import type { DomainContext } from '../context.js';
import { assertInvariant, conflict, DomainError, invalid, notFound } from '../errors.js';
import { recordEvent } from '../events/events.js';
import { checkWebhookTarget } from '../events/webhookUrl.js';
import { newId } from '../ids.js';
import {
  amountText,
  type Currency,
  formatAmount,
  parseAmountField,
  requestedCurrency,
} from '../money/currency.js';
import { NANO_PER_TON } from '../money/money.js';
import { clipText, isBlank, textLength } from '../text.js';
import { inTransaction, isUniqueViolation } from '../transaction.js';
import type { KeyIdentity } from './apiKeyCache.js';
import { encryptApiKey, generateApiKey, hashApiKey, keyHint, looksLikeApiKey } from './apiKeys.js';
import { insertTestTwin, isTestKey } from './testMode.js';

export const MAX_AGENT_NAME = 100;
/** One deposit through the operator API is at most a billion TON: a typo guard, not a policy. */
const MAX_DEPOSIT_NANO = 1_000_000_000n * NANO_PER_TON;
/**
 * An agent's deposits over its life stay within a billion TON, and all agents' together within
 * four billion (less than all the TON in existence, about 5.1 billion). Every balance, total and
 * sum the books keep (an agent's balance, locked and spent, a worker's earnings, the audit's sums)
 * is bounded by these, so none can pass the 64-bit integer both databases store (about 9.2
 * billion TON); past it SQLite silently turns the column into a float and PostgreSQL fails.
 */
export const MAX_AGENT_DEPOSITED_NANO = 1_000_000_000n * NANO_PER_TON;
export const MAX_PLATFORM_DEPOSITED_NANO = 4_000_000_000n * NANO_PER_TON;
/**
 * Smaller transfers cannot pay for their own processing on chain (below about 0.001 TON the
 * deposit wallet's transaction fails and the request ended in a 500); 0.01 TON is also the
 * smallest reward, so nothing smaller is useful to deposit.
 */
export const MIN_DEPOSIT_NANO = 10_000_000n;
const MICRO_PER_USDT = 1_000_000n;

/** A currency's deposit limits, in its smallest unit (USDT's from the config: UsdtSettings). */
export interface DepositLimits {
  min: bigint;
  /** One deposit through the operator API: a typo guard. */
  maxPerDeposit: bigint;
  maxAgentDeposited: bigint;
  /** All agents together: keeps every sum of the currency within 64 bits (as for TON above). */
  maxPlatformDeposited: bigint;
}

export function depositLimits(ctx: Pick<DomainContext, 'usdt'>, currency: Currency): DepositLimits {
  if (currency === 'TON') {
    return {
      min: MIN_DEPOSIT_NANO,
      maxPerDeposit: MAX_DEPOSIT_NANO,
      maxAgentDeposited: MAX_AGENT_DEPOSITED_NANO,
      maxPlatformDeposited: MAX_PLATFORM_DEPOSITED_NANO,
    };
  }
  // USDT supply is about 10^11 and 4 * 10^9 USDT is 4 * 10^15 micro-USDT: far inside 64 bits.
  return {
    min: ctx.usdt.minDepositMicro,
    maxPerDeposit: 1_000_000_000n * MICRO_PER_USDT,
    maxAgentDeposited: ctx.usdt.maxAgentDepositedMicro,
    maxPlatformDeposited: 4_000_000_000n * MICRO_PER_USDT,
  };
}

/**
 * Creates an agent and its first API key, with its test twin and the twin's first test key
 * (test mode: src/domain/agents/testMode.ts). The plaintext keys are returned here and never again.
 * `ownerId` is set when an owner creates the agent in the console (the operator API leaves it null).
 */
export async function createAgent(
  ctx: DomainContext,
  input: { name?: string | null; ownerId?: string | null; keyName?: string | null },
  within?: Executor,
) {
  const name = input.name == null ? null : checkName('name', input.name);
  const now = ctx.clock.now();
  const agentId = newId('agent', now.getTime());
  const apiKey = generateApiKey();
  const testApiKey = generateApiKey('test');
  const work = async (trx: Executor) => {
    await insertAgent(trx, { id: agentId, name, now: now.toISOString(), ownerId: input.ownerId ?? null });
    const twinId = await insertTestTwin(trx, { id: agentId, name }, now);
    for (const [holder, key] of [
      [agentId, apiKey],
      [twinId, testApiKey],
    ] as const) {
      await insertApiKey(trx, {
        id: newId('apiKey', now.getTime()),
        agentId: holder,
        hash: hashApiKey(key),
        ciphertext: encryptApiKey(key, ctx.secretKey),
        hint: keyHint(key),
        name: input.keyName ?? null,
        now: now.toISOString(),
      });
    }
    return (await findAgent(trx, agentId))!;
  };
  const agent = within ? await work(within) : await inTransaction(ctx.db, work);
  return { agent, apiKey, testApiKey };
}

/** A key's last use is recorded at most this often (one write a minute for a busy key, not per request). */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * The agent a key belongs to, or null for an unknown, revoked or malformed key. The look-up runs
 * on every request, so a revocation (revokeApiKey) takes effect on the key's next request.
 * A malformed key and a key in the cache of live keys are answered at once, without a promise
 * (nearly every request: the agent auth hook runs this on each); otherwise the database is asked.
 */
export function authenticateApiKey(
  ctx: DomainContext,
  key: string,
): KeyIdentity | null | Promise<KeyIdentity | null> {
  if (!looksLikeApiKey(key)) return null;
  const hash = hashApiKey(key);
  const now = ctx.clock.now();
  return ctx.apiKeys.keyOf(hash, now.getTime()) ?? lookUpApiKey(ctx, hash, now, isTestKey(key));
}

async function lookUpApiKey(
  ctx: DomainContext,
  hash: string,
  now: Date,
  isTest: boolean,
): Promise<KeyIdentity | null> {
  const row = await findLiveKeyByHash(ctx.db, hash);
  if (!row) return null;
  const identity: KeyIdentity = {
    agentId: row.agent_id,
    keyId: row.id,
    scopes: row.scopes,
    livemode: !isTest,
  };
  // Read from the database at most once per cache period, so last use is recorded as often.
  ctx.apiKeys.remember(hash, identity, now.getTime());
  const staleBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString();
  if (row.last_used_at === null || row.last_used_at < staleBefore) {
    await touchApiKey(ctx.db, row.id, now.toISOString(), staleBefore);
  }
  return identity;
}

export async function getAgent(
  ctx: DomainContext,
  agentId: string,
): Promise<{ agent: AgentRow; taskCount: number }> {
  const agent = await findAgent(ctx.db, agentId);
  if (!agent) throw notFound('Agent');
  return { agent, taskCount: await countAgentTasks(ctx.db, agentId) };
}

export async function updateAgent(
  ctx: DomainContext,
  agentId: string,
  input: { name?: string; webhookUrl?: string | null },
): Promise<AgentRow> {
  const patch: { name?: string; webhook_url?: string | null } = {};
  if (input.name !== undefined) patch.name = checkName('name', input.name);
  if (input.webhookUrl !== undefined) {
    patch.webhook_url =
      input.webhookUrl === null
        ? null
        : await checkWebhookTarget('webhookUrl', input.webhookUrl, ctx.webhooks);
  }
  const row = await updateAgentProfile(ctx.db, agentId, patch, ctx.clock.now().toISOString());
  if (!row) throw notFound('Agent');
  return row;
}

export function checkName(path: string, value: string): string {
  const name = value.trim();
  if (isBlank(name)) throw invalid(path, 'must not be blank');
  if (textLength(name) > MAX_AGENT_NAME) throw invalid(path, `must be at most ${MAX_AGENT_NAME} characters`);
  return name;
}

/**
 * Operator top-up. The sandbox faucet sends a real transfer to the deposit wallet with the
 * agent's memo; the agent is credited with what the chain shows arrived, once per chain
 * transaction (the ledger's unique tx_hash makes a replay a no-op).
 */
export async function depositFromChain(
  ctx: DomainContext,
  agentId: string,
  amount: string | number,
  currencyField?: string,
) {
  const currency = requestedCurrency(ctx.usdt, 'currency', currencyField);
  const amountNano = parseDepositAmount(ctx, amount, currency);
  const agent = await findAgent(ctx.db, agentId);
  if (!agent) throw notFound('Agent');
  if (ctx.chain.live) {
    throw conflict(
      `On ${ctx.chain.network}, agents deposit from their own wallets: see GET /agents/me/deposit (a transfer to the deposit address with the agent id as the comment)`,
    );
  }
  // Every limit is checked before anything is sent: a refused deposit moves nothing on chain.
  const refusal = await depositLimitRefusal(
    ctx,
    ctx.db,
    currency,
    balanceOf(agent, currency).deposited,
    amountNano,
  );
  if (refusal) throw invalid('amount', refusal);
  if (currency === 'USDT') return creditSandboxUsdt(ctx, agentId, amountNano);
  const deposit = await ctx.chain.sendTestDeposit(agentId, amountNano);
  assertInvariant(deposit.memo === agentId, 'the chain deposit carries the agent memo');
  return creditChainDeposit(ctx, agentId, deposit);
}

/**
 * The sandbox USDT faucet: an agent's wallet (the sandbox faucet, minted whenever it runs short)
 * sends `amountMicro` of "USDT (sandbox)" to the deposit address with the agent's memo as the
 * forward payload's comment, and the agent is credited with what the deposit address's
 * transaction shows, through the watcher's own recording function: the same once-per-chain-
 * transaction credit as a TON deposit.
 */
async function creditSandboxUsdt(ctx: DomainContext, agentId: string, amountMicro: bigint) {
  const jetton = ctx.chain.jetton;
  // USDT requests pass only while USDT is on, which is while the gateway has its jetton.
  assertInvariant(jetton, "USDT is on only with the chain gateway's jetton");
  const deposit = await jetton.sendTestDeposit(agentId, amountMicro);
  assertInvariant(
    deposit.memo === agentId && !deposit.foreign,
    'the USDT test deposit is our own jetton with the agent memo',
  );
  return creditChainDeposit(ctx, agentId, {
    currency: 'USDT',
    txHash: deposit.txHash,
    fromAddress: formatAddress(deposit.fromOwner ?? deposit.senderJettonWallet, ctx.chain.network),
    toAddress: ctx.chain.depositAddress,
    amountNano: deposit.amount,
  });
}

export async function creditChainDeposit(
  ctx: DomainContext,
  agentId: string,
  deposit: Deposit,
): Promise<TransactionRow> {
  assertInvariant(deposit.amountNano > 0n, 'a deposit is positive');
  try {
    return await creditOnce(ctx, agentId, deposit);
  } catch (error) {
    // A concurrent replay of the same chain transaction committed first: ours is a no-op.
    const existing = isUniqueViolation(error) ? await findLedgerRowByHash(ctx.db, deposit.txHash) : undefined;
    if (existing) return sameCredit(existing, agentId);
    // Already credited (to another agent): nothing is missing from the books.
    if (error instanceof CreditedElsewhere) throw error;
    throw await keepUncredited(ctx, agentId, deposit, error);
  }
}

/**
 * A transfer that reached the deposit address. `currency` is TON when not given (the watcher's
 * TON deposits); `amountNano` is in that currency's smallest unit; `txHash` is the deposit
 * address's transaction that received it (for USDT: the transfer notification's).
 */
type Deposit = {
  currency?: Currency;
  txHash: string;
  fromAddress: string;
  toAddress: string;
  amountNano: bigint;
};

/** Why this deposit would pass a limit of its currency, or null when it fits. */
async function depositLimitRefusal(
  ctx: Pick<DomainContext, 'usdt'>,
  db: DomainContext['db'],
  currency: Currency,
  agentDeposited: bigint,
  amount: bigint,
): Promise<string | null> {
  const limits = depositLimits(ctx, currency);
  if (agentDeposited + amount > limits.maxAgentDeposited) {
    const room = limits.maxAgentDeposited - agentDeposited;
    return `would take this agent's ${currency} deposits past ${amountText(currency, limits.maxAgentDeposited)}; at most ${amountText(currency, room > 0n ? room : 0n)} more can be deposited`;
  }
  const platform = await totalDeposited(db, currency);
  if (platform + amount > limits.maxPlatformDeposited) {
    return `would take the platform's ${currency} deposits past ${amountText(currency, limits.maxPlatformDeposited)}`;
  }
  return null;
}

class DepositLimitError extends Error {}

/**
 * The transfer is on chain but the books could not take it: it is recorded for the operator
 * (GET /admin/audit lists it) so chain and books never disagree silently. A limit reached in the
 * meantime is a 409 that says so; any other failure keeps its own error (a 500, logged).
 */
async function keepUncredited(ctx: DomainContext, agentId: string, deposit: Deposit, error: unknown) {
  const reason =
    error instanceof DepositLimitError || error instanceof DomainError
      ? error.message
      : `the credit failed: ${(error as Error)?.message ?? String(error)}`;
  try {
    await recordUncreditedDeposit(ctx.db, {
      tx_hash: deposit.txHash,
      agent_id: agentId,
      currency: deposit.currency ?? 'TON',
      amount_nano: deposit.amountNano,
      from_address: deposit.fromAddress,
      to_address: deposit.toAddress,
      reason: clipText(reason, 1000),
      created_at: ctx.clock.now().toISOString(),
    });
  } catch {
    return error;
  }
  if (!(error instanceof DepositLimitError)) return error;
  return new DomainError(
    'conflict',
    `The transfer ${deposit.txHash} reached the deposit wallet but was not credited: it ${reason}. It is recorded as an uncredited deposit (GET /admin/audit) for the operator to settle.`,
  );
}

function creditOnce(ctx: DomainContext, agentId: string, deposit: Deposit): Promise<TransactionRow> {
  return inTransaction(ctx.db, async (trx) => {
    const existing = await findLedgerRowByHash(trx, deposit.txHash);
    if (existing) return sameCredit(existing, agentId);
    return insertDepositCredit(ctx, trx, agentId, deposit);
  });
}

/**
 * A chain transfer is credited once, to one agent: a replay for the agent already credited
 * answers that credit; a replay for anyone else is refused, never answered with another agent's
 * row (which would look like success).
 */
export function sameCredit(existing: TransactionRow, agentId: string): TransactionRow {
  if (existing.type === 'DEPOSIT' && existing.agent_id === agentId) return existing;
  throw new CreditedElsewhere(
    `This chain transfer is already credited to agent ${existing.agent_id} (ledger row ${existing.id}, ${existing.type}), and a transfer is credited once: nothing was changed. Assigning it to ${existing.agent_id} closes the open deposit without a second credit.`,
    { agentId: existing.agent_id, transactionId: existing.id },
  );
}

/** The transfer is in the ledger for another agent: the books are right, this request is not. */
class CreditedElsewhere extends DomainError {
  constructor(message: string, extra: Record<string, unknown>) {
    super('conflict', message, extra);
  }
}

/**
 * Credits a chain transfer inside the caller's transaction (the operator's assignment, whose
 * record of the assignment must commit with the credit). A deposit limit reached is a 409 that
 * says so; the caller's transaction then changes nothing.
 */
export async function creditDepositIn(
  ctx: DomainContext,
  trx: Executor,
  agentId: string,
  deposit: Deposit,
): Promise<TransactionRow> {
  assertInvariant(deposit.amountNano > 0n, 'a deposit is positive');
  try {
    return await insertDepositCredit(ctx, trx, agentId, deposit);
  } catch (error) {
    if (error instanceof DepositLimitError)
      throw conflict(`This transfer cannot be credited to ${agentId}: it ${error.message}`);
    throw error;
  }
}

async function insertDepositCredit(
  ctx: DomainContext,
  trx: Executor,
  agentId: string,
  deposit: Deposit,
): Promise<TransactionRow> {
  const now = ctx.clock.now();
  const currency = deposit.currency ?? 'TON';
  const row: TransactionRow = {
    id: newId('transaction', now.getTime()),
    agent_id: agentId,
    task_id: null,
    type: 'DEPOSIT',
    currency,
    amount_nano: deposit.amountNano,
    from_address: deposit.fromAddress,
    to_address: deposit.toAddress,
    tx_hash: deposit.txHash,
    status: 'confirmed',
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  // The limits again, inside the transaction: another deposit may have come first.
  const before = await findAgent(trx, agentId);
  if (!before) throw notFound('Agent');
  const refusal = await depositLimitRefusal(
    ctx,
    trx,
    currency,
    balanceOf(before, currency).deposited,
    deposit.amountNano,
  );
  if (refusal) throw new DepositLimitError(refusal);
  await insertLedgerRow(trx, row);
  const { maxAgentDeposited } = depositLimits(ctx, currency);
  const agent = await creditDeposit(
    trx,
    agentId,
    currency,
    deposit.amountNano,
    maxAgentDeposited,
    now.toISOString(),
  );
  if (!agent)
    throw new DepositLimitError(
      `would take this agent's ${currency} deposits past ${amountText(currency, maxAgentDeposited)}`,
    );
  await recordEvent(trx, {
    agentId,
    taskId: null,
    type: 'deposit.received',
    data: {
      deposit: {
        amount: formatAmount(currency, deposit.amountNano),
        fromAddress: deposit.fromAddress,
        txHash: deposit.txHash,
        currency,
      },
    },
    now,
  });
  return row;
}

export function parseDepositAmount(
  ctx: Pick<DomainContext, 'usdt'>,
  amount: string | number,
  currency: Currency = 'TON',
): bigint {
  const units = parseAmountField('amount', currency, amount);
  const limits = depositLimits(ctx, currency);
  if (units <= 0n) throw invalid('amount', 'must be more than 0');
  if (units < limits.min) throw invalid('amount', `must be at least ${amountText(currency, limits.min)}`);
  if (units > limits.maxPerDeposit)
    throw invalid('amount', `must be at most ${amountText(currency, limits.maxPerDeposit)} per deposit`);
  return units;
}

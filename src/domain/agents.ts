import {
  countAgentTasks,
  creditDeposit,
  findAgent,
  insertAgent,
  updateAgentProfile,
} from '../db/repositories/agents.js';
import { findLiveKeyByHash, insertApiKey } from '../db/repositories/apiKeys.js';
import type { AgentRow, TransactionRow } from '../db/repositories/executor.js';
import { findLedgerRowByHash, insertLedgerRow } from '../db/repositories/ledger.js';
import { encryptApiKey, generateApiKey, hashApiKey, keyHint, looksLikeApiKey } from './apiKeys.js';
import type { DomainContext } from './context.js';
import { assertInvariant, invalid, notFound } from './errors.js';
import { newId } from './ids.js';
import { parseTon } from './money.js';
import { textLength } from './text.js';
import { inTransaction, isUniqueViolation } from './transaction.js';
import { checkWebhookTarget } from './webhookUrl.js';

export const MAX_AGENT_NAME = 100;
/** One deposit through the operator API is at most a billion TON: a typo guard, not a policy. */
const MAX_DEPOSIT_NANO = 1_000_000_000n * 1_000_000_000n;
/**
 * Smaller transfers cannot pay for their own processing on chain (below about 0.001 TON the
 * deposit wallet's transaction fails and the request ended in a 500); 0.01 TON is also the
 * smallest reward, so nothing smaller is useful to deposit.
 */
const MIN_DEPOSIT_NANO = 10_000_000n;

/** Creates an agent and its first API key. The plaintext key is returned here and never again. */
export async function createAgent(ctx: DomainContext, input: { name?: string | null }) {
  const name = input.name == null ? null : checkName('name', input.name);
  const now = ctx.clock.now();
  const agentId = newId('agent', now.getTime());
  const apiKey = generateApiKey();
  const agent = await inTransaction(ctx.db, async (trx) => {
    await insertAgent(trx, { id: agentId, name, now: now.toISOString() });
    await insertApiKey(trx, {
      id: newId('apiKey', now.getTime()),
      agentId,
      hash: hashApiKey(apiKey),
      ciphertext: encryptApiKey(apiKey, ctx.secretKey),
      hint: keyHint(apiKey),
      now: now.toISOString(),
    });
    return (await findAgent(trx, agentId))!;
  });
  return { agent, apiKey };
}

/** The agent a key belongs to, or null for an unknown, revoked or malformed key. */
export async function authenticateApiKey(ctx: DomainContext, key: string): Promise<string | null> {
  if (!looksLikeApiKey(key)) return null;
  const row = await findLiveKeyByHash(ctx.db, hashApiKey(key));
  return row?.agent_id ?? null;
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
  if (name.length === 0) throw invalid(path, 'must not be blank');
  if (textLength(name) > MAX_AGENT_NAME) throw invalid(path, `must be at most ${MAX_AGENT_NAME} characters`);
  return name;
}

/**
 * Operator top-up. The sandbox faucet sends a real transfer to the deposit wallet with the
 * agent's memo; the agent is credited with what the chain shows arrived, once per chain
 * transaction (the ledger's unique tx_hash makes a replay a no-op).
 */
export async function depositFromChain(ctx: DomainContext, agentId: string, amount: string | number) {
  const amountNano = parseDepositAmount(amount);
  if (!(await findAgent(ctx.db, agentId))) throw notFound('Agent');
  const deposit = await ctx.chain.sendTestDeposit(agentId, amountNano);
  assertInvariant(deposit.memo === agentId, 'the chain deposit carries the agent memo');
  return creditChainDeposit(ctx, agentId, deposit);
}

export async function creditChainDeposit(
  ctx: DomainContext,
  agentId: string,
  deposit: { txHash: string; fromAddress: string; toAddress: string; amountNano: bigint },
): Promise<TransactionRow> {
  assertInvariant(deposit.amountNano > 0n, 'a deposit is positive');
  try {
    return await creditOnce(ctx, agentId, deposit);
  } catch (error) {
    // A concurrent replay of the same chain transaction committed first: ours is a no-op.
    const existing = isUniqueViolation(error) ? await findLedgerRowByHash(ctx.db, deposit.txHash) : undefined;
    if (existing) return existing;
    throw error;
  }
}

function creditOnce(
  ctx: DomainContext,
  agentId: string,
  deposit: { txHash: string; fromAddress: string; toAddress: string; amountNano: bigint },
): Promise<TransactionRow> {
  return inTransaction(ctx.db, async (trx) => {
    const existing = await findLedgerRowByHash(trx, deposit.txHash);
    if (existing) return existing;
    const now = ctx.clock.now();
    const row: TransactionRow = {
      id: newId('transaction', now.getTime()),
      agent_id: agentId,
      task_id: null,
      type: 'DEPOSIT',
      amount_nano: deposit.amountNano,
      from_address: deposit.fromAddress,
      to_address: deposit.toAddress,
      tx_hash: deposit.txHash,
      status: 'confirmed',
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    await insertLedgerRow(trx, row);
    const agent = await creditDeposit(trx, agentId, deposit.amountNano, now.toISOString());
    if (!agent) throw notFound('Agent');
    return row;
  });
}

function parseDepositAmount(amount: string | number): bigint {
  let nano: bigint;
  try {
    nano = parseTon(amount);
  } catch (error) {
    throw invalid('amount', (error as Error).message);
  }
  if (nano <= 0n) throw invalid('amount', 'must be more than 0');
  if (nano < MIN_DEPOSIT_NANO) throw invalid('amount', 'must be at least 0.01 TON');
  if (nano > MAX_DEPOSIT_NANO) throw invalid('amount', 'must be at most 1000000000 TON per deposit');
  return nano;
}

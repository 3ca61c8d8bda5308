import { countOwnerAgents, findAgent, listOwnerAgents } from '../../db/repositories/agents.js';
import type { AgentRow } from '../../db/repositories/executor.js';
import { dailyLedgerTotals } from '../../db/repositories/ledger.js';
import { createAgent, depositFromChain, parseDepositAmount } from '../agents/agents.js';
import type { DomainContext } from '../context.js';
import { conflict, notFound } from '../errors.js';
import { isIdOf } from '../ids.js';
import { inTransaction } from '../transaction.js';
import { checkAgentCreation, takeFaucetGrant } from './ownerLimits.js';

/** Agents one owner may create (a typo or script guard; an operator can create more). */
export const MAX_AGENTS_PER_OWNER = 50;
/** Days the spending chart covers. */
export const SPENDING_DAYS = 30;

/**
 * The owner's agent, or 404: another owner's agent (or an operator's) answers exactly like an
 * agent that does not exist, so ids cannot be probed.
 */
export async function requireOwnedAgent(
  ctx: DomainContext,
  ownerId: string,
  agentId: string,
): Promise<AgentRow> {
  const agent = isIdOf('agent', agentId) ? await findAgent(ctx.db, agentId) : undefined;
  if (!agent || agent.owner_id !== ownerId) throw notFound('Agent');
  return agent;
}

export function listAgentsOfOwner(ctx: DomainContext, ownerId: string): Promise<AgentRow[]> {
  return listOwnerAgents(ctx.db, ownerId, MAX_AGENTS_PER_OWNER);
}

/** An agent owned by the owner, with its first key (named "default"); the plaintext is shown once. */
export function createOwnedAgent(ctx: DomainContext, ownerId: string, input: { name: string }) {
  return inTransaction(ctx.db, async (trx) => {
    await checkAgentCreation(trx, ownerId, ctx.clock.now());
    if ((await countOwnerAgents(trx, ownerId)) >= MAX_AGENTS_PER_OWNER) {
      throw conflict(`An owner can have at most ${MAX_AGENTS_PER_OWNER} agents`);
    }
    return createAgent(ctx, { name: input.name, ownerId, keyName: 'default' }, trx);
  });
}

/**
 * Sandbox only: a real faucet transfer to the deposit wallet with the agent's memo, credited
 * once. It comes out of the owner's faucet allowance (takeFaucetGrant), given back if it fails.
 */
export async function sandboxFaucet(
  ctx: DomainContext,
  ownerId: string,
  agentId: string,
  amount: string | number,
) {
  if (ctx.chain.network !== 'sandbox') {
    throw conflict(
      `The faucet exists in the sandbox only; on ${ctx.chain.network}, send TON to the deposit address with the memo`,
    );
  }
  const grant = await takeFaucetGrant(ctx, ownerId, agentId, parseDepositAmount(ctx, amount));
  try {
    return await depositFromChain(ctx, agentId, amount);
  } catch (error) {
    await grant.release();
    throw error;
  }
}

/** Deposits and spending (rewards and fees paid) per UTC day over the last SPENDING_DAYS days. */
export async function spendingSeries(ctx: DomainContext, agentId: string) {
  const now = ctx.clock.now();
  const since = new Date(now.getTime() - (SPENDING_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
  const rows = await dailyLedgerTotals(ctx.db, agentId, since);
  const days = new Map<string, { depositedNano: bigint; spentNano: bigint }>();
  for (let i = 0; i < SPENDING_DAYS; i++) {
    const day = new Date(now.getTime() - (SPENDING_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10);
    days.set(day, { depositedNano: 0n, spentNano: 0n });
  }
  for (const row of rows) {
    const entry = days.get(row.day);
    if (!entry) continue;
    if (row.type === 'DEPOSIT') entry.depositedNano += row.totalNano;
    if (row.type === 'PAYOUT' || row.type === 'FEE') entry.spentNano += row.totalNano;
  }
  return [...days].map(([day, v]) => ({ day, ...v }));
}

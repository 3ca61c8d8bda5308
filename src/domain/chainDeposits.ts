import { findAgent } from '../db/repositories/agents.js';
import {
  findUnmatchedDeposit,
  listUnmatchedDeposits,
  resolveUnmatchedDeposit,
} from '../db/repositories/unmatchedDeposits.js';
import { creditChainDeposit, MIN_DEPOSIT_NANO } from './agents.js';
import type { DomainContext } from './context.js';
import { conflict, notFound } from './errors.js';

/** Where and how an agent tops up: a transfer to the deposit address with its memo as the comment. */
export function depositInstructions(ctx: DomainContext, agentId: string) {
  const address = ctx.chain.depositAddress;
  return {
    network: ctx.chain.network,
    address,
    memo: agentId,
    link: `ton://transfer/${address}?text=${encodeURIComponent(agentId)}`,
    minimumNano: MIN_DEPOSIT_NANO,
  };
}

const MAX_UNMATCHED_PAGE = 200;

export function unmatchedDeposits(ctx: DomainContext, status: 'open' | 'assigned' | 'returned') {
  return listUnmatchedDeposits(ctx.db, status, MAX_UNMATCHED_PAGE);
}

/**
 * The operator credits a deposit nobody could be matched to. The ledger's unique chain hash makes
 * it impossible to credit the same transaction twice, whatever the order of calls.
 */
export async function assignUnmatchedDeposit(ctx: DomainContext, txHash: string, agentId: string) {
  const deposit = await findUnmatchedDeposit(ctx.db, txHash);
  if (!deposit) throw notFound('Unmatched deposit');
  if (deposit.status !== 'open')
    throw conflict(`This deposit is already ${deposit.status}`, { status: deposit.status });
  if (!(await findAgent(ctx.db, agentId))) throw notFound('Agent');
  const row = await creditChainDeposit(ctx, agentId, {
    txHash: deposit.tx_hash,
    fromAddress: deposit.from_address,
    toAddress: ctx.chain.depositAddress,
    amountNano: deposit.amount_nano,
  });
  await resolveUnmatchedDeposit(ctx.db, txHash, 'assigned', agentId, ctx.clock.now().toISOString());
  return row;
}

/**
 * The operator sent the deposit back to its sender from their own wallet tooling; this records
 * it so it leaves the open list (the service never pays from the hot wallet without a ledger row).
 */
export async function markUnmatchedReturned(ctx: DomainContext, txHash: string) {
  const deposit = await findUnmatchedDeposit(ctx.db, txHash);
  if (!deposit) throw notFound('Unmatched deposit');
  const row = await resolveUnmatchedDeposit(ctx.db, txHash, 'returned', null, ctx.clock.now().toISOString());
  if (!row) throw conflict(`This deposit is already ${deposit.status}`, { status: deposit.status });
  return row;
}

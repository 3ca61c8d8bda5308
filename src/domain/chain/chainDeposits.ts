import { findAgent } from '../../db/repositories/agents.js';
import { findLedgerRowByHash } from '../../db/repositories/ledger.js';
import {
  findUnmatchedDeposit,
  listUnmatchedDeposits,
  resolveUnmatchedDeposit,
} from '../../db/repositories/unmatchedDeposits.js';
import { creditDepositIn, depositLimits, MIN_DEPOSIT_NANO, sameCredit } from '../agents/agents.js';
import type { DomainContext } from '../context.js';
import { conflict, notFound } from '../errors.js';
import type { Currency } from '../money/currency.js';
import { inTransaction } from '../transaction.js';

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

/**
 * The same for a currency. USDT is a jetton transfer to the same deposit address (its owner: the
 * wallet app finds its own jetton wallet, and the chain layer the deposit address's) with the
 * same memo as the forward payload's text comment. The link follows the wallet apps' jetton
 * convention: `ton://transfer/<recipient>?jetton=<jetton master>&text=<comment>`, the recipient
 * being the owner address and the amount (left to the agent) in the jetton's smallest units.
 */
export function depositInstructionsIn(ctx: DomainContext, agentId: string, currency: Currency) {
  if (currency === 'TON') return depositInstructions(ctx, agentId);
  const master = ctx.usdt.master;
  if (!master) {
    throw conflict(
      'USDT deposits need the USDT jetton master, which this service does not know yet (TON_USDT_MASTER)',
    );
  }
  const address = ctx.chain.depositAddress;
  const query = `jetton=${encodeURIComponent(master)}&text=${encodeURIComponent(agentId)}`;
  return {
    network: ctx.chain.network,
    address,
    memo: agentId,
    link: `ton://transfer/${address}?${query}`,
    minimumNano: depositLimits(ctx, currency).min,
    currency,
    jettonMaster: master,
  };
}

const MAX_UNMATCHED_PAGE = 200;

export function unmatchedDeposits(ctx: DomainContext, status: 'open' | 'assigned' | 'returned') {
  return listUnmatchedDeposits(ctx.db, status, MAX_UNMATCHED_PAGE);
}

/**
 * The operator credits a deposit nobody could be matched to, in its currency. The assignment and its credit commit
 * in one transaction, after a compare-and-set from open, so two assignments at once credit once.
 * A transfer the ledger already holds is answered by what the ledger says: the same credit when
 * it is this agent's (a replay, which also closes a deposit left open), a 409 naming the agent
 * otherwise (the ledger's unique chain hash keeps it from being credited twice either way).
 */
export function assignUnmatchedDeposit(ctx: DomainContext, txHash: string, agentId: string) {
  return inTransaction(ctx.db, async (trx) => {
    if (!(await findAgent(trx, agentId))) throw notFound('Agent');
    const deposit = await findUnmatchedDeposit(trx, txHash);
    if (!deposit) throw notFound('Unmatched deposit');
    if (deposit.reason === 'foreign_jetton') {
      // Whatever memo it names, a look-alike's jettons are not USDT and a forger's claim moved
      // nothing: crediting it would create money. Its TON (if any) can be sent back by hand.
      throw conflict(
        'This is a jetton transfer notification that did not come from the deposit address’s own USDT jetton wallet (a look-alike jetton, or a notification forged by another contract): its jettons are not USDT, so it can never be credited. Mark it returned once you have dealt with the TON it brought.',
        { reason: deposit.reason, jettonWallet: deposit.jetton_wallet },
      );
    }
    const now = ctx.clock.now().toISOString();
    const credited = await findLedgerRowByHash(trx, txHash);
    if (!credited && deposit.status === 'open') {
      if (await resolveUnmatchedDeposit(trx, txHash, 'assigned', agentId, now)) {
        return creditDepositIn(ctx, trx, agentId, {
          currency: deposit.currency,
          txHash: deposit.tx_hash,
          fromAddress: deposit.from_address,
          toAddress: ctx.chain.depositAddress,
          amountNano: deposit.amount_nano,
        });
      }
    }
    // Resolved or credited already (perhaps by an assignment that committed a moment ago, which
    // a new statement sees on PostgreSQL): answer from what is stored now.
    const stored = (await findUnmatchedDeposit(trx, txHash))!;
    const row = await findLedgerRowByHash(trx, txHash);
    if (stored.status === 'returned')
      throw conflict('This deposit is recorded as returned to its sender, so it cannot be credited', {
        status: stored.status,
      });
    if (!row) {
      throw conflict(
        `This deposit is marked assigned to ${stored.agent_id} but no ledger row credits it; run GET /admin/audit and settle it by hand`,
        { status: stored.status, agentId: stored.agent_id },
      );
    }
    const same = sameCredit(row, agentId);
    if (stored.status === 'open') await resolveUnmatchedDeposit(trx, txHash, 'assigned', agentId, now);
    return same;
  });
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

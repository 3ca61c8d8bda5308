import { listAgentLedger } from '../../db/repositories/ledger.js';
import type { DomainContext } from '../context.js';
import { decodePosition, page, positionCursor } from '../cursor.js';

export const LEDGER_TYPES = [
  'DEPOSIT',
  'TASK_ESCROW',
  'PAYOUT',
  'REFUND',
  'FEE',
  'BONUS',
  'BONUS_FEE',
  'TEST_FAUCET',
] as const;
/** The ledger types whose rows leave the hot wallet on chain (a pending row has a transfer to send). */
export const CHAIN_OUT_TYPES = ['PAYOUT', 'FEE', 'BONUS', 'BONUS_FEE'] as const;
export type LedgerType = (typeof LEDGER_TYPES)[number];

export async function listTransactions(
  ctx: DomainContext,
  agentId: string,
  query: { type?: LedgerType; cursor?: string; limit: number },
) {
  const rows = await listAgentLedger(
    ctx.db,
    agentId,
    query.type,
    decodePosition(query.cursor),
    query.limit + 1,
  );
  return page(rows, query.limit, positionCursor);
}

import type { TonNetwork } from '../../chain/gateway.js';
import { listWorkerPayouts } from '../../db/repositories/ledger.js';
import type { DomainContext } from '../context.js';
import { decodePosition, page, positionCursor } from '../cursor.js';

/** GET /worker/payouts: the rewards paid (or being paid) to a worker's wallet, newest first. */
export async function listPayoutsOfWorker(
  ctx: DomainContext,
  workerId: string,
  query: { cursor?: string; limit: number },
) {
  const rows = await listWorkerPayouts(ctx.db, workerId, decodePosition(query.cursor), query.limit + 1);
  return page(rows, query.limit, positionCursor);
}

/** Where a transaction can be looked at; the sandbox runs in-process, so it has no explorer. */
export function explorerTxUrl(network: TonNetwork, txHash: string | null): string | null {
  if (!txHash) return null;
  const hash = encodeURIComponent(txHash);
  if (network === 'mainnet') return `https://tonviewer.com/transaction/${hash}`;
  if (network === 'testnet') return `https://testnet.tonviewer.com/transaction/${hash}`;
  return null;
}

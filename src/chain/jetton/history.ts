import type { Address, Transaction } from '@ton/core';
import type { ToncenterClient } from '../toncenterClient.js';

/**
 * An account's transactions as a provider serves them: newest first, a page starting at
 * (lt, hash) inclusive. The confirmation and deposit readers need nothing more, so the same code
 * runs over toncenter (network mode) and over the sandbox's own record of what it ran.
 */
export interface AccountHistory {
  page(address: Address, limit: number, from?: { lt: bigint; hash: string }): Promise<Transaction[]>;
}

export function toncenterHistory(client: ToncenterClient): AccountHistory {
  return {
    async page(address, limit, from) {
      return (await client.getTransactions(address, limit, from)).map((t) => t.tx);
    },
  };
}

/**
 * The sandbox's record: the transactions its sends produced, the newest `max` kept (the emulator
 * itself keeps no history across the gateway's saves, and the sandbox needs only recent ones).
 */
export class TransactionLog implements AccountHistory {
  private readonly txs: Transaction[] = [];

  constructor(private readonly max = 5_000) {}

  add(txs: readonly Transaction[]): void {
    this.txs.push(...txs);
    if (this.txs.length > this.max) this.txs.splice(0, this.txs.length - this.max);
  }

  async page(address: Address, limit: number, from?: { lt: bigint; hash: string }): Promise<Transaction[]> {
    const account = BigInt(`0x${address.hash.toString('hex')}`);
    const mine = this.txs.filter((tx) => tx.address === account).sort((a, b) => (a.lt > b.lt ? -1 : 1));
    const start = from ? mine.findIndex((tx) => tx.lt <= from.lt) : 0;
    return start < 0 ? [] : mine.slice(start, start + limit);
  }
}

/** Transactions per page when walking back, and the most pages one search reads. */
export const PAGE_SIZE = 20;
export const MAX_PAGES = 5;

/**
 * The newest transaction of `address` with lt above `sinceLt` that `match` accepts, walking back
 * page by page; null when it reached `sinceLt` without one; 'too-far' when it gave up after
 * MAX_PAGES (the caller treats that as not yet known, never as failed).
 */
export async function findSince(
  history: AccountHistory,
  address: Address,
  sinceLt: bigint,
  match: (tx: Transaction) => boolean,
): Promise<Transaction | null | 'too-far'> {
  let from: { lt: bigint; hash: string } | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const page = await history.page(address, PAGE_SIZE, from);
    // A page starting at `from` repeats it; skip what was already read.
    const fresh = from ? page.filter((tx) => tx.lt < from!.lt) : page;
    for (const tx of fresh) {
      if (tx.lt <= sinceLt) return null;
      if (match(tx)) return tx;
    }
    const last = page[page.length - 1];
    if (page.length < PAGE_SIZE || !last || fresh.length === 0) return null;
    from = { lt: last.lt, hash: last.hash().toString('hex') };
  }
  return 'too-far';
}

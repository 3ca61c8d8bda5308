import { Address } from '@ton/core';
import type { JettonGateway } from '../../chain/jetton/gateway.js';
import { readChainState, writeChainState } from '../../db/repositories/chainState.js';
import type { DomainContext } from '../context.js';

/**
 * The deposit address's own jetton wallet of the configured USDT master: the one sender whose
 * transfer notifications are USDT. The master's get_wallet_address answers it (the gateway caches
 * it per process); it is also kept in chain_state, because a (master, owner) pair never changes
 * wallet, and after the first answer the watcher then never needs the provider for it: a provider
 * failing while a USDT deposit waits would otherwise count as that deposit's failure, and three
 * in a row would leave it to the operator.
 */
const KEY = 'usdt_deposit_jetton_wallet';
const memo = new WeakMap<object, { master: string; owner: string; wallet: Address }>();

/** The USDT jetton in network mode when USDT is on; null when the TON rules alone apply. */
export function usdtJetton(ctx: DomainContext): JettonGateway | null {
  if (!ctx.usdt.enabled || !ctx.chain.live) return null;
  return ctx.chain.jetton ?? null;
}

export async function usdtDepositWallet(ctx: DomainContext, jetton: JettonGateway): Promise<Address> {
  const master = jetton.masterAddress;
  const owner = ctx.chain.depositAddress;
  const cached = memo.get(ctx.db);
  if (cached && cached.master === master && cached.owner === owner) return cached.wallet;
  const raw = await readChainState(ctx.db, KEY);
  const stored = raw ? (JSON.parse(raw) as { master: string; owner: string; wallet: string }) : null;
  let wallet: Address;
  if (stored && sameAddress(stored.master, master) && sameAddress(stored.owner, owner)) {
    wallet = Address.parse(stored.wallet);
  } else {
    wallet = Address.parse(await jetton.walletAddress(owner));
    const value = JSON.stringify({ master, owner, wallet: wallet.toRawString() });
    await writeChainState(ctx.db, KEY, value, ctx.clock.now().toISOString());
  }
  memo.set(ctx.db, { master, owner, wallet });
  return wallet;
}

function sameAddress(a: string, b: string): boolean {
  return Address.parse(a).equals(Address.parse(b));
}

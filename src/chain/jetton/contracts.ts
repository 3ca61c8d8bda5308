import { type Address, beginCell, type Cell, contractAddress, type StateInit } from '@ton/core';
import { JETTON_MINTER_CODE, JETTON_WALLET_CODE } from './code.js';

/** USDT has 6 decimals; the stablecoin master reports exactly this in its on-chain metadata. */
export const USDT_DECIMALS = 6;

/**
 * The master's initial state, as stablecoin-contract stores it:
 * total_supply:Coins admin_address:MsgAddress next_admin_address:MsgAddress
 * jetton_wallet_code:^Cell metadata_uri:^Cell (a snake string without the 0x00 prefix).
 */
export function jettonMasterInit(opts: { admin: Address; metadataUri: string }): StateInit {
  const data = beginCell()
    .storeCoins(0)
    .storeAddress(opts.admin)
    .storeAddress(null)
    .storeRef(JETTON_WALLET_CODE)
    .storeRef(beginCell().storeStringTail(opts.metadataUri).endCell())
    .endCell();
  return { code: JETTON_MINTER_CODE, data };
}

export function jettonMasterAddress(init: StateInit): Address {
  return contractAddress(0, init);
}

/**
 * A holder's jetton wallet computed as the master does it (stablecoin-contract's jetton-utils.fc,
 * calculate_user_jetton_wallet_address): the basechain address of the state init (wallet code,
 * data status=0 balance=0 owner master). `walletCode` must be the cell the master stores: the
 * plain code in our sandbox, a library cell naming it on mainnet USDT (JETTON_WALLET_LIBRARY).
 */
export function computeJettonWalletAddress(
  owner: Address,
  master: Address,
  walletCode: Cell = JETTON_WALLET_CODE,
) {
  const data = beginCell().storeUint(0, 4).storeCoins(0).storeAddress(owner).storeAddress(master).endCell();
  return contractAddress(0, { code: walletCode, data });
}

/**
 * The wallet code as mainnet USDT's master stores it: an exotic library cell (type 2) holding the
 * hash of JETTON_WALLET_CODE, which the network resolves from the masterchain's libraries. The
 * state init, and so every wallet address, hashes this cell, not the code it names.
 */
export const JETTON_WALLET_LIBRARY: Cell = beginCell()
  .storeUint(2, 8)
  .storeBuffer(JETTON_WALLET_CODE.hash())
  .endCell({ exotic: true });

/**
 * A local stand-in for the master's get_wallet_address, or null when none is exact. It is built
 * from one answer the master already gave (`known`: an owner and its jetton wallet, e.g. the deposit
 * address's, which the watcher needs anyway): the wallet code the stablecoin master stores is
 * either the plain code or its library cell, and the one whose address matches that answer is
 * the master's. A different jetton (another code or data layout) matches neither: null, and the
 * caller must ask the master.
 */
export function jettonWalletDeriver(
  master: Address,
  known: { owner: Address; wallet: Address },
): ((owner: Address) => Address) | null {
  for (const code of [JETTON_WALLET_CODE, JETTON_WALLET_LIBRARY]) {
    if (computeJettonWalletAddress(known.owner, master, code).equals(known.wallet))
      return (owner) => computeJettonWalletAddress(owner, master, code);
  }
  return null;
}

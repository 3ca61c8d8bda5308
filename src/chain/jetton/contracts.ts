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
 * A holder's jetton wallet computed as the master does it (jetton-utils.fc): the address of the
 * state init (wallet code, data status=0 balance=0 owner master). This holds where the wallet code
 * is the plain cell (our sandbox); mainnet USDT's master keeps its wallet code as a library cell,
 * so on the networks the address comes from the master's get_wallet_address instead.
 */
export function computeJettonWalletAddress(
  owner: Address,
  master: Address,
  walletCode: Cell = JETTON_WALLET_CODE,
) {
  const data = beginCell().storeUint(0, 4).storeCoins(0).storeAddress(owner).storeAddress(master).endCell();
  return contractAddress(0, { code: walletCode, data });
}

import type { Address, Transaction } from '@ton/core';
import type { Blockchain, SandboxContract, TreasuryContract } from '@ton/sandbox';
import { jettonMasterAddress, jettonMasterInit } from './contracts.js';
import { jettonMintBody, jettonTopUpBody, readInternalTransfer } from './messages.js';

/**
 * Deploying and minting a jetton in the emulator: the sandbox's "USDT (sandbox)", and in tests a
 * look-alike. The admin is an emulator treasury (derived from its seed name, so the same account
 * again after a restart), the sandbox's counterpart of the issuer's wallet.
 */
export const USDT_ADMIN_SEED = 'handoff-usdt-admin';
export const USDT_METADATA_URI =
  'data:application/json,{"name":"USDT (sandbox)","symbol":"USDT","decimals":"6","description":"Handoff sandbox test token"}';
/** The master keeps 1 TON for storage on every mint (raw_reserve in jetton-minter.fc); 10 is plenty. */
const MASTER_FUNDING_NANO = 10_000_000_000n;
/** TON the master passes to the recipient's jetton wallet on a mint, and what the admin attaches. */
const MINT_WALLET_TON_NANO = 50_000_000n;
const MINT_ATTACHED_NANO = 100_000_000n;

export interface DeployedMaster {
  address: Address;
  /** False when the master was already on chain (a restart): nothing was sent. */
  deployed: boolean;
  transactions: Transaction[];
}

/** Deploys the master unless it is already active. Idempotent: its address is that of its state init. */
export async function deployJettonMaster(
  blockchain: Blockchain,
  admin: SandboxContract<TreasuryContract>,
  metadataUri: string,
): Promise<DeployedMaster> {
  const init = jettonMasterInit({ admin: admin.address, metadataUri });
  const address = jettonMasterAddress(init);
  const existing = await blockchain.getContract(address);
  if (existing.accountState?.type === 'active') return { address, deployed: false, transactions: [] };
  const result = await admin.send({ to: address, value: MASTER_FUNDING_NANO, init, body: jettonTopUpBody() });
  const account = await blockchain.getContract(address);
  if (account.accountState?.type !== 'active') throw new Error('sandbox: deploying the jetton master failed');
  return { address, deployed: true, transactions: result.transactions };
}

/**
 * The admin mints `amount` to `to` (its jetton wallet is deployed on the way); throws unless the
 * recipient's jetton wallet took it. With `comment`, the owner is notified as by a transfer.
 */
export async function mintJettons(
  admin: SandboxContract<TreasuryContract>,
  master: Address,
  to: Address,
  amount: bigint,
  comment?: string,
): Promise<Transaction[]> {
  const body = jettonMintBody({
    to,
    amount,
    tonNano: MINT_WALLET_TON_NANO,
    responseDestination: admin.address,
    forwardTonNano: comment === undefined ? 0n : 1n,
    comment,
  });
  const result = await admin.send({ to: master, value: MINT_ATTACHED_NANO, body });
  const credited = result.transactions.some((tx) => {
    const info = tx.inMessage?.info;
    const d = tx.description;
    return (
      info?.type === 'internal' &&
      info.src.equals(master) &&
      readInternalTransfer(tx.inMessage!.body)?.amount === amount &&
      d.type === 'generic' &&
      !d.aborted &&
      d.computePhase.type === 'vm' &&
      d.computePhase.success
    );
  });
  if (!credited) throw new Error('sandbox: the mint did not reach the jetton wallet');
  return result.transactions;
}

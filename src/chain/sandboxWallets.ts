import { type Address, toNano } from '@ton/core';
import type { Blockchain, SandboxContract, TreasuryContract } from '@ton/sandbox';
import type { WalletKeyPairs } from './sandboxState.js';
import { findTransaction } from './sandboxTx.js';
import { WalletContractV4 } from './walletContracts.js';

/**
 * The sandbox's wallets: real V4 wallet contracts for the platform, and a sandbox treasury as
 * the faucet that plays the agents' wallets. Treasuries are derived from their seed name, so the
 * faucet is the same account again after a restart from a snapshot.
 */
const FAUCET_SEED = 'handoff-faucet';
/** Enough that the faucet never runs dry in practice; it is topped up if it ever does. */
const FAUCET_BALANCE_NANO = toNano(1_000_000_000);
const HOT_WALLET_FUNDING_NANO = toNano(1_000_000);
const DEPOSIT_WALLET_FUNDING_NANO = toNano(1);
/** Headroom above a faucet send for its own fees. */
const FAUCET_FEE_RESERVE_NANO = toNano(10);

export interface SandboxWallets {
  faucet: SandboxContract<TreasuryContract>;
  hot: SandboxContract<WalletContractV4>;
  hotSecretKey: Buffer;
  deposit: SandboxContract<WalletContractV4>;
  /** Fees only ever arrive at this wallet, so only its address is needed. */
  fee: Address;
}

export async function openWallets(
  blockchain: Blockchain,
  { hot: hotKeys, deposit: depositKeys, fee: feeKeys }: WalletKeyPairs,
): Promise<SandboxWallets> {
  const v4 = (publicKey: Buffer) => WalletContractV4.create({ workchain: 0, publicKey });
  return {
    faucet: await blockchain.treasury(FAUCET_SEED, { balance: FAUCET_BALANCE_NANO }),
    hot: blockchain.openContract(v4(hotKeys.publicKey)),
    hotSecretKey: hotKeys.secretKey,
    deposit: blockchain.openContract(v4(depositKeys.publicKey)),
    fee: v4(feeKeys.publicKey).address,
  };
}

/** First start: the faucet funds and deploys the hot and deposit wallets. */
export async function deployWallets(wallets: SandboxWallets): Promise<void> {
  await fundAndDeploy(wallets.faucet, wallets.hot, HOT_WALLET_FUNDING_NANO);
  await fundAndDeploy(wallets.faucet, wallets.deposit, DEPOSIT_WALLET_FUNDING_NANO);
}

async function fundAndDeploy(
  faucet: SandboxContract<TreasuryContract>,
  wallet: SandboxContract<WalletContractV4>,
  amountNano: bigint,
): Promise<void> {
  const result = await faucet.send({
    to: wallet.address,
    value: amountNano,
    init: wallet.init,
    bounce: false,
  });
  const tx = findTransaction(result.transactions, wallet.address, 'internal');
  if (tx?.endStatus !== 'active') {
    throw new Error(`sandbox: deploying wallet ${wallet.address.toRawString()} failed`);
  }
}

/**
 * Tops the faucet up (a sandbox-only balance edit) when it could not cover `amountNano`, so test
 * deposits keep working however long a sandbox lives.
 */
export async function ensureFaucetCovers(
  blockchain: Blockchain,
  faucet: SandboxContract<TreasuryContract>,
  amountNano: bigint,
): Promise<void> {
  const account = await blockchain.getContract(faucet.address);
  const neededNano = amountNano + FAUCET_FEE_RESERVE_NANO;
  if (account.balance < neededNano) account.balance = neededNano + FAUCET_BALANCE_NANO;
}

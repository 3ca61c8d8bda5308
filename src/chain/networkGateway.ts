import { Address } from '@ton/core';
import { mnemonicToPrivateKey, mnemonicValidate } from '@ton/crypto';
import { formatAddress } from './address.js';
import type { ChainDeposit, ChainGateway, TonNetwork, TransferResult } from './gateway.js';
import { HighloadWallet } from './highloadWallet.js';
import { NetworkJettonGateway } from './jetton/networkJetton.js';
import { type LiveChain, walkRequestsPerRound } from './liveChain.js';
import { RequestBudget } from './requestBudget.js';
import { ToncenterClient } from './toncenterClient.js';

export interface NetworkGatewayOptions {
  network: Exclude<TonNetwork, 'sandbox'>;
  apiUrl: string;
  apiKey?: string;
  /** 24 words: the platform's hot (payout) wallet, which is also the deposit address. */
  mnemonic: string[];
  feeAddress: string;
  /** The USDT jetton master (TEP-74); unset: USDT is not enabled (`jetton` is absent). */
  usdtMaster?: string;
  requestsPerSecond: number;
  /** Seconds a Highload query id is remembered; part of the wallet address, so keep it fixed. */
  walletTimeoutSec: number;
  pollMs: number;
  resendMs?: number;
  createdAtLagSec?: number;
  requestTimeoutMs?: number;
  nowSeconds?: () => number;
  log?: (msg: string) => void;
}

/**
 * The chain gateway for testnet and mainnet: a toncenter-v2 provider and the Highload Wallet v3.
 * Payouts do not go through `transfer` here: they are batched, persisted and confirmed by the
 * network loops (see `live`), so a crash or a provider error can never pay twice.
 */
export async function createNetworkGateway(opts: NetworkGatewayOptions): Promise<ChainGateway> {
  if (!(await mnemonicValidate(opts.mnemonic))) {
    throw new Error(
      'TON_WALLET_MNEMONIC is not a valid TON mnemonic: give the 24 words of the hot wallet, separated by spaces',
    );
  }
  const keys = await mnemonicToPrivateKey(opts.mnemonic);
  const wallet = new HighloadWallet({
    publicKey: keys.publicKey,
    secretKey: keys.secretKey,
    timeoutSec: opts.walletTimeoutSec,
  });
  const budget = new RequestBudget(opts.requestsPerSecond);
  const client = new ToncenterClient({
    baseUrl: opts.apiUrl,
    apiKey: opts.apiKey,
    budget,
    timeoutMs: opts.requestTimeoutMs,
  });
  const live: LiveChain = {
    client,
    wallet,
    feeAddress: Address.parse(opts.feeAddress),
    nowSeconds: opts.nowSeconds ?? (() => Math.floor(Date.now() / 1000)),
    createdAtLagSec: opts.createdAtLagSec ?? 20,
    pollMs: opts.pollMs,
    resendMs: opts.resendMs ?? Math.max(opts.pollMs * 3, 1_000),
    walkRequestsPerRound: walkRequestsPerRound(opts.requestsPerSecond, opts.pollMs),
  };
  const jetton = opts.usdtMaster
    ? new NetworkJettonGateway({
        network: opts.network,
        client,
        master: Address.parse(opts.usdtMaster),
        hotWallet: wallet.address,
      })
    : undefined;
  const gateway = new NetworkGateway(opts.network, live, jetton);
  opts.log?.(
    `TON ${opts.network} through ${opts.apiUrl}; Highload v3 hot wallet ${gateway.hotWalletAddress}`,
  );
  return gateway;
}

class NetworkGateway implements ChainGateway {
  readonly hotWalletAddress: string;
  readonly depositAddress: string;
  readonly feeAddress: string;

  constructor(
    readonly network: Exclude<TonNetwork, 'sandbox'>,
    readonly live: LiveChain,
    readonly jetton?: NetworkJettonGateway,
  ) {
    this.hotWalletAddress = formatAddress(live.wallet.address, network);
    // Deposits go straight to the hot wallet: they fund payouts without a sweep.
    this.depositAddress = this.hotWalletAddress;
    this.feeAddress = formatAddress(live.feeAddress, network);
  }

  async transfer(): Promise<TransferResult> {
    throw new Error('on testnet/mainnet transfers are sent in batches by the chain sender loop');
  }

  async findTransfer(): Promise<TransferResult | null> {
    return null;
  }

  async getBalance(address: string): Promise<bigint> {
    return (await this.live.client.getAccount(Address.parse(address))).balanceNano;
  }

  async sendTestDeposit(): Promise<ChainDeposit> {
    throw new Error(
      `on ${this.network} deposits arrive from the agents' own wallets: send TON to the deposit address with the agent's memo`,
    );
  }

  async close(): Promise<void> {}
}

import type { Address } from '@ton/core';
import { formatAddress } from '../address.js';
import type { TonNetwork } from '../gateway.js';
import { parseAddress } from '../requestChecks.js';
import type { ToncenterClient } from '../toncenterClient.js';
import { confirmJettonTransfer, type JettonTransferOutcome } from './confirm.js';
import { type JettonDeposit, listJettonDeposits } from './deposits.js';
import type { JettonData, JettonGateway, JettonTransferResult } from './gateway.js';
import { readJettonData, readWalletAddress, readWalletBalance, walletAddressArgs } from './getMethods.js';
import { toncenterHistory } from './history.js';
import { jettonQueryId } from './payout.js';

/** Owners whose jetton wallet is remembered; few are ever asked (the hot wallet, owners' own). */
const WALLET_CACHE_SIZE = 256;

export interface NetworkJettonOptions {
  network: Exclude<TonNetwork, 'sandbox'>;
  client: ToncenterClient;
  master: Address;
  /** The Highload hot wallet: pays jetton payouts and is the deposit address. */
  hotWallet: Address;
  symbol?: string;
  decimals?: number;
}

/**
 * The jetton on testnet/mainnet, through the toncenter-v2 provider: get methods on the master and
 * the jetton wallets, and their transactions. Payouts are not sent here but in the chain sender's
 * Highload batches (jettonPayoutMessage); this side confirms them and reads deposits.
 */
export class NetworkJettonGateway implements JettonGateway {
  readonly symbol: string;
  readonly decimals: number;
  readonly masterAddress: string;
  private readonly wallets = new Map<string, Promise<Address>>();
  private readonly history;

  constructor(private readonly opts: NetworkJettonOptions) {
    this.symbol = opts.symbol ?? 'USDT';
    this.decimals = opts.decimals ?? 6;
    this.masterAddress = formatAddress(opts.master, opts.network);
    this.history = toncenterHistory(opts.client);
  }

  async walletAddress(owner: string): Promise<string> {
    return formatAddress(await this.walletOf(parseAddress(owner, 'owner')), this.opts.network);
  }

  /**
   * get_wallet_address on the master, cached per owner: a (master, owner) pair always maps to the
   * same jetton wallet. A failed lookup is not cached. The cache keeps the most recently used
   * WALLET_CACHE_SIZE owners (the hot wallet is asked every round, so it stays).
   */
  walletOf(owner: Address): Promise<Address> {
    const key = owner.toRawString();
    let found = this.wallets.get(key);
    if (found !== undefined) {
      this.wallets.delete(key);
      this.wallets.set(key, found);
    } else {
      const oldest = this.wallets.size >= WALLET_CACHE_SIZE ? this.wallets.keys().next().value : undefined;
      if (oldest !== undefined) this.wallets.delete(oldest);
      found = this.opts.client
        .runGetMethodStack(this.opts.master, 'get_wallet_address', walletAddressArgs(owner))
        .then(readWalletAddress);
      found.catch(() => this.wallets.delete(key));
      this.wallets.set(key, found);
    }
    return found;
  }

  async balance(owner: string): Promise<bigint> {
    const wallet = await this.walletOf(parseAddress(owner, 'owner'));
    const account = await this.opts.client.getAccount(wallet);
    if (account.state !== 'active') return 0n;
    return readWalletBalance(await this.opts.client.runGetMethodStack(wallet, 'get_wallet_data', []));
  }

  async jettonData(): Promise<JettonData> {
    return readJettonData(await this.opts.client.runGetMethodStack(this.opts.master, 'get_jetton_data', []));
  }

  async listDeposits(
    opts: { limit?: number; from?: { lt: bigint; hash: string } } = {},
  ): Promise<JettonDeposit[]> {
    const own = await this.walletOf(this.opts.hotWallet);
    return listJettonDeposits(this.history, this.opts.hotWallet, own, opts);
  }

  async confirmTransfer(ref: { transferId: string; sentLt: bigint }): Promise<JettonTransferOutcome> {
    return confirmJettonTransfer(this.history, {
      owner: this.opts.hotWallet,
      ownerJettonWallet: await this.walletOf(this.opts.hotWallet),
      queryId: jettonQueryId(ref.transferId),
      sentLt: ref.sentLt,
    });
  }

  async transfer(): Promise<JettonTransferResult> {
    throw new Error('on testnet/mainnet jetton payouts are sent in batches by the chain sender loop');
  }

  async findTransfer(): Promise<JettonTransferResult | null> {
    return null;
  }

  async mint(): Promise<void> {
    throw new Error(`on ${this.opts.network} only the jetton's admin mints`);
  }

  async sendTestDeposit(): Promise<JettonDeposit> {
    throw new Error(
      `on ${this.opts.network} deposits arrive from the agents' own wallets: send ${this.symbol} to the deposit address with the agent's memo`,
    );
  }
}

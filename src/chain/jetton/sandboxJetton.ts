import { type Address, internal, SendMode } from '@ton/core';
import type { Blockchain, SandboxContract, TreasuryContract } from '@ton/sandbox';
import { formatAddress } from '../address.js';
import { assertComment, assertPositiveAmount, assertTransferId, parseAddress } from '../requestChecks.js';
import { findTransaction, sendFailure } from '../sandboxTx.js';
import type { SandboxWallets } from '../sandboxWallets.js';
import { confirmJettonTransfer, type JettonTransferOutcome } from './confirm.js';
import { USDT_DECIMALS } from './contracts.js';
import { type JettonDeposit, listJettonDeposits, readJettonDeposit } from './deposits.js';
import type { JettonData, JettonGateway, JettonTransferRequest, JettonTransferResult } from './gateway.js';
import { readJettonData, readWalletAddress, readWalletBalance, walletAddressArgs } from './getMethods.js';
import type { TransactionLog } from './history.js';
import { jettonTransferBody } from './messages.js';
import { JETTON_FORWARD_TON_NANO, JETTON_TRANSFER_TON_NANO, jettonQueryId } from './payout.js';
import { deployJettonMaster, mintJettons, USDT_ADMIN_SEED, USDT_METADATA_URI } from './sandboxMaster.js';

const NETWORK = 'sandbox';
/** The hot wallet's USDT on a new sandbox: a million, as its million TON. */
export const HOT_WALLET_USDT = 1_000_000n * 10n ** BigInt(USDT_DECIMALS);
/** What the faucet (the agents' wallets) is minted whenever it runs short. */
const FAUCET_USDT = 1_000_000_000n * 10n ** BigInt(USDT_DECIMALS);
/** TON an agent's wallet attaches to a deposit (the TON it does not use comes back). */
const DEPOSIT_ATTACHED_NANO = 100_000_000n;
const MESSAGE_VALIDITY_SEC = 60;

/** What the sandbox gateway lends its jetton side: the chain, its wallets, and its lock. */
export interface SandboxJettonHost {
  blockchain: Blockchain;
  wallets: SandboxWallets;
  log: TransactionLog;
  /** Runs `task` alone (the gateway's lock). */
  read<T>(task: () => Promise<T>): Promise<T>;
  /** Runs `task` alone, and saves the chain (and the transfer record) after it, even when it throws. */
  write<T>(task: (nowSec: number) => Promise<T>): Promise<T>;
}

/**
 * Deploys "USDT (sandbox)" on a chain that does not have it yet (a new sandbox, or one saved before
 * the jetton existed) and gives the hot wallet its first USDT. On a restart the master is already
 * there and this is one account lookup.
 */
export async function ensureSandboxUsdt(
  blockchain: Blockchain,
  wallets: SandboxWallets,
  log: TransactionLog,
): Promise<{ admin: SandboxContract<TreasuryContract>; master: Address; deployed: boolean }> {
  const admin = await blockchain.treasury(USDT_ADMIN_SEED);
  const master = await deployJettonMaster(blockchain, admin, USDT_METADATA_URI);
  log.add(master.transactions);
  if (master.deployed)
    log.add(await mintJettons(admin, master.address, wallets.hot.address, HOT_WALLET_USDT));
  return { admin, master: master.address, deployed: master.deployed };
}

export class SandboxJettonGateway implements JettonGateway {
  readonly symbol = 'USDT';
  readonly decimals = USDT_DECIMALS;
  readonly masterAddress: string;
  private readonly walletCache = new Map<string, Address>();

  constructor(
    private readonly host: SandboxJettonHost,
    private readonly admin: SandboxContract<TreasuryContract>,
    private readonly master: Address,
    /** Jetton payouts made, by transfer id; persisted with the chain (sandboxState.ts). */
    readonly transfers: Map<string, JettonTransferResult>,
  ) {
    this.masterAddress = formatAddress(master, NETWORK);
  }

  async walletAddress(owner: string): Promise<string> {
    const parsed = parseAddress(owner, 'owner');
    return formatAddress(await this.host.read(() => this.walletOf(parsed)), NETWORK);
  }

  async balance(owner: string): Promise<bigint> {
    const parsed = parseAddress(owner, 'owner');
    return this.host.read(() => this.balanceOf(parsed));
  }

  jettonData(): Promise<JettonData> {
    return this.host.read(async () =>
      readJettonData((await this.host.blockchain.runGetMethod(this.master, 'get_jetton_data')).stack),
    );
  }

  listDeposits(opts: { limit?: number; from?: { lt: bigint; hash: string } } = {}): Promise<JettonDeposit[]> {
    return this.host.read(async () => {
      const deposit = this.host.wallets.deposit.address;
      return listJettonDeposits(this.host.log, deposit, await this.walletOf(deposit), opts);
    });
  }

  confirmTransfer(ref: { transferId: string; sentLt: bigint }): Promise<JettonTransferOutcome> {
    return this.host.read(() => this.confirm(ref.transferId, ref.sentLt));
  }

  async transfer(req: JettonTransferRequest): Promise<JettonTransferResult> {
    assertTransferId(req.transferId);
    const to = parseAddress(req.toAddress, 'toAddress');
    assertPositiveAmount(req.amount);
    assertComment(req.comment, 'comment');
    return this.host.write(async (nowSec) => {
      const existing = this.transfers.get(req.transferId);
      if (existing) return existing;
      const { hot, hotSecretKey } = this.host.wallets;
      // The sandbox's operator keeps its hot wallet in USDT, as it does in TON: agents' deposits
      // land on the deposit address, so payouts past the first million would otherwise fail forever.
      const held = await this.balanceOf(hot.address);
      if (held < req.amount) {
        this.host.log.add(
          await mintJettons(this.admin, this.master, hot.address, req.amount - held + HOT_WALLET_USDT),
        );
      }
      const hotJettonWallet = await this.walletOf(hot.address);
      const body = jettonTransferBody({
        queryId: jettonQueryId(req.transferId),
        amount: req.amount,
        destination: to,
        responseDestination: hot.address,
        forwardTonNano: JETTON_FORWARD_TON_NANO,
        comment: req.comment,
      });
      const result = await hot.sendTransfer({
        seqno: await hot.getSeqno(),
        secretKey: hotSecretKey,
        sendMode: SendMode.PAY_GAS_SEPARATELY | SendMode.IGNORE_ERRORS,
        timeout: nowSec + MESSAGE_VALIDITY_SEC,
        messages: [internal({ to: hotJettonWallet, value: JETTON_TRANSFER_TON_NANO, bounce: true, body })],
      });
      this.host.log.add(result.transactions);
      const tx = findTransaction(result.transactions, hot.address, 'external-in');
      const failure = tx ? sendFailure(tx) : 'the hot wallet recorded no transaction';
      if (!tx || failure) throw new Error(`jetton transfer ${req.transferId} was not sent: ${failure}`);
      // The emulator ran the whole chain of messages, so the outcome is final here.
      const outcome = await this.confirm(req.transferId, tx.lt);
      if (outcome.status !== 'succeeded') {
        throw new Error(`jetton transfer ${req.transferId} did not arrive: ${outcome.reason}`);
      }
      const made: JettonTransferResult = {
        txHash: tx.hash().toString('hex'),
        recipientTxHash: outcome.recipientTxHash,
        fromAddress: formatAddress(hot.address, NETWORK),
        toAddress: formatAddress(to, NETWORK),
        amount: outcome.amount,
      };
      this.transfers.set(req.transferId, made);
      return made;
    });
  }

  findTransfer(transferId: string): Promise<JettonTransferResult | null> {
    return this.host.read(async () => this.transfers.get(transferId) ?? null);
  }

  async mint(owner: string, amount: bigint): Promise<void> {
    const to = parseAddress(owner, 'owner');
    assertPositiveAmount(amount);
    await this.host.write(async () => {
      this.host.log.add(await mintJettons(this.admin, this.master, to, amount));
    });
  }

  async sendTestDeposit(memo: string, amount: bigint): Promise<JettonDeposit> {
    assertComment(memo, 'memo');
    assertPositiveAmount(amount);
    return this.host.write(async () => {
      const { faucet, deposit } = this.host.wallets;
      if ((await this.balanceOf(faucet.address)) < amount) {
        this.host.log.add(await mintJettons(this.admin, this.master, faucet.address, amount + FAUCET_USDT));
      }
      const body = jettonTransferBody({
        queryId: BigInt(this.host.blockchain.now ?? 0),
        amount,
        destination: deposit.address,
        responseDestination: faucet.address,
        forwardTonNano: JETTON_FORWARD_TON_NANO,
        comment: memo,
      });
      const faucetJettonWallet = await this.walletOf(faucet.address);
      const result = await faucet.send({
        to: faucetJettonWallet,
        value: DEPOSIT_ATTACHED_NANO,
        bounce: true,
        body,
      });
      this.host.log.add(result.transactions);
      const depositJettonWallet = await this.walletOf(deposit.address);
      const tx = findTransaction(result.transactions, deposit.address, 'internal');
      const received = tx && readJettonDeposit(tx, depositJettonWallet);
      if (!received) throw new Error('test deposit failed: the deposit address was not notified');
      return received;
    });
  }

  /** get_wallet_address on the master, cached (a (master, owner) pair never changes wallet). */
  private async walletOf(owner: Address): Promise<Address> {
    const key = owner.toRawString();
    const cached = this.walletCache.get(key);
    if (cached) return cached;
    const result = await this.host.blockchain.runGetMethod(
      this.master,
      'get_wallet_address',
      walletAddressArgs(owner),
    );
    const wallet = readWalletAddress(result.stack);
    this.walletCache.set(key, wallet);
    return wallet;
  }

  private async balanceOf(owner: Address): Promise<bigint> {
    const wallet = await this.walletOf(owner);
    const account = await this.host.blockchain.getContract(wallet);
    if (account.accountState?.type !== 'active') return 0n;
    return readWalletBalance((await this.host.blockchain.runGetMethod(wallet, 'get_wallet_data')).stack);
  }

  private async confirm(transferId: string, sentLt: bigint): Promise<JettonTransferOutcome> {
    const hot = this.host.wallets.hot.address;
    return confirmJettonTransfer(this.host.log, {
      owner: hot,
      ownerJettonWallet: await this.walletOf(hot),
      queryId: jettonQueryId(transferId),
      sentLt,
    });
  }
}

import { internal, SendMode, comment as textComment } from '@ton/core';
import { Blockchain, snapshotFromSerializable, snapshotToSerializable } from '@ton/sandbox';
import { formatAddress } from './address.js';
import type { ChainDeposit, ChainGateway, TransferRequest, TransferResult } from './gateway.js';
import type { JettonTransferResult } from './jetton/gateway.js';
import { TransactionLog } from './jetton/history.js';
import { ensureSandboxUsdt, SandboxJettonGateway, type SandboxJettonHost } from './jetton/sandboxJetton.js';
import { Mutex } from './mutex.js';
import { assertComment, assertPositiveAmount, assertTransferId, parseAddress } from './requestChecks.js';
import {
  ensureStateDir,
  loadOrCreateMnemonics,
  loadOrDeriveKeyPairs,
  loadState,
  saveState,
} from './sandboxState.js';
import { findTransaction, readReceivedTransfer, sendFailure } from './sandboxTx.js';
import { deployWallets, ensureFaucetCovers, openWallets, type SandboxWallets } from './sandboxWallets.js';

const NETWORK = 'sandbox';
/** How long a signed wallet message stays valid, as real wallets set it. */
const MESSAGE_VALIDITY_SEC = 60;
/** The emulator keeps every transaction in memory; past this many we drop the history (we never read it). */
const MAX_KEPT_TRANSACTIONS = 1000;

export interface SandboxGatewayOptions {
  stateDir: string;
  log?: (msg: string) => void;
  /**
   * The chain's clock in unix seconds (default: the system clock). Tests pin it because the chain
   * charges accounts a storage fee per elapsed second, which makes balances drift by a nanoton.
   * The chain never lets it run backwards: it keeps the latest time it has seen.
   */
  nowSeconds?: () => number;
}

/**
 * The in-process TON emulator behind the ChainGateway interface, with its state (wallet keys,
 * chain snapshot, sent transfers) kept in `stateDir` so a restart continues the same chain.
 */
export async function createSandboxGateway(opts: SandboxGatewayOptions): Promise<ChainGateway> {
  await ensureStateDir(opts.stateDir);
  const mnemonics = await loadOrCreateMnemonics(opts.stateDir);
  const saved = await loadState(opts.stateDir);
  const blockchain = await Blockchain.create();
  if (saved) await blockchain.loadFrom(snapshotFromSerializable(saved.snapshot));
  const nowSeconds = opts.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  blockchain.now = Math.max(nowSeconds(), blockchain.now ?? 0);
  const wallets = await openWallets(blockchain, await loadOrDeriveKeyPairs(opts.stateDir, mnemonics));
  if (!saved) await deployWallets(wallets);
  // A chain saved before the jetton existed gets it now; after that this is one account lookup.
  const log = new TransactionLog();
  const usdt = await ensureSandboxUsdt(blockchain, wallets, log);
  const transfers = new Map(Object.entries(saved?.transfers ?? {}));
  const jettonTransfers = new Map(Object.entries(saved?.jettonTransfers ?? {}));
  const gateway = new SandboxGateway(blockchain, wallets, opts.stateDir, transfers, nowSeconds, (host) => {
    return new SandboxJettonGateway({ ...host, log }, usdt.admin, usdt.master, jettonTransfers);
  });
  await gateway.saveNow(); // a first start is durable before anything is reported from it
  const how = saved ? 'loaded from' : 'created in';
  opts.log?.(
    `sandbox chain ${how} ${opts.stateDir}; hot wallet ${gateway.hotWalletAddress}; USDT (sandbox) master ${gateway.jetton.masterAddress}`,
  );
  return gateway;
}

class SandboxGateway implements ChainGateway {
  readonly network = NETWORK;
  readonly hotWalletAddress: string;
  readonly depositAddress: string;
  readonly feeAddress: string;
  readonly jetton: SandboxJettonGateway;
  private readonly mutex = new Mutex();
  private closed = false;
  /** Set while in-memory state is ahead of the saved file; nothing is reported until it is saved. */
  private dirty = false;

  constructor(
    private readonly blockchain: Blockchain,
    private readonly wallets: SandboxWallets,
    private readonly stateDir: string,
    private readonly transfers: Map<string, TransferResult>,
    private readonly nowSeconds: () => number,
    makeJetton: (host: Omit<SandboxJettonHost, 'log'>) => SandboxJettonGateway,
  ) {
    this.hotWalletAddress = formatAddress(wallets.hot.address, NETWORK);
    this.depositAddress = formatAddress(wallets.deposit.address, NETWORK);
    this.feeAddress = formatAddress(wallets.fee, NETWORK);
    this.jetton = makeJetton({
      blockchain,
      wallets,
      read: (task) => this.exclusive(() => task()),
      write: (task) =>
        this.exclusive(async (nowSec) => {
          this.dirty = true;
          try {
            return await task(nowSec);
          } finally {
            await this.save();
          }
        }),
    });
  }

  async transfer(req: TransferRequest): Promise<TransferResult> {
    assertTransferId(req.transferId);
    const to = parseAddress(req.toAddress, 'toAddress');
    assertPositiveAmount(req.amountNano);
    assertComment(req.comment, 'comment');
    return this.exclusive(async (nowSec) => {
      const existing = this.transfers.get(req.transferId);
      if (existing) return existing;
      const { hot, hotSecretKey } = this.wallets;
      this.dirty = true;
      const result = await hot.sendTransfer({
        seqno: await hot.getSeqno(),
        secretKey: hotSecretKey,
        // IGNORE_ERRORS is what real wallets use: a failed send still bumps the seqno, so the
        // signed message cannot be replayed. sendFailure() catches the message that was skipped.
        sendMode: SendMode.PAY_GAS_SEPARATELY | SendMode.IGNORE_ERRORS,
        timeout: nowSec + MESSAGE_VALIDITY_SEC,
        messages: [internal({ to, value: req.amountNano, bounce: false, body: req.comment })],
      });
      const tx = findTransaction(result.transactions, hot.address, 'external-in');
      const failure = tx ? sendFailure(tx) : 'the hot wallet recorded no transaction';
      if (!tx || failure) {
        await this.save(); // the failed attempt still paid fees; keep the file in step with the chain
        throw new Error(`transfer ${req.transferId} was not sent: ${failure}`);
      }
      const txHash = tx.hash().toString('hex');
      const sent = { txHash, fromAddress: this.hotWalletAddress, toAddress: formatAddress(to, NETWORK) };
      this.transfers.set(req.transferId, sent);
      await this.save();
      return sent;
    });
  }

  findTransfer(transferId: string): Promise<TransferResult | null> {
    return this.exclusive(async () => this.transfers.get(transferId) ?? null);
  }

  async getBalance(address: string): Promise<bigint> {
    const parsed = parseAddress(address, 'address');
    return this.exclusive(async () => (await this.blockchain.getContract(parsed)).balance);
  }

  async sendTestDeposit(memo: string, amountNano: bigint): Promise<ChainDeposit> {
    assertComment(memo, 'memo');
    assertPositiveAmount(amountNano);
    return this.exclusive(async () => {
      const { faucet, deposit } = this.wallets;
      this.dirty = true;
      await ensureFaucetCovers(this.blockchain, faucet, amountNano);
      const body = textComment(memo);
      const result = await faucet.send({ to: deposit.address, value: amountNano, bounce: false, body });
      await this.save();
      const tx = findTransaction(result.transactions, deposit.address, 'internal');
      const received = tx && readReceivedTransfer(tx);
      if (!received) throw new Error('test deposit failed: the deposit wallet did not receive it');
      return {
        txHash: received.txHash,
        fromAddress: formatAddress(received.from, NETWORK),
        toAddress: formatAddress(received.to, NETWORK),
        amountNano: received.amountNano,
        memo: received.comment,
      };
    });
  }

  async close(): Promise<void> {
    await this.mutex.run(async () => {
      if (this.closed) return;
      await this.save();
      this.closed = true;
    });
  }

  saveNow(): Promise<void> {
    return this.exclusive(() => this.save());
  }

  /** Runs `task` alone, on a clock that never runs backwards, after saving anything a failed save left. */
  private exclusive<T>(task: (nowSec: number) => Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      if (this.closed) throw new Error('the sandbox chain gateway is closed');
      if (this.dirty) await this.save();
      const nowSec = Math.max(this.nowSeconds(), this.blockchain.now ?? 0);
      this.blockchain.now = nowSec;
      return task(nowSec);
    });
  }

  private async save(): Promise<void> {
    const snapshot = this.blockchain.snapshot();
    const historyLength = snapshot.transactions.length;
    // Empty accounts (left by balance reads of unknown addresses) and the transaction history
    // are not state worth keeping; dropping them keeps the file small.
    snapshot.contracts = snapshot.contracts.filter((c) => c.account.account != null);
    snapshot.transactions = [];
    const transfers = Object.fromEntries(this.transfers);
    const jettonTransfers: Record<string, JettonTransferResult> = Object.fromEntries(this.jetton.transfers);
    await saveState(this.stateDir, {
      snapshot: snapshotToSerializable(snapshot),
      transfers,
      jettonTransfers,
    });
    this.dirty = false;
    if (historyLength > MAX_KEPT_TRANSACTIONS) await this.blockchain.loadFrom(snapshot);
  }
}

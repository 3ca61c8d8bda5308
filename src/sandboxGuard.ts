import type { Kysely } from 'kysely';
import { DelegatingGateway } from './chain/delegatingGateway.js';
import type { ChainGateway, TransferRequest, TransferResult } from './chain/gateway.js';
import type { JettonGateway, JettonTransferRequest } from './chain/jetton/gateway.js';
import type { DataDirLock } from './dataDirLock.js';
import type { LeaseRow } from './db/repositories/leases.js';
import type { Database } from './db/schema.js';
import { type Holder, Lease, type LeaseSettings, SANDBOX_LEASE_NAME } from './domain/chain/lease.js';
import type { Clock } from './domain/clock.js';

/**
 * The sandbox is one process by nature (its chain is an emulator in that process, saved in
 * DATA_DIR): a running sandbox instance holds the `sandbox` lease in its database and the lock
 * file in its DATA_DIR, renewing both, so a second instance on either refuses to start and says
 * why. Should the lease be lost while running (the process was paused for longer than the
 * lease and another instance started), this one sends no more transfers (they stay pending)
 * and says so in its log.
 */
export interface SandboxGuard {
  /**
   * Whether the database still shows this instance's lease (and it was never lost). Not judged
   * by the clock: tests move their clock by days, and a sandbox that truly lost its lease finds
   * another holder's token in the row.
   */
  holds(): Promise<boolean>;
  /** Where problems are reported once the app's logger exists (stderr until then). */
  logTo(log: (message: string) => void): void;
  /** Stops renewing, gives the lease up and removes the lock file. */
  stop(): Promise<void>;
}

export async function holdSandbox(opts: {
  db: Kysely<Database>;
  lock: DataDirLock;
  clock: Clock;
  me: Holder;
  settings: LeaseSettings;
}): Promise<SandboxGuard> {
  const lease = new Lease(opts.db, opts.clock, SANDBOX_LEASE_NAME, opts.me, opts.settings);
  const first = await lease.tick();
  if (!first.held) throw new Error(refusal(first.other, opts.clock.now().getTime(), opts.settings));
  let log = (message: string) => console.error(message);
  let reported = false;
  const renew = async () => {
    try {
      const [ticked, touched] = await Promise.all([lease.tick(), opts.lock.touch()]);
      if ((ticked.held && touched) || reported) return;
      reported = true;
      log(
        `this sandbox instance lost its ${ticked.held ? 'DATA_DIR lock file' : 'database lease'} to another instance (it was paused or cut off for longer than LEASE_TTL_MS): it sends no more transfers; stop one of the two instances`,
      );
    } catch (error) {
      log(`renewing the sandbox lease failed: ${(error as Error).message}`);
    }
  };
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(renew);
  }, lease.renewEveryMs);
  timer.unref();
  return {
    holds: async () => !reported && (await lease.confirm()),
    logTo(fn) {
      log = fn;
    },
    async stop() {
      clearInterval(timer);
      await running;
      await lease.release();
      await opts.lock.release();
    },
  };
}

function refusal(other: LeaseRow | null, nowMs: number, settings: LeaseSettings): string {
  if (!other) return 'another sandbox instance holds this database';
  const renewedSec = Math.max(0, Math.round((nowMs - Date.parse(other.renewed_at)) / 1000));
  const freeInSec = Math.max(0, Math.ceil((Date.parse(other.expires_at) + settings.skewMs - nowMs) / 1000));
  return `another sandbox instance, ${other.holder} (pid ${other.pid} on ${other.host}), is running on this database (its lease was renewed ${renewedSec} s ago): the sandbox's chain lives in that one process, so a second instance would run a chain of its own and pay transfers twice. Stop it, or give this instance its own database (DATABASE_URL) and DATA_DIR; several instances need TON_NETWORK=testnet or mainnet. If it crashed on another host, its lease ends in ${freeInSec} s.`;
}

/**
 * The sandbox gateway, refusing transfers while this instance does not hold its lease: a
 * refused transfer stays pending, as after any failed send, and is sent by the instance that
 * does hold it.
 */
export class GuardedSandbox extends DelegatingGateway {
  constructor(
    inner: ChainGateway,
    private readonly guard: Pick<SandboxGuard, 'holds'>,
  ) {
    super(inner);
  }

  override async transfer(req: TransferRequest): Promise<TransferResult> {
    if (!(await this.guard.holds())) {
      throw new Error('this sandbox instance does not hold its lease: transfer not sent');
    }
    return this.inner.transfer(req);
  }
  override async sendTestDeposit(memo: string, amountNano: bigint) {
    if (!(await this.guard.holds())) {
      throw new Error('this sandbox instance does not hold its lease: deposit not sent');
    }
    return this.inner.sendTestDeposit(memo, amountNano);
  }

  private guardedJetton: JettonGateway | undefined;

  /** The jetton side, refusing its sends (payouts, mints, test deposits) in the same way. */
  override get jetton(): JettonGateway | undefined {
    const inner = this.inner.jetton;
    if (!inner) return undefined;
    this.guardedJetton ??= guardJetton(inner, this.guard);
    return this.guardedJetton;
  }
}

function guardJetton(inner: JettonGateway, guard: Pick<SandboxGuard, 'holds'>): JettonGateway {
  const held = async (what: string) => {
    if (!(await guard.holds()))
      throw new Error(`this sandbox instance does not hold its lease: ${what} not sent`);
  };
  return {
    symbol: inner.symbol,
    decimals: inner.decimals,
    masterAddress: inner.masterAddress,
    walletAddress: (owner) => inner.walletAddress(owner),
    balance: (owner) => inner.balance(owner),
    jettonData: () => inner.jettonData(),
    listDeposits: (opts) => inner.listDeposits(opts),
    confirmTransfer: (ref) => inner.confirmTransfer(ref),
    findTransfer: (transferId) => inner.findTransfer(transferId),
    async transfer(req: JettonTransferRequest) {
      await held('jetton transfer');
      return inner.transfer(req);
    },
    async mint(owner, amount) {
      await held('mint');
      return inner.mint(owner, amount);
    },
    async sendTestDeposit(memo, amount) {
      await held('deposit');
      return inner.sendTestDeposit(memo, amount);
    },
  };
}

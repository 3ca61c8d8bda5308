import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Kysely } from 'kysely';
import type { Executor } from '../../db/repositories/executor.js';
import {
  holdsLease,
  insertLease,
  type LeaseRow,
  readLease,
  releaseLease,
  renewLease,
  takeLease,
} from '../../db/repositories/leases.js';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../clock.js';

/**
 * A lease row held by one instance at a time (docs/decisions/one-chain-sender.md).
 *
 * - The holder renews it every `ttlMs / 3`, writing `expires_at = now + ttlMs` from its own clock.
 * - The holder counts itself the holder only until `renewal start + ttlMs - skewMs` (its clock):
 *   a holder that cannot renew (paused, cut off from the database) stops before the lease ends.
 * - Another instance takes it over only once `expires_at + skewMs` has passed by its clock, or
 *   at once when the holder released it or is a dead process on the same machine. With clocks
 *   apart by less than `skewMs`, the old holder has stopped before the new one starts.
 * - Each new holder raises `token` (the fencing token). Writes that must come from the holder
 *   check it inside their transaction (`fence`), so a holder that resumes after a pause, still
 *   believing it holds the lease, writes nothing once another instance took over.
 */
/** The network mode's chain sender and wallet follower. */
export const CHAIN_LEASE = 'chain';
/** A running sandbox instance (src/sandboxGuard.ts): the whole sandbox is one process's. */
export const SANDBOX_LEASE_NAME = 'sandbox';

export interface LeaseSettings {
  ttlMs: number;
  skewMs: number;
}

/** Who this process is: the instance id operators see, and what tells a dead holder from a live one. */
export interface Holder {
  instanceId: string;
  host: string;
  pid: number;
  /** Random per process start: a restarted process with the same pid (pid 1 in a container) differs. */
  runId: string;
}

const RUN_ID = randomBytes(8).toString('hex');

export function thisProcess(instanceId: string): Holder {
  return { instanceId, host: os.hostname(), pid: process.pid, runId: RUN_ID };
}

/** What work that needs the lease checks: locally before acting, in its transaction before writing. */
export interface LeaseGuard {
  /** This instance holds the lease by its own clock (no database round trip). */
  held(): boolean;
  /** Throws LeaseLost unless the lease still carries this holder's token (inside `trx`). */
  fence(trx: Executor): Promise<void>;
}

export class LeaseLost extends Error {
  constructor(name: string) {
    super(`this instance no longer holds the ${name} lease`);
  }
}

/** A released lease expires at the epoch: any instance may take it at once. */
const RELEASED_AT = new Date(0).toISOString();

export class Lease implements LeaseGuard {
  private token: number | null = null;
  private validUntilMs = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    readonly name: string,
    private readonly me: Holder,
    readonly settings: LeaseSettings,
  ) {}

  /** How often `tick` should run: three renewals fit in one lease. */
  get renewEveryMs(): number {
    return Math.max(1, Math.floor(this.settings.ttlMs / 3));
  }

  /** The fencing token while held. */
  get currentToken(): number | null {
    return this.held() ? this.token : null;
  }

  held(): boolean {
    return this.token !== null && this.clock.now().getTime() < this.validUntilMs;
  }

  async fence(trx: Executor): Promise<void> {
    const token = this.token;
    if (token === null || !this.held() || !(await holdsLease(trx, this.name, token))) {
      throw new LeaseLost(this.name);
    }
  }

  /**
   * Whether the database still shows this instance's token, whatever its clock says: a check
   * made just before an act that cannot be fenced in a transaction (a sandbox transfer).
   */
  async confirm(): Promise<boolean> {
    const token = this.token;
    return token !== null && (await holdsLease(this.db, this.name, token));
  }

  /**
   * Renews the lease when this instance holds it, else takes it if it is free; returns whether
   * this instance holds it now and, when another does, that holder's row (for messages).
   */
  async tick(): Promise<{ held: boolean; lost: boolean; other: LeaseRow | null }> {
    const started = this.clock.now().getTime();
    const times = {
      renewed_at: new Date(started).toISOString(),
      expires_at: new Date(started + this.settings.ttlMs).toISOString(),
    };
    let lost = false;
    if (this.token !== null) {
      if (await renewLease(this.db, this.name, this.token, times)) {
        this.validUntilMs = started + this.settings.ttlMs - this.settings.skewMs;
        return { held: true, lost, other: null };
      }
      // Another instance took it over (this one was paused or cut off for longer than the lease).
      this.token = null;
      this.validUntilMs = 0;
      lost = true;
    }
    const holder = {
      holder: this.me.instanceId,
      host: this.me.host,
      pid: this.me.pid,
      run_id: this.me.runId,
      acquired_at: times.renewed_at,
      ...times,
    };
    const row = await readLease(this.db, this.name);
    let token: number | null = null;
    // The other holder's row, when the one just read is still current (a live holder's).
    let other: LeaseRow | null = row ?? null;
    if (!row) {
      if (await insertLease(this.db, { name: this.name, token: 1, ...holder })) token = 1;
      other = null;
    } else if (isStale(row, this.me, started, this.settings.skewMs)) {
      if (await takeLease(this.db, this.name, row.token, holder)) token = row.token + 1;
      other = null;
    }
    if (token === null) {
      // Lost a race to insert or take it over: the winner's row is read once more.
      return { held: false, lost, other: other ?? (await readLease(this.db, this.name)) ?? null };
    }
    this.token = token;
    this.validUntilMs = started + this.settings.ttlMs - this.settings.skewMs;
    return { held: true, lost, other: null };
  }

  /** Gives the lease up (a clean stop), so another instance takes over without waiting for it to expire. */
  async release(): Promise<void> {
    const token = this.token;
    this.token = null;
    this.validUntilMs = 0;
    if (token !== null) await releaseLease(this.db, this.name, token, RELEASED_AT);
  }
}

/**
 * Whether another instance may take the lease now: it expired (with the skew margin), was
 * released, or its holder is a process on this machine that is gone (or an earlier process that
 * had this one's pid). A holder on another machine is judged by its expiry only.
 */
export function isStale(row: LeaseRow, me: Holder, nowMs: number, skewMs: number): boolean {
  if (Date.parse(row.expires_at) + skewMs < nowMs) return true;
  return holderGone({ host: row.host, pid: row.pid, runId: row.run_id }, me);
}

/**
 * Whether a holder (of a lease row, or of the sandbox's lock file) is a process on this machine
 * that is gone, or an earlier process that had this one's pid. One on another machine cannot be
 * asked: false.
 */
export function holderGone(holder: Pick<Holder, 'host' | 'pid' | 'runId'>, me: Holder): boolean {
  if (holder.host !== me.host) return false;
  if (holder.pid === me.pid) return holder.runId !== me.runId;
  return !processAlive(holder.pid);
}

/** Whether a process with this pid exists on this machine (EPERM: it does, under another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

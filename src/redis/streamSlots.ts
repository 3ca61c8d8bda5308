import type { StreamSlot, StreamSlots } from '../http/sse.js';
import type { RedisLink } from './link.js';

/** How long a stream's slot lasts without renewal: a crashed instance's streams stop counting after it. */
export const STREAM_LEASE_MS = 30_000;

/**
 * Redis's own clock (TIME), one for every instance, so no host's skew moves a lease. Expired
 * leases are dropped, then a slot is taken if fewer than the cap remain.
 */
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;
const TAKE_SCRIPT = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;
/** Renews (or, after an outage or a Redis restart, records again) this instance's slots of one key. */
const RENEW_SCRIPT = `${NOW}
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`;

type TakeCommand = (key: string, max: number, leaseMs: number, member: string) => Promise<number>;
type RenewCommand = (key: string, leaseMs: number, ...members: string[]) => Promise<number>;

/**
 * The per-key stream cap counted once for all instances: each open stream holds a lease (a member
 * of the key's sorted set, scored by its expiry) that its instance renews every third of
 * STREAM_LEASE_MS, so the streams of an instance that died stop counting within one lease. While
 * Redis does not answer, this instance counts its own streams against the cap (the cap then holds
 * per instance); its renewals record them in Redis again once it answers.
 */
export class RedisStreamSlots implements StreamSlots {
  /** This instance's open slots: key -> members. */
  private readonly mine = new Map<string, Set<string>>();
  private sequence = 0;
  private readonly takeCommand: TakeCommand;
  private readonly renewCommand: RenewCommand;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly link: RedisLink,
    private readonly leaseMs = STREAM_LEASE_MS,
  ) {
    link.client.defineCommand('handoffTakeSlot', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    link.client.defineCommand('handoffRenewSlots', { numberOfKeys: 1, lua: RENEW_SCRIPT });
    const client = link.client as unknown as {
      handoffTakeSlot: TakeCommand;
      handoffRenewSlots: RenewCommand;
    };
    this.takeCommand = client.handoffTakeSlot.bind(client);
    this.renewCommand = client.handoffRenewSlots.bind(client);
    this.timer = setInterval(() => void this.renew(), Math.max(10, Math.floor(leaseMs / 3)));
    this.timer.unref();
    // Streams opened during an outage count for the other instances as soon as Redis is back.
    link.onRecovered(() => void this.renew());
  }

  async take(key: string, max: number): Promise<StreamSlot | null> {
    const member = `${this.link.instanceId}:${++this.sequence}`;
    if (this.link.usable()) {
      try {
        const taken = await this.takeCommand(this.redisKey(key), max, this.leaseMs, member);
        this.link.succeeded();
        return taken === 1 ? this.hold(key, member) : null;
      } catch (error) {
        this.link.failed(error);
      }
    }
    return (this.mine.get(key)?.size ?? 0) >= max ? null : this.hold(key, member);
  }

  /** Open streams this instance holds (tests, metrics). */
  openHere(): number {
    let total = 0;
    for (const members of this.mine.values()) total += members.size;
    return total;
  }

  /** Stops renewing (a crashed instance's leases simply run out). */
  stop(): void {
    clearInterval(this.timer);
  }

  /**
   * A clean shutdown gives its slots back at once, so a client that reconnects to another
   * instance during a rolling restart is not refused for a lease's length.
   */
  async close(): Promise<void> {
    this.stop();
    const mine = [...this.mine];
    this.mine.clear();
    if (mine.length === 0 || !this.link.usable()) return;
    await Promise.all(
      mine.map(([key, members]) => this.link.client.zrem(this.redisKey(key), ...members)),
    ).catch(() => {});
  }

  private hold(key: string, member: string): StreamSlot {
    let members = this.mine.get(key);
    if (!members) {
      members = new Set();
      this.mine.set(key, members);
    }
    members.add(member);
    return {
      release: () => {
        const current = this.mine.get(key);
        if (!current?.delete(member)) return;
        if (current.size === 0) this.mine.delete(key);
        // Best effort: a slot Redis did not hear released expires with its lease.
        if (this.link.usable()) this.link.client.zrem(this.redisKey(key), member).catch(() => {});
      },
    };
  }

  private async renew(): Promise<void> {
    if (!this.link.usable() || this.mine.size === 0) return;
    try {
      await Promise.all(
        [...this.mine].map(([key, members]) =>
          this.renewCommand(this.redisKey(key), this.leaseMs, ...members),
        ),
      );
    } catch (error) {
      this.link.failed(error);
    }
  }

  private redisKey(key: string): string {
    return `${this.link.prefix}streams:${key}`;
  }
}

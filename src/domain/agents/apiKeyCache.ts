/**
 * Live API keys recently found in the database, by their SHA-256, so that authenticating a
 * request does not cost a query (the benchmark's hottest query, run on every agent request).
 *
 * Staleness is bounded: an entry is trusted for `ttlMs` after it was read from the database, so a
 * key revoked by another instance (or by hand in SQL) stops working here within `ttlMs`. A
 * revocation or rotation made through this process calls `forgetAgent` in the same step and takes
 * effect at once. Unknown keys are never cached (a guessed key always costs its lookup, and
 * cannot fill the memory); the map is bounded, dropping its oldest entry when full.
 */
/** Who a live key is: its agent, its id (spend limits count per key) and its scopes (null: all). */
export interface KeyIdentity {
  agentId: string;
  keyId: string;
  scopes: string | null;
  /** False for a test key (`hr_test_`), whose agent is a test twin (src/domain/agents/testMode.ts). */
  livemode: boolean;
}

export class ApiKeyCache {
  private readonly entries = new Map<string, { key: KeyIdentity; readAtMs: number }>();

  constructor(
    /** 0 turns the cache off: every request looks its key up. */
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The key of a key hash read within the TTL, else null (look it up). */
  keyOf(keyHash: string, nowMs: number): KeyIdentity | null {
    const entry = this.entries.get(keyHash);
    if (!entry) return null;
    if (nowMs - entry.readAtMs < this.ttlMs && nowMs >= entry.readAtMs) return entry.key;
    this.entries.delete(keyHash);
    return null;
  }

  /** Remembers a live key just read from the database. */
  remember(keyHash: string, key: KeyIdentity, nowMs: number): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries && !this.entries.has(keyHash)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(keyHash, { key, readAtMs: nowMs });
  }

  /** Forgets every key of an agent: call it with any revocation, rotation or change of scopes of its keys. */
  forgetAgent(agentId: string): void {
    for (const [hash, entry] of this.entries) if (entry.key.agentId === agentId) this.entries.delete(hash);
  }
}

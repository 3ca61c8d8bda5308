import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { type Holder, holderGone, type LeaseSettings } from './domain/chain/lease.js';
import type { Clock } from './domain/clock.js';

/**
 * An exclusive lock file in DATA_DIR for the sandbox, whose chain state lives there: a second
 * process on the same directory would overwrite the first's chain file. The file names its
 * holder; its modification time is the holder's heartbeat (set from the service's clock at
 * every lease renewal). A lock is stale, and taken over, when its holder is a process of this
 * machine that is gone (or an earlier process with this one's pid), or when its heartbeat is
 * older than the lease's TTL plus the skew margin (a holder on another machine sharing the
 * directory, which cannot be asked whether it lives).
 */
export const LOCK_FILE = 'sandbox.lock';
/** Takeovers of a stale lock raced by another starting process are tried again this often. */
const MAX_TRIES = 3;

interface LockContent {
  instanceId: string;
  host: string;
  pid: number;
  runId: string;
  startedAt: string;
}

export interface DataDirLock {
  file: string;
  /**
   * Sets the heartbeat (writing the file again if someone deleted it); false when the file is
   * another process's (it took the lock over).
   */
  touch(): Promise<boolean>;
  /** Removes the file if it is still this process's. */
  release(): Promise<void>;
}

export async function acquireDataDirLock(
  dataDir: string,
  me: Holder,
  clock: Clock,
  settings: LeaseSettings,
): Promise<DataDirLock> {
  const file = path.join(dataDir, LOCK_FILE);
  const mine: LockContent = {
    instanceId: me.instanceId,
    host: me.host,
    pid: me.pid,
    runId: me.runId,
    startedAt: clock.now().toISOString(),
  };
  const isMine = async () => (await readLock(file))?.content?.runId === me.runId;
  const lock: DataDirLock = {
    file,
    async touch() {
      const current = await readLock(file);
      if (!current && !(await createExclusive(file, JSON.stringify(mine)))) return false;
      if (current && current.content?.runId !== me.runId) return false;
      const now = clock.now();
      await utimes(file, now, now);
      return true;
    },
    async release() {
      if (await isMine()) await rm(file, { force: true });
    },
  };
  for (let attempt = 1; ; attempt++) {
    if (await createExclusive(file, JSON.stringify(mine))) {
      const now = clock.now();
      await utimes(file, now, now);
      return lock;
    }
    const existing = await readLock(file);
    // Removed between our create and our read: try again (a few times: others are starting too).
    if (!existing && attempt < MAX_TRIES) continue;
    if (!existing || !isStaleLock(existing, me, clock.now().getTime(), settings) || attempt >= MAX_TRIES) {
      throw new Error(refusal(dataDir, existing ?? { content: null }));
    }
    // Moved aside first, so a process that read the stale lock before us cannot remove ours.
    const aside = `${file}.stale-${randomBytes(4).toString('hex')}`;
    await rename(file, aside).catch(() => undefined);
    await rm(aside, { force: true });
  }
}

/** Creates the file with its content only if it does not exist; false when it does. */
async function createExclusive(file: string, text: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  return true;
}

async function readLock(file: string): Promise<{ content: LockContent | null; heartbeatMs: number } | null> {
  try {
    const [text, info] = await Promise.all([readFile(file, 'utf8'), stat(file)]);
    let content: LockContent | null = null;
    try {
      const parsed = JSON.parse(text) as Partial<LockContent>;
      if (typeof parsed.pid === 'number' && typeof parsed.host === 'string') content = parsed as LockContent;
    } catch {
      // A torn or foreign file: judged by its heartbeat alone.
    }
    return { content, heartbeatMs: info.mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function isStaleLock(
  lock: { content: LockContent | null; heartbeatMs: number },
  me: Holder,
  nowMs: number,
  settings: LeaseSettings,
): boolean {
  if (lock.heartbeatMs + settings.ttlMs + settings.skewMs < nowMs) return true;
  return lock.content !== null && holderGone(lock.content, me);
}

function refusal(dataDir: string, lock: { content: LockContent | null }): string {
  const who = lock.content
    ? `instance ${lock.content.instanceId} (pid ${lock.content.pid} on ${lock.content.host}, started ${lock.content.startedAt})`
    : 'another process';
  return `DATA_DIR ${dataDir} is in use by ${who}: the sandbox keeps its chain in DATA_DIR and two processes would overwrite each other's chain state (${LOCK_FILE}). Stop the other instance, or give this one its own DATA_DIR; several instances need TON_NETWORK=testnet or mainnet.`;
}

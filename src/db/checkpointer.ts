import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database as SqliteFile } from 'better-sqlite3';

/**
 * How often the background connection copies the WAL into the database file. Not much more
 * often: once it has caught up, the next commit starts the WAL over and fsyncs its header on the
 * main thread, so every catch-up costs the event loop one fsync.
 */
export const CHECKPOINT_INTERVAL_MS = 250;
/**
 * The main connection's own automatic checkpoint, kept as a safety net: it runs only when the
 * WAL has grown this many pages (about 40 MB) because the background one could not keep up.
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000;
/** SQLite's default, restored when the background connection fails. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

/**
 * The checkpointing connection's thread, in plain JavaScript so it runs as is under tsx, in
 * tests and from dist/. A PASSIVE checkpoint never waits for readers or the writer and never
 * blocks them, and needs no busy handler.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.module);
const db = new SQLite(workerData.file);
const timer = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.postMessage('closed');
});
`;

export interface Checkpointer {
  /** Stops the thread and closes its connection; call before closing the main connection. */
  stop(): Promise<void>;
}

/**
 * SQLite checkpoints a WAL database from the connection that commits, inside the commit that
 * passes `wal_autocheckpoint` pages: that commit copies the WAL into the database file and
 * fsyncs both, on the event loop, while every other request waits. The benchmark measured 59
 * of 702 commits of POST /tasks over 5 ms (up to 104 ms) and 90% of all commit time in them,
 * which made POST's p99. Here a second connection in a worker thread checkpoints every
 * CHECKPOINT_INTERVAL_MS instead, and the main connection keeps its own only as a fallback.
 * Durability is unchanged: a commit is in the WAL either way, and a checkpoint fsyncs the WAL
 * before it copies any page.
 */
export function startBackgroundCheckpoints(main: SqliteFile, filePath: string): Checkpointer {
  main.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      module: createRequire(import.meta.url).resolve('better-sqlite3'),
      file: filePath,
      intervalMs: CHECKPOINT_INTERVAL_MS,
    },
  });
  // The thread must not keep a process alive that is otherwise done.
  worker.unref();
  let stopped = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('error', () => {
    // The fallback becomes SQLite's usual checkpointing: slower commits, nothing lost.
    if (!stopped && main.open) main.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
  });
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      // Ask the thread to close its connection itself (terminate() could cut a checkpoint
      // short, which SQLite survives but then redoes); it exits once its loop is empty.
      worker.postMessage('stop');
      const closed = new Promise<void>((resolve) => worker.once('message', () => resolve()));
      await Promise.race([closed, exited]);
      await worker.terminate();
    },
  };
}

import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** The stream held more bytes than allowed; nothing was kept. */
export class TooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`more than ${maxBytes} bytes`);
  }
}

/** The stream ended before its data did (a multipart body cut off inside the file); nothing was kept. */
export class IncompleteSourceError extends Error {
  constructor() {
    super('the stream was closed before its end');
  }
}

/**
 * The store did not answer, or refused us (S3 down, unreachable, or its credentials revoked):
 * nothing the caller sent is at fault, so it is a 503 to retry, not a 500.
 */
export class StorageUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`file storage failed: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/**
 * Where uploaded bytes live: local disk by default, an S3-compatible bucket with S3_BUCKET
 * (s3Storage.ts).
 * Keys are server-made ids, never caller-supplied names.
 */
export interface FileStorage {
  /**
   * Streams `source` into `key` without buffering it; refuses (TooLargeError) past `maxBytes`,
   * and a source destroyed before its end (IncompleteSourceError).
   */
  write(key: string, source: Readable, maxBytes: number): Promise<number>;
  /**
   * The stored bytes, opened, or null when they are not there (removed, or a disk restored from
   * an older backup): the caller answers 404 before sending any header of the file.
   */
  open(key: string): Promise<Readable | null>;
  remove(key: string): Promise<void>;
  /** Releases connections (S3); nothing to do on local disk. */
  close?(): void;
}

const SAFE_KEY = /^[a-z0-9_]{1,100}$/;

/** The key itself, once checked to be one we make (never a caller's path). */
export function storageKey(key: string): string {
  if (!SAFE_KEY.test(key)) throw new Error(`unsafe storage key ${key}`);
  return key;
}

/** Passes bytes through, counting them; fails with TooLargeError at byte maxBytes + 1. */
export function byteLimit(maxBytes: number): Transform & { bytes: () => number } {
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) done(new TooLargeError(maxBytes));
      else done(null, chunk);
    },
  });
  return Object.assign(counter, { bytes: () => size });
}

export class LocalDiskStorage implements FileStorage {
  constructor(private readonly root: string) {}

  private file(key: string): string {
    return path.join(this.root, key.slice(-2), storageKey(key));
  }

  async write(key: string, source: Readable, maxBytes: number): Promise<number> {
    const target = this.file(key);
    await mkdir(path.dirname(target), { recursive: true });
    // The multipart parser destroys a part whose body ended inside it, without an error. If that
    // happened while the directory was made, the pipeline would take the closed stream for a
    // finished one and wait forever for its end: refuse it now.
    if (source.destroyed && !source.readableEnded) throw new IncompleteSourceError();
    const partial = `${target}.partial`;
    const counter = byteLimit(maxBytes);
    try {
      await pipeline(source, counter, createWriteStream(partial, { mode: 0o600 }));
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    // Renamed only when complete, so a reader never sees half a file.
    await rename(partial, target);
    return counter.bytes();
  }

  async open(key: string): Promise<Readable | null> {
    try {
      // Opened before the answer starts, so a missing file is known while a 404 can still be sent.
      const handle = await open(this.file(key), 'r');
      return handle.createReadStream();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    await rm(this.file(key), { force: true });
  }
}

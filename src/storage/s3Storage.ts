import type { Readable } from 'node:stream';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { S3Settings } from '../config.js';
import {
  byteLimit,
  type FileStorage,
  IncompleteSourceError,
  StorageUnavailableError,
  storageKey,
} from './fileStorage.js';

/**
 * Bytes held in memory per upload: S3's smallest multipart part. A file up to this size is one
 * PutObject; a larger one goes up part by part as it arrives, so an upload holds at most one part
 * (the source is paused while a part is sent) and never the whole file.
 */
export const PART_BYTES = 5 * 1024 * 1024;

/** Objects live under this prefix, so the bucket can hold other things. */
const PREFIX = 'uploads/';

/**
 * Uploads in an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2...). Every instance sees every
 * file. Downloads still go through GET /files/:id/:name, which streams the object (docs/decisions/several-instances-s3.md): the bucket stays private and our headers stay ours.
 */
export class S3Storage implements FileStorage {
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(settings: S3Settings) {
    this.bucket = settings.bucket;
    this.client = new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      forcePathStyle: settings.forcePathStyle,
      // Tests pass s3rver's; otherwise the SDK's default chain (AWS_ACCESS_KEY_ID and
      // AWS_SECRET_ACCESS_KEY, AWS_PROFILE, web identity, instance or task roles).
      ...(settings.credentials ? { credentials: settings.credentials } : {}),
      // Checksums only where the API requires them: the SDK's newer default (a CRC32 trailer on
      // every upload) is refused by several S3-compatible stores.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // A download holds its socket while the client reads: more than the default 50 at once.
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000, httpAgent: { maxSockets: 256 } },
    });
  }

  /** Fails at start-up, with the store's reason, when the bucket cannot be reached. */
  async check(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      const reason =
        status === 404
          ? 'it does not exist'
          : status === 403
            ? 'access denied: check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY'
            : `${(error as Error).name}: ${(error as Error).message}`;
      throw new Error(`S3_BUCKET "${this.bucket}" cannot be used (${reason})`);
    }
  }

  private object(key: string): string {
    return PREFIX + storageKey(key);
  }

  async write(key: string, source: Readable, maxBytes: number): Promise<number> {
    const object = this.object(key);
    // See LocalDiskStorage.write: a part the multipart parser closed early would never end.
    if (source.destroyed && !source.readableEnded) throw new IncompleteSourceError();
    const counter = byteLimit(maxBytes);
    const sink = new PartUploader(this.client, this.bucket, object);
    try {
      await pipeline(source, counter, sink);
    } catch (error) {
      // Not awaited: the refusal is answered at once, while the parts are freed.
      void sink.abort();
      throw error;
    }
    return counter.bytes();
  }

  async open(key: string): Promise<Readable | null> {
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.object(key) }),
      );
      return object.Body as Readable;
    } catch (error) {
      if (isMissing(error)) return null;
      return unavailable(error);
    }
  }

  async remove(key: string): Promise<void> {
    await this.client
      .send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.object(key) }))
      .catch(unavailable);
  }

  close(): void {
    this.client.destroy();
  }
}

/** A store's failure, as the 503 it answers; a missing object stays itself (a 404). */
function unavailable(error: unknown): never {
  if (isMissing(error)) throw error;
  throw new StorageUnavailableError(error);
}

function isMissing(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}

/**
 * The end of an upload's pipeline: gathers PART_BYTES, then sends them as one part while the
 * source waits (the write callback is called when the part is stored). The object appears only
 * when CompleteMultipartUpload (or the single PutObject) succeeds, so no reader sees half a file.
 */
class PartUploader extends Writable {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private uploadId: string | undefined;
  private readonly parts: CompletedPart[] = [];
  /** The part being sent, so an abort waits for it (and for the upload id it may create). */
  private sending: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly key: string,
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (this.buffered < PART_BYTES) {
      done();
      return;
    }
    this.sending = this.sendPart();
    this.sending.then(() => done(), done);
  }

  override _final(done: (error?: Error | null) => void): void {
    this.finish().then(() => done(), done);
  }

  private take(): Buffer {
    const body = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [];
    this.buffered = 0;
    return body;
  }

  private async sendPart(): Promise<void> {
    const target = { Bucket: this.bucket, Key: this.key };
    this.uploadId ??= (
      await this.client.send(new CreateMultipartUploadCommand(target)).catch(unavailable)
    ).UploadId;
    const PartNumber = this.parts.length + 1;
    const Body = this.take();
    const sent = await this.client
      .send(new UploadPartCommand({ ...target, UploadId: this.uploadId, PartNumber, Body }))
      .catch(unavailable);
    this.parts.push({ PartNumber, ETag: sent.ETag });
  }

  private async finish(): Promise<void> {
    const target = { Bucket: this.bucket, Key: this.key };
    if (!this.uploadId) {
      await this.client.send(new PutObjectCommand({ ...target, Body: this.take() })).catch(unavailable);
      return;
    }
    if (this.buffered > 0) await this.sendPart();
    await this.client
      .send(
        new CompleteMultipartUploadCommand({
          ...target,
          UploadId: this.uploadId,
          MultipartUpload: { Parts: this.parts },
        }),
      )
      .catch(unavailable);
  }

  /**
   * Frees the parts of a refused upload. Best effort: a store that cannot abort (s3rver) or an
   * outage leaves them to the bucket's AbortIncompleteMultipartUpload lifecycle rule (docs/operating.md).
   */
  async abort(): Promise<void> {
    this.chunks = [];
    await this.sending.catch(() => {});
    if (!this.uploadId) return;
    await this.client
      .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: this.key, UploadId: this.uploadId }))
      .catch(() => {});
  }
}

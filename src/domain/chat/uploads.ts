import { createHmac, randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { UploadRow } from '../../db/repositories/executor.js';
import { findUpload, insertUpload, markUploadStored } from '../../db/repositories/uploads.js';
import { type FileStorage, IncompleteSourceError, TooLargeError } from '../../storage/fileStorage.js';
import { safeEqual } from '../agents/apiKeys.js';
import type { DomainContext } from '../context.js';
import { conflict, DomainError, invalid, notFound } from '../errors.js';
import { isIdOf, newId } from '../ids.js';
import { clipText } from '../text.js';
import type { Party } from './chat.js';

export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;
/** A signed upload URL works this long. */
export const UPLOAD_URL_TTL_MS = 15 * 60_000;
const FILE_NAME_MAX = 200;

/**
 * What may be uploaded (docs/decisions/chat-files-webhooks-limits.md): images, PDF, plain text, CSV,
 * JSON, ZIP, MP4 video, MP3/OGG/WAV audio.
 */
export const ALLOWED_TYPES = new Set([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'image/heic',
  'image/heif',
  'image/avif',
  'image/bmp',
  'application/pdf',
  'text/plain',
  'text/csv',
  'application/json',
  'application/zip',
  'application/x-zip-compressed',
  'video/mp4',
  'audio/mpeg',
  'audio/mp3',
  'audio/ogg',
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
]);

export const tooLarge = () =>
  new DomainError(
    'too_large',
    `The file is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB; send a smaller file`,
  );

/** The media type without parameters, or a 415 when it is not one we accept. */
export function checkType(contentType: string): string {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (!ALLOWED_TYPES.has(type)) {
    throw new DomainError(
      'unsupported_media_type',
      `Files of type "${type || 'unknown'}" are not accepted; send an image, PDF, plain text, CSV, JSON, ZIP, MP4 video or MP3/OGG/WAV audio`,
    );
  }
  return type;
}

/** A display name only: path parts, control characters and quotes removed. Storage uses ids. */
export function cleanFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const printable = [...base].filter(
    (ch) => ch.charCodeAt(0) > 0x1f && ch.charCodeAt(0) !== 0x7f && ch !== '"',
  );
  const clean = clipText(printable.join('').trim(), FILE_NAME_MAX).trim();
  // "." and ".." would be dot-segments in the fileUrl, which clients resolve away.
  return clean && clean !== '.' && clean !== '..' ? clean : 'file';
}

export function fileUrlOf(ctx: DomainContext, upload: Pick<UploadRow, 'id' | 'file_name'>): string {
  return `${ctx.publicUrl}/files/${upload.id}/${encodeURIComponent(upload.file_name)}`;
}

/**
 * The upload id and file name a file URL names, or null when it is not a URL of ours of the
 * form fileUrlOf makes: another origin, credentials, a query string or fragment, or a path that
 * (once its dot segments are resolved) is not `/files/<id>/<name>` under the public URL.
 */
export function parseFileUrl(ctx: DomainContext, fileUrl: string): { id: string; name: string } | null {
  let url: URL;
  try {
    url = new URL(fileUrl);
  } catch {
    return null;
  }
  const base = new URL(`${ctx.publicUrl}/`);
  if (url.origin !== base.origin || url.username || url.password || url.search || url.hash) return null;
  const prefix = `${base.pathname}files/`;
  if (!url.pathname.startsWith(prefix)) return null;
  const parts = url.pathname.slice(prefix.length).split('/');
  if (parts.length !== 2) return null;
  try {
    return { id: parts[0]!, name: decodeURIComponent(parts[1]!) };
  } catch {
    return null; // a malformed percent-escape
  }
}

function newUploadRow(
  ctx: DomainContext,
  party: Party,
  fileName: string,
  mimeType: string,
  expiresAt: string | null,
) {
  const now = ctx.clock.now().toISOString();
  const row: UploadRow = {
    id: newId('upload'),
    owner_type: party.kind === 'agent' ? 'AGENT' : 'USER',
    owner_id: party.id,
    file_name: cleanFileName(fileName),
    mime_type: mimeType,
    size: null,
    storage_key: null,
    status: 'pending',
    expires_at: expiresAt,
    created_at: now,
    updated_at: now,
  };
  return row;
}

/** Multipart mode: streams the part to storage and records it. */
export async function storeUpload(
  ctx: DomainContext,
  storage: FileStorage,
  party: Party,
  file: { fileName: string; mimeType: string; stream: Readable },
) {
  const row = newUploadRow(ctx, party, file.fileName, checkType(file.mimeType), null);
  const size = await writeOrRefuse(storage, row.id, file.stream);
  await insertUpload(ctx.db, { ...row, size, storage_key: row.id, status: 'stored' });
  return { fileUrl: fileUrlOf(ctx, row), fileName: row.file_name, fileSize: size, mimeType: row.mime_type };
}

async function writeOrRefuse(storage: FileStorage, key: string, stream: Readable): Promise<number> {
  try {
    return await storage.write(key, stream, MAX_UPLOAD_BYTES);
  } catch (error) {
    if (error instanceof TooLargeError) throw tooLarge();
    if (error instanceof IncompleteSourceError)
      throw invalid('body', 'ends inside the file: send the whole file again');
    throw error;
  }
}

function signature(ctx: DomainContext, id: string, expiresMs: number): string {
  return createHmac('sha256', ctx.secretKey).update(`upload:${id}:${expiresMs}`).digest('base64url');
}

/** JSON mode: a signed URL the caller PUTs the bytes to, valid for 15 minutes, once. */
export async function createUploadUrl(
  ctx: DomainContext,
  party: Party,
  input: { filename: string; contentType: string },
) {
  const expiresMs = ctx.clock.now().getTime() + UPLOAD_URL_TTL_MS;
  const row = newUploadRow(
    ctx,
    party,
    input.filename,
    checkType(input.contentType),
    new Date(expiresMs).toISOString(),
  );
  await insertUpload(ctx.db, row);
  const query = new URLSearchParams({
    expires: String(expiresMs),
    signature: signature(ctx, row.id, expiresMs),
  });
  return {
    uploadUrl: `${ctx.publicUrl}/uploads/${row.id}?${query}`,
    fileUrl: fileUrlOf(ctx, row),
    expiresAt: row.expires_at!,
  };
}

/** PUT to a signed URL: checks signature and expiry, then streams the bytes to storage once. */
export async function receiveSignedUpload(
  ctx: DomainContext,
  storage: FileStorage,
  id: string,
  query: { expires?: string; signature?: string },
  stream: Readable,
) {
  const expiresMs = Number(query.expires);
  const valid =
    isIdOf('upload', id) &&
    Number.isSafeInteger(expiresMs) &&
    typeof query.signature === 'string' &&
    safeEqual(query.signature, signature(ctx, id, expiresMs));
  if (!valid)
    throw new DomainError('forbidden', 'This upload URL is not valid; request a new one with POST /upload');
  if (ctx.clock.now().getTime() > expiresMs) {
    throw new DomainError('forbidden', 'This upload URL has expired; request a new one with POST /upload');
  }
  const upload = await findUpload(ctx.db, id);
  if (!upload) throw notFound('Upload');
  if (upload.status !== 'pending') throw conflict('This upload URL was already used; request a new one');
  // Each attempt writes its own object; the compare-and-set below lets exactly one count.
  const key = `${id}_${randomBytes(6).toString('hex')}`;
  const size = await writeOrRefuse(storage, key, stream);
  const stored = await markUploadStored(ctx.db, id, { key, size }, ctx.clock.now().toISOString());
  if (!stored) {
    await storage.remove(key);
    throw conflict('This upload URL was already used; request a new one');
  }
  return {
    fileUrl: fileUrlOf(ctx, stored),
    fileName: stored.file_name,
    fileSize: size,
    mimeType: stored.mime_type,
  };
}

/** A stored file to serve, or 404. */
export async function storedUpload(ctx: DomainContext, id: string) {
  const upload = isIdOf('upload', id) ? await findUpload(ctx.db, id) : undefined;
  if (upload?.status !== 'stored' || !upload.storage_key) throw notFound('File');
  return { ...upload, storage_key: upload.storage_key };
}

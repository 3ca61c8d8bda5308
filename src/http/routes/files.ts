import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import { MAX_UPLOAD_BYTES, receiveSignedUpload, storedUpload, tooLarge } from '../../domain/chat/uploads.js';
import { notFound } from '../../domain/errors.js';
import type { Routes } from '../routeTypes.js';
import { UploadedFile } from '../schemas/chat.js';
import { errors } from '../schemas/common.js';

const INLINE_PREFIXES = ['image/', 'video/', 'audio/'];

/**
 * Unauthenticated file routes: the signed upload URL (its signature is the credential) and the
 * stored files (their 128-bit random ids are the credential, as with presigned storage URLs).
 */
export const fileRoutes: Routes = async (app, { ctx, storage }) => {
  // Signed uploads take raw bytes of any type; the body is streamed to storage, never buffered.
  // The inherited parsers go first: JSON and text/plain bodies would otherwise be read (and lost).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.put(
    '/uploads/:id',
    {
      config: { takesBody: true, fileBody: true },
      schema: {
        tags: ['Files'],
        operationId: 'uploadToSignedUrl',
        summary: 'PUT the file’s bytes to a signed upload URL from POST /upload (once, before it expires)',
        params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
        querystring: Type.Object({
          expires: Type.Optional(Type.String({ maxLength: 20 })),
          signature: Type.Optional(Type.String({ maxLength: 100 })),
        }),
        response: { 200: UploadedFile, ...errors(400, 403, 404, 409, 413, 503) },
      },
    },
    async (request, reply) => {
      try {
        // A declared size over the limit is refused before a byte is read.
        if (Number(request.headers['content-length']) > MAX_UPLOAD_BYTES) throw tooLarge();
        return await receiveSignedUpload(ctx, storage, request.params.id, request.query, request.raw);
      } catch (error) {
        // The rest of a refused body is not read: close the connection after answering.
        reply.header('connection', 'close');
        throw error;
      }
    },
  );

  app.get(
    '/files/:id/:name',
    {
      schema: {
        tags: ['Files'],
        operationId: 'getFile',
        summary: 'A stored file',
        params: Type.Object({ id: Type.String({ maxLength: 100 }), name: Type.String({ maxLength: 400 }) }),
        response: {
          200: {
            description: 'The file’s bytes, with its stored Content-Type',
            content: {
              'application/octet-stream': {
                schema: Type.Unsafe<Readable>({ type: 'string', format: 'binary' }),
              },
            },
          },
          ...errors(404, 503),
        },
      },
    },
    async (request, reply) => {
      const upload = await storedUpload(ctx, request.params.id);
      const bytes = await storage.open(upload.storage_key);
      if (!bytes) throw notFound('File');
      const inline = INLINE_PREFIXES.some((p) => upload.mime_type.startsWith(p));
      const encoded = encodeURIComponent(upload.file_name);
      return reply
        .header('content-type', upload.mime_type)
        .header('content-length', upload.size ?? 0)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cache-control', 'private, max-age=3600')
        .header('content-disposition', `${inline ? 'inline' : 'attachment'}; filename*=UTF-8''${encoded}`)
        .send(bytes);
    },
  );
};

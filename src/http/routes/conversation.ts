import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { chatFor, listChatMessages, listChats, type Party, postMessage } from '../../domain/chat/chat.js';
import { createUploadUrl, MAX_UPLOAD_BYTES, storeUpload, tooLarge } from '../../domain/chat/uploads.js';
import { DomainError, invalid } from '../../domain/errors.js';
import { sendIdempotent } from '../idempotency.js';
import { pageView } from '../pageView.js';
import { AGENT_SECURITY, type Routes, WORKER_SECURITY } from '../routeTypes.js';
import {
  Chat,
  Message,
  PostMessageBody,
  UploadedFile,
  UploadUrl,
  UploadUrlRequest,
} from '../schemas/chat.js';
import { errors, NextCursor, TaskIdParam } from '../schemas/common.js';
import { streamChat } from '../sse.js';
import { chatView, messageView } from '../views.js';

const UPLOAD_FORMS =
  'multipart/form-data (with its boundary) and the file in a part named "file", or JSON {filename, contentType}';

/** busboy's errors for a body that is not the multipart its Content-Type says (plain Errors). */
function malformedMultipart(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return /^Multipart: |unexpected end of multipart data/i.test(message);
}

/**
 * The multipart parser, for the upload routes only: registered for the whole app it added an
 * async onResponse hook (its temporary-file clean-up) to every request, GET /tasks/:id included,
 * and elsewhere a multipart body is better answered 415 "send application/json" than parsed.
 */
const MULTIPART_OPTIONS = {
  // One byte over the limit: at exactly the limit busboy would cut the file short silently (the
  // streaming API only flags `truncated`), while one more byte lets storage refuse it with a 413.
  limits: {
    fileSize: MAX_UPLOAD_BYTES + 1,
    files: 1,
    fields: 5,
    fieldSize: 1000,
    parts: 10,
    headerPairs: 50,
  },
};

/**
 * Chat, live stream and upload routes. Agents and workers get the same routes: agents at /chats,
 * /chat/:taskId/..., /upload; workers under /worker. `partyOf` says who is calling.
 */
export function conversationRoutes(side: 'agent' | 'worker'): Routes {
  const prefix = side === 'agent' ? '' : '/worker';
  // The worker's copies of these routes get their own operationIds: workerSendMessage...
  const opId = (name: string) =>
    side === 'agent' ? name : `worker${name[0]!.toUpperCase()}${name.slice(1)}`;
  const security = side === 'agent' ? AGENT_SECURITY : WORKER_SECURITY;
  const tags = [side === 'agent' ? 'Chat' : 'Worker'];
  const partyOf = (request: FastifyRequest): Party =>
    side === 'agent' ? { kind: 'agent', id: request.agentId } : { kind: 'worker', id: request.workerId };

  return async (app, { ctx, storage, streams }) => {
    await app.register(multipart, MULTIPART_OPTIONS);
    app.get(
      `${prefix}/chats`,
      {
        schema: {
          tags,
          security,
          operationId: opId('listChats'),
          summary: 'Your chats, most recently active first',
          querystring: Type.Object({
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
            cursor: Type.Optional(Type.String({ maxLength: 400 })),
          }),
          response: {
            200: Type.Object({ chats: Type.Array(Chat), nextCursor: NextCursor, hasMore: Type.Boolean() }),
            ...errors(400, 401),
          },
        },
      },
      async (request) => {
        const result = await listChats(ctx, partyOf(request), request.query);
        return pageView(result, 'chats', ({ chat, lastMessage }) => chatView(chat, lastMessage));
      },
    );

    app.get(
      `${prefix}/chat/:taskId/messages`,
      {
        schema: {
          tags,
          security,
          operationId: opId('getMessages'),
          summary: 'A task’s chat messages, newest first; the cursor is a message id',
          params: TaskIdParam,
          querystring: Type.Object({
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
            cursor: Type.Optional(Type.String({ maxLength: 100 })),
          }),
          response: {
            200: Type.Object({
              messages: Type.Array(Message),
              nextCursor: NextCursor,
              hasMore: Type.Boolean(),
            }),
            ...errors(400, 401, 403, 404),
          },
        },
      },
      async (request) => {
        const result = await listChatMessages(ctx, partyOf(request), request.params.taskId, request.query);
        return pageView(result, 'messages', messageView);
      },
    );

    app.post(
      `${prefix}/chat/:taskId/messages`,
      {
        config: { rateLimit: 'chat' },
        schema: {
          tags,
          security,
          operationId: opId('sendMessage'),
          summary: 'Send a message, optionally with a file uploaded first',
          params: TaskIdParam,
          body: PostMessageBody,
          response: { 201: Type.Object({ message: Message }), ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (request, reply) =>
        sendIdempotent(
          request,
          reply,
          ctx,
          (c) => postMessage(c, partyOf(request), request.params.taskId, request.body),
          (message) => ({ status: 201, body: { message: messageView(message) } }),
        ),
    );

    app.get(
      `${prefix}/chat/:taskId/stream`,
      {
        schema: {
          tags,
          security,
          operationId: opId('streamMessages'),
          summary:
            'New messages as Server-Sent Events (event "message", id = message id); send Last-Event-ID to resume',
          params: TaskIdParam,
          response: {
            200: {
              description: 'An open stream of Server-Sent Events',
              content: {
                'text/event-stream': {
                  schema: Type.String({
                    description:
                      'Frames `id: <message id>`, `event: message`, `data: <Message as JSON>`, and comment lines as keep-alives',
                  }),
                },
              },
            },
            ...errors(401, 403, 404, 429),
          },
        },
      },
      async (request, reply) => {
        const party = partyOf(request);
        const chat = await chatFor(ctx, party, request.params.taskId);
        await streamChat(ctx, streams, `${party.kind}:${party.id}`, chat, request, reply);
      },
    );

    app.post(
      `${prefix}/upload`,
      {
        config: { rateLimit: 'upload' },
        schema: {
          tags,
          security,
          operationId: opId('uploadFile'),
          summary:
            'Upload a file (multipart, part "file", at most 20 MiB), or get a signed URL to PUT it to (JSON {filename, contentType})',
          consumes: ['multipart/form-data', 'application/json'],
          body: { content: { 'application/json': { schema: UploadUrlRequest } } },
          response: { 200: Type.Union([UploadedFile, UploadUrl]), ...errors(400, 401, 413, 415, 503) },
        },
      },
      async (request, reply) => {
        if (!request.isMultipart()) {
          const body = request.body as { filename: string; contentType: string } | string | undefined;
          // text/plain has a parser of its own and arrives as a string, which is not a request.
          if (typeof body === 'string')
            throw new DomainError('unsupported_media_type', `Send ${UPLOAD_FORMS}`);
          if (!body) throw invalid('body', `send ${UPLOAD_FORMS}`);
          return createUploadUrl(ctx, partyOf(request), body);
        }
        let file: Awaited<ReturnType<FastifyRequest['file']>>;
        try {
          file = await request.file();
        } catch (error) {
          throw malformedMultipart(error)
            ? invalid('body', `is not valid multipart: send ${UPLOAD_FORMS}`)
            : error;
        }
        if (file?.fieldname !== 'file')
          throw invalid('file', 'send the file in a multipart part named "file"');
        // A body that ended inside the file was parsed to its end already: the plugin destroyed
        // the part's stream without an error, and reading it would wait forever.
        if (file.file.destroyed && !file.file.readableEnded) {
          reply.header('connection', 'close');
          throw invalid('body', `is not valid multipart (it ends inside the file): send ${UPLOAD_FORMS}`);
        }
        try {
          return await storeUpload(ctx, storage, partyOf(request), {
            fileName: file.filename,
            mimeType: file.mimetype,
            stream: file.file,
          });
        } catch (error) {
          // The rest of a refused body is not read: close the connection after answering.
          reply.header('connection', 'close');
          // Past the limit, the parser skips the rest of the file and may reach a body that ends
          // inside it before storage has counted the buffered bytes: too large wins over malformed.
          if (file.file.truncated) throw tooLarge();
          throw malformedMultipart(error)
            ? invalid('body', `is not valid multipart: send ${UPLOAD_FORMS}`)
            : error;
        }
      },
    );
  };
}

import { Type } from 'typebox';
import { Nullable, nameSchemas, Timestamp } from './common.js';
import { TaskStatus } from './task.js';

export const Message = Type.Object({
  id: Type.String({ description: 'Message id (msg_...); also the SSE event id and the page cursor' }),
  senderId: Type.String({ description: 'The worker (wrk_...) or agent (agt_...) who sent it' }),
  senderType: Type.Enum(['USER', 'AGENT'], { description: 'USER is the worker' }),
  content: Type.String({ description: 'Up to 4000 characters; may be empty when a file is attached' }),
  fileUrl: Nullable(Type.String({ description: 'The attached file, served at this URL' })),
  fileName: Nullable(Type.String()),
  fileSize: Nullable(Type.Integer({ description: 'In bytes' })),
  mimeType: Nullable(Type.String({ description: 'The stored file’s media type' })),
  createdAt: Timestamp,
});

export const Chat = Type.Object({
  id: Type.String(),
  taskId: Type.String(),
  task: Type.Object({ title: Type.String(), status: TaskStatus }),
  user: Type.Object({ id: Type.String(), username: Nullable(Type.String()), firstName: Type.String() }),
  agent: Type.Object({ id: Type.String(), name: Nullable(Type.String()) }),
  lastMessage: Nullable(
    Type.Object({ content: Type.String(), senderType: Type.Enum(['USER', 'AGENT']), createdAt: Timestamp }),
  ),
  closed: Type.Boolean({ description: 'A closed chat is readable but takes no new messages' }),
  updatedAt: Timestamp,
});

export const PostMessageBody = Type.Object({
  content: Type.String({
    maxLength: 4000,
    default: '',
    description: 'Up to 4000 characters; required unless fileUrl is given',
  }),
  fileUrl: Type.Optional(
    Type.String({
      maxLength: 2000,
      description: 'A fileUrl the upload endpoint returned to you (your own upload)',
    }),
  ),
  fileName: Type.Optional(Type.String({ maxLength: 200 })),
  fileSize: Type.Optional(Type.Integer({ minimum: 0 })),
  mimeType: Type.Optional(Type.String({ maxLength: 100 })),
});

export const UploadedFile = Type.Object({
  fileUrl: Type.String({ description: 'Attach it to a message with this URL' }),
  fileName: Type.String(),
  fileSize: Type.Integer({ description: 'In bytes; at most 20 MiB' }),
  mimeType: Type.String(),
});

export const UploadUrlRequest = Type.Object({
  filename: Type.String({ minLength: 1, maxLength: 200, description: 'The file’s name as it will be shown' }),
  contentType: Type.String({ minLength: 1, maxLength: 100, description: 'Its media type, e.g. image/jpeg' }),
});

export const UploadUrl = Type.Object({
  uploadUrl: Type.String({ description: 'PUT the bytes here before expiresAt; works once' }),
  fileUrl: Type.String(),
  expiresAt: Timestamp,
});

nameSchemas({ Message, Chat, PostMessageBody, UploadedFile, UploadUrlRequest, UploadUrl });

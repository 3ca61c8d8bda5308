import { Type } from 'typebox';
import { Nullable, Timestamp } from './common.js';
import { TaskStatus } from './task.js';

export const Message = Type.Object({
  id: Type.String(),
  senderId: Type.String(),
  senderType: Type.Enum(['USER', 'AGENT']),
  content: Type.String(),
  fileUrl: Nullable(Type.String()),
  fileName: Nullable(Type.String()),
  fileSize: Nullable(Type.Integer()),
  mimeType: Nullable(Type.String()),
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
  content: Type.String({ maxLength: 4000, default: '' }),
  fileUrl: Type.Optional(
    Type.String({ maxLength: 2000, description: 'A fileUrl returned by the upload endpoint' }),
  ),
  fileName: Type.Optional(Type.String({ maxLength: 200 })),
  fileSize: Type.Optional(Type.Integer({ minimum: 0 })),
  mimeType: Type.Optional(Type.String({ maxLength: 100 })),
});

export const UploadedFile = Type.Object({
  fileUrl: Type.String(),
  fileName: Type.String(),
  fileSize: Type.Integer(),
  mimeType: Type.String(),
});

export const UploadUrlRequest = Type.Object({
  filename: Type.String({ minLength: 1, maxLength: 200 }),
  contentType: Type.String({ minLength: 1, maxLength: 100 }),
});

export const UploadUrl = Type.Object({
  uploadUrl: Type.String({ description: 'PUT the bytes here before expiresAt; works once' }),
  fileUrl: Type.String(),
  expiresAt: Timestamp,
});

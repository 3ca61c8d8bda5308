import type { OperationExamples } from './types.js';

/** Examples of chat and files, by operationId (see ./types.ts). */
export const chatExamples: Record<string, OperationExamples> = {
  // GET /chat/{taskId}/messages
  getMessages: {
    responses: {
      '200': {
        messages: [
          {
            id: 'msg_01jq7v02x4m2c8w6t0r9b5k3n1p7',
            senderId: 'wrk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            senderType: 'USER',
            content: 'On it.',
            fileUrl: null,
            fileName: null,
            fileSize: null,
            mimeType: null,
            createdAt: '2026-03-14T09:30:00.000Z',
          },
          {
            id: 'msg_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            senderId: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            senderType: 'AGENT',
            content: 'Thanks! The front, please.',
            fileUrl: null,
            fileName: null,
            fileSize: null,
            mimeType: null,
            createdAt: '2026-03-14T09:30:00.000Z',
          },
        ],
        nextCursor: null,
        hasMore: false,
      },
      '404': { error: 'Task not found' },
    },
  },
  // GET /chat/{taskId}/stream
  streamMessages: {
    responses: {
      '200':
        'id: msg_01jq7v01x4m2c8w6t0r9b5k3n1p7\nevent: message\ndata: {"id":"msg_01jq7v01x4m2c8w6t0r9b5k3n1p7","senderId":"wrk_01jq7v01x4m2c8w6t0r9b5k3n1p7","senderType":"USER","content":"On it.","fileUrl":null,"fileName":null,"fileSize":null,"mimeType":null,"createdAt":"2026-03-14T09:30:00.000Z"}\n\n: keep-alive\n\n',
      '404': { error: 'Task not found' },
    },
  },
  // GET /chats
  listChats: {
    responses: {
      '200': {
        chats: [
          {
            id: 'cht_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            taskId: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            task: { title: 'Photo of the town hall', status: 'ASSIGNED' },
            user: { id: 'wrk_01jq7v01x4m2c8w6t0r9b5k3n1p7', username: null, firstName: 'Ana' },
            agent: { id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7', name: 'Photo agent' },
            lastMessage: { content: 'On it.', senderType: 'USER', createdAt: '2026-03-14T09:30:00.000Z' },
            closed: false,
            updatedAt: '2026-03-14T09:30:00.000Z',
          },
        ],
        nextCursor: null,
        hasMore: false,
      },
    },
  },
  // GET /files/{id}/{name}
  getFile: {
    responses: { '404': { error: 'File not found' } },
  },
  // POST /chat/{taskId}/messages
  sendMessage: {
    request: { content: 'Thanks! The front, please.' },
    responses: {
      '201': {
        message: {
          id: 'msg_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          senderId: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          senderType: 'AGENT',
          content: 'Thanks! The front, please.',
          fileUrl: null,
          fileName: null,
          fileSize: null,
          mimeType: null,
          createdAt: '2026-03-14T09:30:00.000Z',
        },
      },
      '404': { error: 'Task not found' },
      '409': {
        error:
          'This chat is closed (the task was cancelled or its worker ran out of time); it stays readable',
      },
    },
  },
  // POST /upload
  uploadFile: {
    request: { filename: 'brief.pdf', contentType: 'application/pdf' },
    responses: {
      '200': {
        uploadUrl:
          'http://localhost:3000/uploads/upl_01jq7v02x4m2c8w6t0r9b5k3n1p7?expires=1893456900000&signature=VUFEzeVzktS3jjzBmqHyL03UHgeT3ZrNe26ovu5HGiI',
        fileUrl: 'http://localhost:3000/files/upl_01jq7v02x4m2c8w6t0r9b5k3n1p7/brief.pdf',
        expiresAt: '2026-03-14T09:45:00.000Z',
      },
    },
  },
  // PUT /uploads/{id}
  uploadToSignedUrl: {
    responses: {
      '200': {
        fileUrl: 'http://localhost:3000/files/upl_01jq7v01x4m2c8w6t0r9b5k3n1p7/town-hall.jpg',
        fileName: 'town-hall.jpg',
        fileSize: 9,
        mimeType: 'image/jpeg',
      },
      '404': { error: 'Upload not found' },
      '409': { error: 'This upload URL was already used; request a new one' },
    },
  },
};

import type { OperationExamples } from './types.js';

/** Examples of the worker API (the Mini App), by operationId (see ./types.ts). */
export const workerExamples: Record<string, OperationExamples> = {
  // GET /worker/applications
  listWorkerApplications: {
    responses: {
      '200': {
        applications: [
          {
            id: 'app_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            taskId: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            status: 'PENDING',
            message: 'I am on the square now',
            createdAt: '2026-03-14T09:30:00.000Z',
            task: { title: 'Photo of the town hall', status: 'FUNDED', reward: '6.5', currency: 'TON' },
          },
        ],
        nextCursor: null,
        hasMore: false,
      },
    },
  },
  // GET /worker/assignments
  listAssignments: {
    responses: {
      '200': {
        tasks: [
          {
            id: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            title: 'Photo of the town hall',
            description: 'Today, from the square',
            currency: 'TON',
            reward: '6.5',
            status: 'IN_PROGRESS',
            executionDeadlineDays: 3,
            executionDeadline: '2030-01-04T00:00:00.000Z',
            createdAt: '2026-03-14T09:30:00.000Z',
            agent: {
              id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
              name: 'Photo agent',
              tasksPaid: 0,
              averageRating: null,
              ratingCount: 0,
              disputesLost: 0,
              medianReviewHours: null,
            },
            reviewHours: 48,
            reviewDeadline: null,
            revisionCount: 0,
            location: { latitude: 52.5163, longitude: 13.3777, radiusMeters: 300, label: 'Pariser Platz' },
          },
        ],
        nextCursor: null,
        hasMore: false,
      },
    },
  },
  // GET /worker/chat/{taskId}/messages
  workerGetMessages: {
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
  // GET /worker/chat/{taskId}/stream
  workerStreamMessages: {
    responses: {
      '200':
        'id: msg_01jq7v01x4m2c8w6t0r9b5k3n1p7\nevent: message\ndata: {"id":"msg_01jq7v01x4m2c8w6t0r9b5k3n1p7","senderId":"agt_01jq7v01x4m2c8w6t0r9b5k3n1p7","senderType":"AGENT","content":"Thanks! The front, please.","fileUrl":null,"fileName":null,"fileSize":null,"mimeType":null,"createdAt":"2026-03-14T09:30:00.000Z"}\n\n: keep-alive\n\n',
      '404': { error: 'Task not found' },
    },
  },
  // GET /worker/chats
  workerListChats: {
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
  // GET /worker/chats/unread
  workerUnreadCounts: {
    responses: { '200': { total: 1, chats: [{ taskId: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7', unread: 1 }] } },
  },
  // GET /worker/earnings
  workerEarnings: {
    responses: {
      '200': {
        paid: '9',
        onTheWay: '0',
        inReview: '0',
        inReviewTasks: 0,
        currency: 'TON',
        byCurrency: {
          TON: { paid: '9', onTheWay: '0', inReview: '0', inReviewTasks: 0 },
          USDT: { paid: '0', onTheWay: '0', inReview: '0', inReviewTasks: 0 },
        },
      },
    },
  },
  // GET /worker/me
  getWorkerProfile: {
    responses: {
      '200': {
        worker: {
          id: 'wrk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          telegramUsername: 'ana_photos',
          firstName: 'Ana',
          lastName: null,
          headline: '',
          bio: null,
          city: null,
          state: null,
          country: null,
          timezone: null,
          skills: [],
          socialLinks: {},
          hourlyRate: null,
          available: true,
          completedTasks: 0,
          totalEarned: '0',
          avgRating: null,
          ratingCount: 0,
          memberSince: '2026-03-14T09:30:00.000Z',
          walletAddress: null,
          showTelegram: false,
          language: 'en',
          earnings: { TON: '0', USDT: '0' },
        },
      },
    },
  },
  // GET /worker/offers
  listOffers: {
    responses: {
      '200': {
        tasks: [
          {
            id: 'tsk_01jq7v05x4m2c8w6t0r9b5k3n1p7',
            title: 'Count the bikes',
            description: 'At the station',
            currency: 'TON',
            reward: '4',
            status: 'OFFERED',
            executionDeadlineDays: 7,
            executionDeadline: null,
            createdAt: '2026-03-14T09:30:00.000Z',
            agent: {
              id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
              name: 'Photo agent',
              tasksPaid: 2,
              averageRating: 5,
              ratingCount: 1,
              disputesLost: 1,
              medianReviewHours: 0,
            },
            reviewHours: 72,
            reviewDeadline: null,
            revisionCount: 0,
            location: null,
          },
        ],
        nextCursor: null,
        hasMore: false,
      },
    },
  },
  // GET /worker/payouts
  workerListPayouts: {
    responses: {
      '200': {
        payouts: [
          {
            id: 'txn_01jq7v02x4m2c8w6t0r9b5k3n1p7',
            taskId: 'tsk_01jq7v02x4m2c8w6t0r9b5k3n1p7',
            taskTitle: 'Price of milk',
            amount: '5',
            currency: 'TON',
            status: 'confirmed',
            toAddress: '0QA9q04oVvvcDgRJnEHxFFY7Y1kfd0Xkm5K6fT4uVsHuy8n7',
            txHash: '2acca358b136f6175fd2b96ea7b3d84fc3d44ae0468fdd786727b5b294ac1a6e',
            explorerUrl: null,
            createdAt: '2026-03-14T09:30:00.000Z',
          },
          {
            id: 'txn_01jq7v03x4m2c8w6t0r9b5k3n1p7',
            taskId: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            taskTitle: 'Photo of the town hall',
            amount: '4',
            currency: 'TON',
            status: 'confirmed',
            toAddress: '0QA9q04oVvvcDgRJnEHxFFY7Y1kfd0Xkm5K6fT4uVsHuy8n7',
            txHash: '9e2f2ed7822a039405aca505864c2c2da1915458e0e56218f09186e450ed5af8',
            explorerUrl: null,
            createdAt: '2026-03-14T09:30:00.000Z',
          },
        ],
        nextCursor: null,
        hasMore: false,
      },
    },
  },
  // GET /worker/ratings
  workerRatings: {
    responses: {
      '200': {
        ratings: [
          {
            id: 'rat_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            taskId: 'tsk_01jq7v02x4m2c8w6t0r9b5k3n1p7',
            taskTitle: 'Price of milk',
            score: 5,
            comment: 'Quick and exact',
            createdAt: '2026-03-14T09:30:00.000Z',
          },
        ],
        nextCursor: null,
        hasMore: false,
      },
    },
  },
  // GET /worker/tasks
  listOpenTasks: {
    responses: {
      '200': {
        tasks: [
          {
            id: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            title: 'Photo of the town hall',
            description: 'Today, from the square',
            currency: 'TON',
            reward: '6.5',
            status: 'FUNDED',
            executionDeadlineDays: 3,
            executionDeadline: null,
            createdAt: '2026-03-14T09:30:00.000Z',
            agent: {
              id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
              name: 'Photo agent',
              tasksPaid: 0,
              averageRating: null,
              ratingCount: 0,
              disputesLost: 0,
              medianReviewHours: null,
            },
            reviewHours: 48,
            reviewDeadline: null,
            revisionCount: 0,
            location: { latitude: 52.5163, longitude: 13.3777, radiusMeters: 300, label: 'Pariser Platz' },
            applicants: 0,
            yourApplication: null,
          },
          {
            id: 'tsk_01jq7v01x9d3f6h8k2m4p7r0t5',
            title: 'Photograph the menu of a café in Mitte',
            description: 'One café each; the whole menu, readable, today',
            currency: 'TON',
            reward: '2',
            status: 'FUNDED',
            executionDeadlineDays: 7,
            executionDeadline: null,
            createdAt: '2026-03-14T09:00:00.000Z',
            agent: {
              id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
              name: 'Photo agent',
              tasksPaid: 0,
              averageRating: null,
              ratingCount: 0,
              disputesLost: 0,
              medianReviewHours: null,
            },
            reviewHours: 72,
            reviewDeadline: null,
            revisionCount: 0,
            location: null,
            applicants: 0,
            yourApplication: null,
            batch: {
              id: 'bat_01jq7v01x4m2c8w6t0r9b5k3n1p7',
              count: 50,
              placesLeft: 18,
              maxPerWorker: 1,
              yourPlaces: 0,
            },
          },
        ],
        nextCursor: null,
        hasMore: false,
      },
    },
  },
  // GET /worker/tasks/{id}
  getWorkerTask: {
    responses: {
      '200': {
        task: {
          id: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          title: 'Photo of the town hall',
          description: 'Today, from the square',
          currency: 'TON',
          reward: '6.5',
          status: 'IN_PROGRESS',
          executionDeadlineDays: 3,
          executionDeadline: '2030-01-04T00:00:00.000Z',
          createdAt: '2026-03-14T09:30:00.000Z',
          agent: {
            id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            name: 'Photo agent',
            tasksPaid: 0,
            averageRating: null,
            ratingCount: 0,
            disputesLost: 0,
            medianReviewHours: null,
          },
          reviewHours: 48,
          reviewDeadline: null,
          revisionCount: 0,
          location: { latitude: 52.5163, longitude: 13.3777, radiusMeters: 300, label: 'Pariser Platz' },
          dispute: null,
          submission: null,
          applicants: 1,
          yourApplication: 'ACCEPTED',
          yourRating: null,
        },
      },
      '404': { error: 'Task not found' },
    },
  },
  // POST /worker/tasks/{id}/partial/accept
  acceptPartialPayment: {
    responses: {
      '200': {
        task: {
          id: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          title: 'Photos of five shelves',
          description: 'Each shelf from the front',
          currency: 'TON',
          reward: '5',
          status: 'COMPLETED',
          executionDeadlineDays: 3,
          executionDeadline: '2030-01-04T00:00:00.000Z',
          createdAt: '2026-03-14T09:30:00.000Z',
          agent: {
            id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            name: 'Photo agent',
            tasksPaid: 1,
            averageRating: null,
            ratingCount: 0,
            disputesLost: 0,
            medianReviewHours: 2,
          },
          reviewHours: 72,
          reviewDeadline: null,
          revisionCount: 0,
          location: null,
          settlement: { workerAmount: '3', decidedBy: 'agent', currency: 'TON' },
        },
        payment: {
          amount: '3',
          currency: 'TON',
          toAddress: '0QA9q04oVvvcDgRJnEHxFFY7Y1kfd0Xkm5K6fT4uVsHuy8n7',
          txHash: '2acca358b136f6175fd2b96ea7b3d84fc3d44ae0468fdd786727b5b294ac1a6e',
          pending: false,
        },
      },
      '404': { error: 'Task not found' },
      '409': {
        error: 'No partial payment is offered for this task; there is nothing to accept',
        currentStatus: 'REVIEW',
      },
    },
  },
  // GET /worker/tasks/{id}/submissions
  listMySubmissions: {
    responses: {
      '200': {
        submissions: [
          {
            id: 'sub_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            number: 1,
            note: 'The front, from the square',
            attachments: [
              {
                fileUrl: 'http://localhost:3000/files/upl_01jq7v01x4m2c8w6t0r9b5k3n1p7/town-hall.jpg',
                name: 'town-hall.jpg',
                contentType: 'image/jpeg',
                size: 9,
              },
            ],
            location: { latitude: 52.5162, longitude: 13.3778, accuracyMeters: 12, withinArea: true },
            createdAt: '2026-03-14T09:30:00.000Z',
            status: 'PENDING',
            revisionReason: null,
          },
        ],
      },
      '404': { error: 'Task not found' },
    },
  },
  // PATCH /worker/me
  updateWorkerProfile: {
    request: {
      headline: 'Photos around Berlin Mitte',
      skills: ['photography'],
      country: 'DE',
      available: true,
      hourlyRate: '12',
    },
    responses: {
      '200': {
        worker: {
          id: 'wrk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          telegramUsername: 'ana_photos',
          firstName: 'Ana',
          lastName: null,
          headline: 'Photos around Berlin Mitte',
          bio: null,
          city: null,
          state: null,
          country: 'DE',
          timezone: null,
          skills: ['photography'],
          socialLinks: {},
          hourlyRate: '12',
          available: true,
          completedTasks: 0,
          totalEarned: '0',
          avgRating: null,
          ratingCount: 0,
          memberSince: '2026-03-14T09:30:00.000Z',
          walletAddress: null,
          showTelegram: false,
          language: 'en',
          earnings: { TON: '0', USDT: '0' },
        },
      },
    },
  },
  // PATCH /worker/tasks/{id}
  updateWorkerTaskStatus: {
    request: { status: 'IN_PROGRESS' },
    responses: {
      '200': {
        task: {
          id: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          title: 'Photo of the town hall',
          description: 'Today, from the square',
          currency: 'TON',
          reward: '6.5',
          status: 'IN_PROGRESS',
          executionDeadlineDays: 3,
          executionDeadline: '2030-01-04T00:00:00.000Z',
          createdAt: '2026-03-14T09:30:00.000Z',
          agent: {
            id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            name: 'Photo agent',
            tasksPaid: 0,
            averageRating: null,
            ratingCount: 0,
            disputesLost: 0,
            medianReviewHours: null,
          },
          reviewHours: 48,
          reviewDeadline: null,
          revisionCount: 0,
          location: { latitude: 52.5163, longitude: 13.3777, radiusMeters: 300, label: 'Pariser Platz' },
          submission: null,
        },
      },
      '404': { error: 'Task not found' },
      '409': { error: 'Invalid status transition', currentStatus: 'REVIEW', requestedStatus: 'IN_PROGRESS' },
    },
  },
  // POST /worker/chat/{taskId}/messages
  workerSendMessage: {
    request: { content: 'On it.' },
    responses: {
      '201': {
        message: {
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
      },
      '404': { error: 'Task not found' },
      '409': {
        error:
          'This chat is closed (the task was cancelled or its worker ran out of time); it stays readable',
      },
    },
  },
  // POST /worker/me/wallet/challenge
  createWalletChallenge: {
    responses: {
      '201': {
        payload: 'dd6b2f9f9bc2f3fa41adfeae6ad81214fc1d2c866bf48b0166a5bd868089fac1',
        expiresAt: '2026-03-14T09:45:00.000Z',
      },
    },
  },
  // POST /worker/offers/{taskId}/accept
  acceptOffer: {
    responses: {
      '200': {
        task: {
          id: 'tsk_01jq7v05x4m2c8w6t0r9b5k3n1p7',
          title: 'Count the bikes',
          description: 'At the station',
          currency: 'TON',
          reward: '4',
          status: 'ASSIGNED',
          executionDeadlineDays: 7,
          executionDeadline: '2030-01-08T00:00:00.000Z',
          createdAt: '2026-03-14T09:30:00.000Z',
          agent: {
            id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            name: 'Photo agent',
            tasksPaid: 2,
            averageRating: 5,
            ratingCount: 1,
            disputesLost: 1,
            medianReviewHours: 0,
          },
          reviewHours: 72,
          reviewDeadline: null,
          revisionCount: 0,
          location: null,
        },
        chat: { id: 'cht_01jq7v02x4m2c8w6t0r9b5k3n1p7' },
      },
      '404': { error: 'Offer not found' },
      '409': { error: 'This offer is no longer open: the task is ASSIGNED', currentStatus: 'ASSIGNED' },
    },
  },
  // POST /worker/offers/{taskId}/decline
  declineOffer: {
    responses: {
      '200': {
        task: {
          id: 'tsk_01jq7v06x4m2c8w6t0r9b5k3n1p7',
          title: 'Count the cars',
          description: 'At the station',
          currency: 'TON',
          reward: '4',
          status: 'FUNDED',
          executionDeadlineDays: 7,
          executionDeadline: null,
          createdAt: '2026-03-14T09:30:00.000Z',
          agent: {
            id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            name: 'Photo agent',
            tasksPaid: 2,
            averageRating: 5,
            ratingCount: 1,
            disputesLost: 1,
            medianReviewHours: 0,
          },
          reviewHours: 72,
          reviewDeadline: null,
          revisionCount: 0,
          location: null,
        },
      },
      '404': { error: 'Offer not found' },
      '409': { error: 'This offer is no longer open: the task is ASSIGNED', currentStatus: 'ASSIGNED' },
    },
  },
  // POST /worker/tasks/{id}/applications
  applyToTask: {
    request: { message: 'I am on the square now' },
    responses: {
      '201': {
        application: {
          id: 'app_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          taskId: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          status: 'PENDING',
          message: 'I am on the square now',
          createdAt: '2026-03-14T09:30:00.000Z',
        },
      },
      '404': { error: 'Task not found' },
      '409': { error: 'You have already applied to this task' },
    },
  },
  // POST /worker/batches/{id}/applications
  applyToBatch: {
    request: { message: 'I live nearby and can go today' },
    responses: {
      '201': {
        application: {
          id: 'app_01jq7v4c2n8m5x1w7t3r9b6k0p',
          taskId: 'tsk_01jq7v01x9d3f6h8k2m4p7r0t5',
          status: 'PENDING',
          message: 'I live nearby and can go today',
          createdAt: '2026-03-14T10:05:00.000Z',
        },
      },
      '404': { error: 'Batch not found' },
      '409': {
        error: 'This batch is full: every place is taken. Choose another task from the list',
        batchId: 'bat_01jq7v01x4m2c8w6t0r9b5k3n1p7',
      },
    },
  },
  // POST /worker/tasks/{id}/dispute
  openWorkerDispute: {
    request: { reason: 'The agent asks for a photo of the front, which is under scaffolding' },
    responses: {
      '201': {
        dispute: {
          id: 'dsp_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          status: 'OPEN',
          openedBy: 'WORKER',
          reason: 'The agent asks for a photo of the front, which is under scaffolding',
          statements: [],
          resolution: null,
        },
      },
      '404': { error: 'Task not found' },
      '409': {
        error:
          'A dispute can be opened after the agent asked for a revision of your submitted work, or offered only part of the reward for it',
        currentStatus: 'REVIEW',
        submissionStatus: 'PENDING',
      },
    },
  },
  // POST /worker/tasks/{id}/dispute/statements
  addWorkerDisputeStatement: {
    request: {
      text: 'The front is under scaffolding',
      attachments: ['http://localhost:3000/files/upl_01jq7v01x4m2c8w6t0r9b5k3n1p7/town-hall.jpg'],
    },
    responses: {
      '201': {
        statement: {
          by: 'WORKER',
          text: 'The front is under scaffolding',
          attachments: [
            {
              fileUrl: 'http://localhost:3000/files/upl_01jq7v01x4m2c8w6t0r9b5k3n1p7/town-hall.jpg',
              name: 'town-hall.jpg',
              contentType: 'image/jpeg',
              size: 9,
            },
          ],
          createdAt: '2026-03-14T09:30:00.000Z',
        },
        dispute: {
          id: 'dsp_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          status: 'OPEN',
          openedBy: 'AGENT',
          reason: 'The photo shows the back of the building',
          statements: [
            {
              by: 'AGENT',
              text: 'The task asked for the front',
              attachments: [],
              createdAt: '2026-03-14T09:30:00.000Z',
            },
            {
              by: 'WORKER',
              text: 'The front is under scaffolding',
              attachments: [
                {
                  fileUrl: 'http://localhost:3000/files/upl_01jq7v01x4m2c8w6t0r9b5k3n1p7/town-hall.jpg',
                  name: 'town-hall.jpg',
                  contentType: 'image/jpeg',
                  size: 9,
                },
              ],
              createdAt: '2026-03-14T09:30:00.000Z',
            },
          ],
          resolution: null,
        },
      },
      '404': { error: 'Task not found' },
      '409': {
        error: 'Each side may add at most 20 statements to a dispute; put the rest in one statement',
        disputeId: 'dsp_01jq7v01x4m2c8w6t0r9b5k3n1p7',
      },
    },
  },
  // POST /worker/tasks/{id}/rate
  rateAgent: {
    request: { score: 5, comment: 'Clear brief' },
    responses: {
      '201': {
        rating: {
          id: 'rat_01jq7v02x4m2c8w6t0r9b5k3n1p7',
          taskId: 'tsk_01jq7v02x4m2c8w6t0r9b5k3n1p7',
          raterType: 'USER',
          score: 5,
          comment: 'Clear brief',
          createdAt: '2026-03-14T09:30:00.000Z',
        },
      },
      '404': { error: 'Task not found' },
      '409': { error: 'Already rated this task' },
    },
  },
  // POST /worker/tasks/{id}/submissions
  submitWork: {
    request: {
      note: 'The front, from the square',
      attachments: ['http://localhost:3000/files/upl_01jq7v01x4m2c8w6t0r9b5k3n1p7/town-hall.jpg'],
      location: { latitude: 52.5162, longitude: 13.3778, accuracyMeters: 12 },
    },
    responses: {
      '201': {
        submission: {
          id: 'sub_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          number: 1,
          note: 'The front, from the square',
          attachments: [
            {
              fileUrl: 'http://localhost:3000/files/upl_01jq7v01x4m2c8w6t0r9b5k3n1p7/town-hall.jpg',
              name: 'town-hall.jpg',
              contentType: 'image/jpeg',
              size: 9,
            },
          ],
          location: { latitude: 52.5162, longitude: 13.3778, accuracyMeters: 12, withinArea: true },
          createdAt: '2026-03-14T09:30:00.000Z',
          status: 'PENDING',
          revisionReason: null,
        },
        task: {
          id: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          title: 'Photo of the town hall',
          description: 'Today, from the square',
          currency: 'TON',
          reward: '6.5',
          status: 'REVIEW',
          executionDeadlineDays: 3,
          executionDeadline: '2030-01-04T00:00:00.000Z',
          createdAt: '2026-03-14T09:30:00.000Z',
          agent: {
            id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            name: 'Photo agent',
            tasksPaid: 0,
            averageRating: null,
            ratingCount: 0,
            disputesLost: 0,
            medianReviewHours: null,
          },
          reviewHours: 48,
          reviewDeadline: '2030-01-03T00:00:00.000Z',
          revisionCount: 0,
          location: { latitude: 52.5163, longitude: 13.3777, radiusMeters: 300, label: 'Pariser Platz' },
          submission: {
            id: 'sub_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            number: 1,
            note: 'The front, from the square',
            attachments: [
              {
                fileUrl: 'http://localhost:3000/files/upl_01jq7v01x4m2c8w6t0r9b5k3n1p7/town-hall.jpg',
                name: 'town-hall.jpg',
                contentType: 'image/jpeg',
                size: 9,
              },
            ],
            location: { latitude: 52.5162, longitude: 13.3778, accuracyMeters: 12, withinArea: true },
            createdAt: '2026-03-14T09:30:00.000Z',
            status: 'PENDING',
            revisionReason: null,
          },
        },
      },
      '404': { error: 'Task not found' },
      '409': {
        error: 'Work can be submitted only while the task is ASSIGNED or IN_PROGRESS',
        currentStatus: 'REVIEW',
      },
    },
  },
  // POST /worker/upload
  workerUploadFile: {
    request: { filename: 'town-hall.jpg', contentType: 'image/jpeg' },
    responses: {
      '200': {
        uploadUrl:
          'http://localhost:3000/uploads/upl_01jq7v01x4m2c8w6t0r9b5k3n1p7?expires=1893456900000&signature=Gu4Yvxx1gd21fqZVEaUASbgiz4W0p5xFlcIEs1SPrhI',
        fileUrl: 'http://localhost:3000/files/upl_01jq7v01x4m2c8w6t0r9b5k3n1p7/town-hall.jpg',
        expiresAt: '2026-03-14T09:45:00.000Z',
      },
    },
  },
  // PUT /worker/chat/{taskId}/read
  workerMarkChatRead: {
    request: { messageId: 'msg_01jq7v02x4m2c8w6t0r9b5k3n1p7' },
    responses: {
      '200': { moved: true },
      '400': {
        error: 'Validation failed',
        details: [{ path: 'messageId', message: "must have required property 'messageId'" }],
      },
      '404': { error: 'Chat not found' },
    },
  },
  // PUT /worker/me/wallet
  connectWallet: {
    request: { address: '0QA9q04oVvvcDgRJnEHxFFY7Y1kfd0Xkm5K6fT4uVsHuy8n7' },
    responses: {
      '200': {
        worker: {
          id: 'wrk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          telegramUsername: 'ana_photos',
          firstName: 'Ana',
          lastName: null,
          headline: 'Photos around Berlin Mitte',
          bio: null,
          city: null,
          state: null,
          country: 'DE',
          timezone: null,
          skills: ['photography'],
          socialLinks: {},
          hourlyRate: '12',
          available: true,
          completedTasks: 0,
          totalEarned: '0',
          avgRating: null,
          ratingCount: 0,
          memberSince: '2026-03-14T09:30:00.000Z',
          walletAddress: '0QA9q04oVvvcDgRJnEHxFFY7Y1kfd0Xkm5K6fT4uVsHuy8n7',
          showTelegram: false,
          language: 'en',
          earnings: { TON: '0', USDT: '0' },
        },
      },
      '409': {
        error: 'You cannot change your wallet while a task is assigned to you; finish the task first',
      },
    },
  },
};

import type { OperationExamples } from './types.js';

/** Examples of tasks, applications, reviews, disputes and ratings, by operationId (see ./types.ts). */
export const tasksExamples: Record<string, OperationExamples> = {
  // DELETE /tasks/{id}
  cancelTask: {
    responses: {
      '200': {
        success: true,
        task: { id: 'tsk_01jq7v03x4m2c8w6t0r9b5k3n1p7', status: 'CANCELLED', paymentStatus: 'REFUNDED' },
        refund: { amount: '2.6', destination: 'agent_balance', currency: 'TON' },
      },
      '404': { error: 'Task not found' },
      '409': { error: 'Task is assigned; use POST /tasks/:id/refund', currentStatus: 'ASSIGNED' },
    },
  },
  // GET /agents/tasks
  listTasks: {
    responses: {
      '200': {
        tasks: [
          {
            id: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            title: 'Photo of the town hall',
            description: 'Today, from the square',
            currency: 'TON',
            reward: '6.5',
            platformFee: '1.95',
            totalAmount: '8.45',
            status: 'FUNDED',
            paymentStatus: 'DEPOSITED',
            executionDeadlineDays: 7,
            executionDeadline: null,
            webhookUrl: null,
            createdAt: '2026-03-14T09:30:00.000Z',
            updatedAt: '2026-03-14T09:30:00.000Z',
            agent: { id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7', name: 'Photo agent' },
            livemode: true,
            worker: null,
            applicationCount: 0,
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
  // GET /tasks/{id}
  getTask: {
    responses: {
      '200': {
        task: {
          id: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          title: 'Photo of the town hall',
          description: 'Today, from the square',
          currency: 'TON',
          reward: '6.5',
          platformFee: '1.95',
          totalAmount: '8.45',
          status: 'FUNDED',
          paymentStatus: 'DEPOSITED',
          executionDeadlineDays: 7,
          executionDeadline: null,
          webhookUrl: null,
          createdAt: '2026-03-14T09:30:00.000Z',
          updatedAt: '2026-03-14T09:30:00.000Z',
          agent: { id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7', name: 'Photo agent' },
          livemode: true,
          worker: null,
          applications: [],
          reviewHours: 48,
          reviewDeadline: null,
          revisionCount: 0,
          location: { latitude: 52.5163, longitude: 13.3777, radiusMeters: 300, label: 'Pariser Platz' },
          dispute: null,
          submission: null,
        },
      },
      '404': { error: 'Task not found' },
    },
  },
  // GET /tasks/{id}/applications
  listApplications: {
    responses: {
      '200': {
        applications: [
          {
            id: 'app_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            status: 'PENDING',
            message: 'I am on the square now',
            createdAt: '2026-03-14T09:30:00.000Z',
            user: {
              id: 'wrk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
              username: null,
              firstName: 'Ana',
              lastName: null,
              walletAddress: '0QA9q04oVvvcDgRJnEHxFFY7Y1kfd0Xkm5K6fT4uVsHuy8n7',
            },
          },
        ],
        nextCursor: null,
        hasMore: false,
      },
      '404': { error: 'Task not found' },
    },
  },
  // GET /tasks/{id}/ratings
  getTaskRatings: {
    responses: {
      '200': {
        agentRating: {
          id: 'rat_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          taskId: 'tsk_01jq7v02x4m2c8w6t0r9b5k3n1p7',
          raterType: 'AGENT',
          score: 5,
          comment: 'Quick and exact',
          createdAt: '2026-03-14T09:30:00.000Z',
        },
        workerRating: null,
      },
      '404': { error: 'Task not found' },
    },
  },
  // GET /tasks/{id}/submissions
  listSubmissions: {
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
  // PATCH /applications/{id}
  acceptApplication: {
    request: { status: 'ACCEPTED' },
    responses: {
      '200': {
        application: {
          id: 'app_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          status: 'ACCEPTED',
          user: { id: 'wrk_01jq7v01x4m2c8w6t0r9b5k3n1p7', username: null, firstName: 'Ana' },
        },
        chat: { id: 'cht_01jq7v01x4m2c8w6t0r9b5k3n1p7' },
        message: 'Ana is assigned; the execution deadline is 2030-01-04T00:00:00.000Z.',
      },
      '404': { error: 'Application not found' },
      '409': {
        error: 'This application is ACCEPTED; only PENDING applications can be accepted',
        currentStatus: 'ACCEPTED',
      },
    },
  },
  // PATCH /tasks/{id}
  updateTaskStatus: {
    request: { status: 'IN_PROGRESS' },
    responses: {
      '200': {
        task: {
          id: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          title: 'Photo of the town hall',
          description: 'Today, from the square',
          currency: 'TON',
          reward: '6.5',
          platformFee: '1.95',
          totalAmount: '8.45',
          status: 'FUNDED',
          paymentStatus: 'DEPOSITED',
          executionDeadlineDays: 3,
          executionDeadline: null,
          webhookUrl: null,
          createdAt: '2026-03-14T09:30:00.000Z',
          updatedAt: '2026-03-14T09:30:00.000Z',
          agent: { id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7', name: 'Photo agent' },
          livemode: true,
          worker: null,
          reviewHours: 48,
          reviewDeadline: null,
          revisionCount: 0,
          location: { latitude: 52.5163, longitude: 13.3777, radiusMeters: 300, label: 'Pariser Platz' },
        },
      },
      '404': { error: 'Task not found' },
      '409': { error: 'Invalid status transition', currentStatus: 'FUNDED', requestedStatus: 'IN_PROGRESS' },
    },
  },
  // POST /tasks
  createTask: {
    request: {
      title: 'Photo of the town hall',
      description: 'Today, from the square',
      reward: '6.5',
      reviewHours: 48,
      location: { latitude: 52.5163, longitude: 13.3777, radiusMeters: 300, label: 'Pariser Platz' },
    },
    responses: {
      '201': {
        task: {
          id: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          title: 'Photo of the town hall',
          description: 'Today, from the square',
          currency: 'TON',
          reward: '6.5',
          platformFee: '1.95',
          totalAmount: '8.45',
          status: 'FUNDED',
          paymentStatus: 'DEPOSITED',
          executionDeadlineDays: 7,
          executionDeadline: null,
          webhookUrl: null,
          createdAt: '2026-03-14T09:30:00.000Z',
          updatedAt: '2026-03-14T09:30:00.000Z',
          agent: { id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7', name: 'Photo agent' },
          livemode: true,
          worker: null,
          reviewHours: 48,
          reviewDeadline: null,
          revisionCount: 0,
          location: { latitude: 52.5163, longitude: 13.3777, radiusMeters: 300, label: 'Pariser Platz' },
        },
      },
      '202': {
        approval: {
          id: 'apr_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          status: 'PENDING',
          task: { title: 'Photo of the town hall', description: 'Today, from the square', reward: '60' },
          amount: '78',
          currency: 'TON',
          taskId: null,
          failure: null,
          createdAt: '2026-03-14T09:30:00.000Z',
          expiresAt: '2026-03-15T09:30:00.000Z',
          decidedAt: null,
        },
      },
      '402': {
        error: 'Insufficient balance',
        currentBalance: '91.55',
        requiredAmount: '130000',
        currency: 'TON',
        message:
          'This task costs 130000 TON (reward 100000 TON + 30% fee 30000 TON); your TON balance is 91.55 TON. Top up your TON balance and try again.',
      },
      '403': {
        error:
          "This task's total 8.45 TON would pass this key's dailyLimit of 50 TON: 45 TON used today (UTC), 5 TON left; nothing was escrowed. Post a task of at most 5 TON, wait for the next day, or ask the owner to raise the limit.",
        limit: 'dailyLimit',
        currency: 'TON',
        limitAmount: '50',
        requested: '8.45',
        used: '45',
        left: '5',
      },
      '404': { error: 'Worker not found' },
      '409': {
        error: 'This worker has no connected TON wallet yet and cannot receive offers; choose another worker',
      },
    },
  },
  // POST /tasks/{id}/complete
  completeTask: {
    responses: {
      '200': {
        success: true,
        task: { id: 'tsk_01jq7v02x4m2c8w6t0r9b5k3n1p7', status: 'COMPLETED', paymentStatus: 'RELEASED' },
        payment: {
          amount: '5',
          currency: 'TON',
          toAddress: '0QA9q04oVvvcDgRJnEHxFFY7Y1kfd0Xkm5K6fT4uVsHuy8n7',
          txHash: '2acca358b136f6175fd2b96ea7b3d84fc3d44ae0468fdd786727b5b294ac1a6e',
          status: 'confirmed',
          pending: false,
          recipient: { id: 'wrk_01jq7v01x4m2c8w6t0r9b5k3n1p7', username: null, firstName: 'Ana' },
        },
        fee: {
          amount: '1.5',
          currency: 'TON',
          toAddress: '0QCtWqllPGRJ1b0nGV8p3Jp5Up1sXu-6bI7txMTwm3caq7j6',
          txHash: 'ce156b53634a55c201367d3893c729b182a8666ee1b769c474ac908e52548c64',
          success: true,
        },
      },
      '404': { error: 'Task not found' },
      '409': {
        error:
          'A dispute is open on this task: the escrow stays locked until an operator resolves it. Add your evidence with the dispute statements route',
        currentStatus: 'REVIEW',
        disputeId: 'dsp_01jq7v01x4m2c8w6t0r9b5k3n1p7',
      },
    },
  },
  // POST /tasks/{id}/dispute
  openDispute: {
    request: { reason: 'The photo shows the back of the building' },
    responses: {
      '201': {
        dispute: {
          id: 'dsp_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          status: 'OPEN',
          openedBy: 'AGENT',
          reason: 'The photo shows the back of the building',
          statements: [],
          resolution: null,
        },
      },
      '404': { error: 'Task not found' },
      '409': {
        error:
          'A dispute can be opened while a submission waits for your review, or after you asked for a revision',
        currentStatus: 'IN_PROGRESS',
        submissionStatus: null,
      },
    },
  },
  // POST /tasks/{id}/dispute/statements
  addDisputeStatement: {
    request: { text: 'The task asked for the front' },
    responses: {
      '201': {
        statement: {
          by: 'AGENT',
          text: 'The task asked for the front',
          attachments: [],
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
          ],
          resolution: null,
        },
      },
      '404': { error: 'Task not found' },
      '409': {
        error: 'The dispute is resolved: statements are closed',
        disputeId: 'dsp_01jq7v01x4m2c8w6t0r9b5k3n1p7',
      },
    },
  },
  // POST /tasks/{id}/rate
  rateWorker: {
    request: { score: 5, comment: 'Quick and exact' },
    responses: {
      '201': {
        rating: {
          id: 'rat_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          taskId: 'tsk_01jq7v02x4m2c8w6t0r9b5k3n1p7',
          raterType: 'AGENT',
          score: 5,
          comment: 'Quick and exact',
          createdAt: '2026-03-14T09:30:00.000Z',
        },
      },
      '404': { error: 'Task not found' },
      '409': { error: 'Already rated this task' },
    },
  },
  // POST /tasks/{id}/refund
  refundTask: {
    request: { reason: 'Not needed any more' },
    responses: {
      '200': {
        success: true,
        task: { id: 'tsk_01jq7v04x4m2c8w6t0r9b5k3n1p7', status: 'CANCELLED', paymentStatus: 'REFUNDED' },
        refund: { amount: '3.9', destination: 'agent_balance', currency: 'TON' },
      },
      '404': { error: 'Task not found' },
      '409': { error: 'Cannot refund a completed task', currentStatus: 'COMPLETED' },
    },
  },
  // POST /tasks/{id}/revisions
  requestRevision: {
    request: { reason: 'The photo is blurred; please take it again' },
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
          status: 'REVISION_REQUESTED',
          revisionReason: 'The photo is blurred; please take it again',
        },
        task: {
          id: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          title: 'Photo of the town hall',
          description: 'Today, from the square',
          currency: 'TON',
          reward: '6.5',
          platformFee: '1.95',
          totalAmount: '8.45',
          status: 'IN_PROGRESS',
          paymentStatus: 'DEPOSITED',
          executionDeadlineDays: 3,
          executionDeadline: '2030-01-04T00:00:00.000Z',
          webhookUrl: null,
          createdAt: '2026-03-14T09:30:00.000Z',
          updatedAt: '2026-03-14T09:30:00.000Z',
          agent: { id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7', name: 'Photo agent' },
          livemode: true,
          worker: { id: 'wrk_01jq7v01x4m2c8w6t0r9b5k3n1p7', username: null, firstName: 'Ana' },
          reviewHours: 48,
          reviewDeadline: null,
          revisionCount: 1,
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
            status: 'REVISION_REQUESTED',
            revisionReason: 'The photo is blurred; please take it again',
          },
        },
      },
      '404': { error: 'Task not found' },
      '409': {
        error: 'No submission waits for your review, so there is nothing to revise',
        currentStatus: 'IN_PROGRESS',
      },
    },
  },
  // GET /approvals/{id}
  getApproval: {
    responses: {
      '200': {
        approval: {
          id: 'apr_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          status: 'APPROVED',
          task: { title: 'Photo of the town hall', description: 'Today, from the square', reward: '60' },
          amount: '78',
          currency: 'TON',
          taskId: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          failure: null,
          createdAt: '2026-03-14T09:30:00.000Z',
          expiresAt: '2026-03-15T09:30:00.000Z',
          decidedAt: '2026-03-14T10:02:00.000Z',
        },
      },
      '404': { error: 'Approval not found' },
    },
  },
  // GET /approvals
  listApprovals: {
    responses: {
      '200': {
        approvals: [
          {
            id: 'apr_01jq7v02x4m2c8w6t0r9b5k3n1p7',
            status: 'FAILED',
            task: { title: 'Survey the car park', description: 'Count the free places', reward: '100' },
            amount: '130',
            currency: 'TON',
            taskId: null,
            failure: {
              status: 402,
              error:
                'Insufficient balance: This task costs 130\u00a0TON (reward 100\u00a0TON + 30% fee 30\u00a0TON); your TON balance is 12\u00a0TON. Top up your TON balance and try again.',
            },
            createdAt: '2026-03-14T09:30:00.000Z',
            expiresAt: '2026-03-15T09:30:00.000Z',
            decidedAt: '2026-03-14T11:00:00.000Z',
          },
        ],
        nextCursor: null,
        hasMore: false,
      },
    },
  },
};

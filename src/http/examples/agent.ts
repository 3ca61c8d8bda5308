import type { OperationExamples } from './types.js';

/** Examples of your agent, the workers catalog and the ledger, by operationId (see ./types.ts). */
export const agentExamples: Record<string, OperationExamples> = {
  // GET /agents/me
  getAgentProfile: {
    responses: {
      '200': {
        agent: {
          id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          name: 'photo-agent',
          webhookUrl: null,
          balance: '100',
          lockedByTasks: '0',
          balances: {
            TON: { balance: '100', lockedByTasks: '0', lowBalanceThreshold: '10' },
            USDT: { balance: '50', lockedByTasks: '0', lowBalanceThreshold: null },
          },
          createdAt: '2026-03-14T09:30:00.000Z',
          updatedAt: '2026-03-14T09:30:00.000Z',
          taskCount: 0,
          avgRating: null,
          ratingCount: 0,
          livemode: true,
        },
        apiKey: {
          id: 'key_01jq7v01x4m2c8w6t0r9b5k3n1p8',
          name: 'production',
          scopes: ['tasks:read', 'tasks:write', 'chat', 'money', 'webhooks', 'workers:read'],
          spendPolicy: {
            TON: { maxTaskAmount: '13', dailyLimit: '50', monthlyLimit: '500', approvalAbove: null },
            USDT: { maxTaskAmount: null, dailyLimit: null, monthlyLimit: null, approvalAbove: null },
          },
          spending: {
            TON: { spentToday: '6.5', leftToday: '43.5', spentThisMonth: '6.5', leftThisMonth: '493.5' },
            USDT: { spentToday: '0', leftToday: null, spentThisMonth: '0', leftThisMonth: null },
          },
        },
      },
      '401': {
        error: 'Unauthorized',
        reason: 'missing',
        message: 'No API key. Send your API key as: Authorization: Bearer hr_...',
      },
    },
  },
  // GET /agents/me/deposit
  getDepositInfo: {
    responses: {
      '200': {
        network: 'sandbox',
        address: '0QA25wHUxnjJLlvlbdTqtvBbhNSQXqj3K_3RyFtJePtlLzCm',
        memo: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
        link: 'ton://transfer/0QA25wHUxnjJLlvlbdTqtvBbhNSQXqj3K_3RyFtJePtlLzCm?text=agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
        minimum: '0.01',
        currency: 'TON',
      },
      '409': {
        error:
          'USDT deposits need the USDT jetton master, which this service does not know yet (TON_USDT_MASTER)',
      },
    },
  },
  // GET /agents/workers
  searchWorkers: {
    responses: {
      '200': {
        workers: [
          {
            id: 'wrk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            firstName: 'Ana',
            lastName: null,
            headline: 'Photos around Berlin Mitte',
            country: 'DE',
            timezone: null,
            skills: ['photography'],
            hourlyRate: '12',
            completedTasks: 0,
            avgRating: null,
            ratingCount: 0,
            memberSince: '2026-03-14T09:30:00.000Z',
          },
        ],
        nextCursor: null,
        hasMore: false,
        total: 1,
      },
    },
  },
  // GET /agents/workers/{id}
  getWorker: {
    responses: {
      '200': {
        worker: {
          id: 'wrk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
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
        },
      },
      '404': { error: 'Worker not found' },
    },
  },
  // GET /platform/stats
  getPlatformStats: {
    responses: {
      '200': {
        agent: { id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7', name: 'Photo agent' },
        livemode: true,
        tasks: {
          total: 0,
          byStatus: {
            OPEN: 0,
            FUNDED: 0,
            OFFERED: 0,
            ASSIGNED: 0,
            IN_PROGRESS: 0,
            REVIEW: 0,
            COMPLETED: 0,
            CANCELLED: 0,
          },
        },
        transactions: {
          deposits: { count: 1, total: '100' },
          payouts: { count: 0, total: '0' },
          refunds: { count: 0, total: '0' },
        },
        summary: { totalDeposited: '100', totalSpent: '0', platformFeesCollected: '0', currency: 'TON' },
      },
    },
  },
  // GET /transactions
  listTransactions: {
    responses: {
      '200': {
        transactions: [
          {
            id: 'txn_01jq7v04x4m2c8w6t0r9b5k3n1p7',
            type: 'FEE',
            amount: '1.5',
            currency: 'TON',
            fromAddress: '0QDwtnreGUD48luk-IGL8jkXsUHs4gjsp1Nz4AICEo9rzK97',
            toAddress: '0QCtWqllPGRJ1b0nGV8p3Jp5Up1sXu-6bI7txMTwm3caq7j6',
            txHash: 'ce156b53634a55c201367d3893c729b182a8666ee1b769c474ac908e52548c64',
            status: 'confirmed',
            createdAt: '2026-03-14T09:30:00.000Z',
            task: { id: 'tsk_01jq7v02x4m2c8w6t0r9b5k3n1p7', title: 'Price of milk' },
          },
          {
            id: 'txn_01jq7v02x4m2c8w6t0r9b5k3n1p7',
            type: 'PAYOUT',
            amount: '5',
            currency: 'TON',
            fromAddress: '0QDwtnreGUD48luk-IGL8jkXsUHs4gjsp1Nz4AICEo9rzK97',
            toAddress: '0QA9q04oVvvcDgRJnEHxFFY7Y1kfd0Xkm5K6fT4uVsHuy8n7',
            txHash: '2acca358b136f6175fd2b96ea7b3d84fc3d44ae0468fdd786727b5b294ac1a6e',
            status: 'confirmed',
            createdAt: '2026-03-14T09:30:00.000Z',
            task: { id: 'tsk_01jq7v02x4m2c8w6t0r9b5k3n1p7', title: 'Price of milk' },
          },
        ],
        nextCursor:
          'WyIyMDMwLTAxLTAxVDAwOjAwOjAwLjAwMFoiLCJ0eG5fMDFxM2RjYmQwMDAwMWg0Mms3OXIzZnJzN3J0ODdyMHo5Y2EyZGVqbSJd',
        hasMore: true,
      },
    },
  },
  // PATCH /agents/me
  updateAgentProfile: {
    request: { name: 'Photo agent' },
    responses: {
      '200': {
        agent: {
          id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          name: 'Photo agent',
          webhookUrl: null,
          createdAt: '2026-03-14T09:30:00.000Z',
        },
      },
    },
  },
};

import type { OperationExamples } from './types.js';

/** Examples of the operator API and the service routes, by operationId (see ./types.ts). */
export const operatorExamples: Record<string, OperationExamples> = {
  // GET /admin/agents/{id}
  adminGetAgent: {
    responses: {
      '200': {
        agent: {
          id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          name: 'photo-agent',
          webhookUrl: null,
          balance: '0',
          lockedByTasks: '0',
          balances: {
            TON: { balance: '0', lockedByTasks: '0', lowBalanceThreshold: null },
            USDT: { balance: '0', lockedByTasks: '0', lowBalanceThreshold: null },
          },
          createdAt: '2026-03-14T09:30:00.000Z',
          updatedAt: '2026-03-14T09:30:00.000Z',
          taskCount: 0,
          avgRating: null,
          ratingCount: 0,
          livemode: true,
        },
      },
      '404': { error: 'Agent not found' },
    },
  },
  // GET /admin/audit
  adminAudit: {
    responses: { '200': { ok: true, agents: 1, problems: [], uncreditedDeposits: [] } },
  },
  // GET /admin/chain
  adminGetChainStatus: {
    responses: {
      '200': {
        network: 'sandbox',
        instance: 'test-1583e0',
        lease: {
          name: 'sandbox',
          holder: 'test-1583e0',
          lastHolder: 'test-1583e0',
          heldByThisInstance: true,
          host: 'vm',
          pid: 16533,
          token: 1,
          acquiredAt: '2026-03-14T09:30:00.000Z',
          renewedAt: '2026-03-14T09:30:00.000Z',
          expiresAt: '2026-03-14T00:00:15.000Z',
          expired: false,
        },
        hotWallet: {
          address: '0QDwtnreGUD48luk-IGL8jkXsUHs4gjsp1Nz4AICEo9rzK97',
          balanceNano: '999988288403600',
          balanceError: null,
        },
        depositAddress: '0QA25wHUxnjJLlvlbdTqtvBbhNSQXqj3K_3RyFtJePtlLzCm',
        feeAddress: '0QCtWqllPGRJ1b0nGV8p3Jp5Up1sXu-6bI7txMTwm3caq7j6',
        watcher: null,
        transfers: { pending: 0, sent: 0, confirmed: 4, failed: 0, oldestUnconfirmedAgeSec: null },
        payoutsPaused: null,
        usdt: {
          master: '0QAs9yYcmxvnfeSrbKXGrmrj-TxIjrkQBk-RIakmX3w4uCOv',
          hotBalance: '1000000000000',
          promisedToTransfers: '0',
          balanceError: null,
          tonLeftForGasNano: '999988288403600',
          tonAttachedPerPayoutNano: '50000000',
          payoutsPaused: null,
        },
        lastProviderError: null,
        providerRequests: null,
      },
    },
  },
  // GET /admin/deposits/unmatched
  adminListUnmatchedDeposits: {
    responses: {
      '200': {
        deposits: [
          {
            txHash: '7d1f0c9e8b2a4f6d3c5e7a9b1d3f5e7c9a1b3d5f7e9c1a3b5d7f9e1c3a5b7d9f',
            lt: '28471035000003',
            fromAddress: '0QBvXq1o5MZ2d3h0ZCgL9vEo1x9n0N7nQYp6m8y3c1r4kVHt',
            amount: '12.5',
            currency: 'TON',
            memo: 'agt-unknown',
            reason: 'unknown_memo',
            status: 'open',
            agentId: null,
            createdAt: '2026-03-14T09:30:00.000Z',
          },
        ],
      },
    },
  },
  // GET /admin/disputes
  adminListDisputes: {
    responses: {
      '200': {
        disputes: [
          {
            id: 'dsp_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            status: 'OPEN',
            openedBy: 'AGENT',
            reason: 'The photo shows the back of the building',
            createdAt: '2026-03-14T09:30:00.000Z',
            ageSeconds: 0,
            task: {
              id: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
              title: 'Photo of the town hall',
              status: 'REVIEW',
              currency: 'TON',
              reward: '6.5',
              platformFee: '1.95',
              totalAmount: '8.45',
            },
            agent: { id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7', name: 'Photo agent' },
            worker: { id: 'wrk_01jq7v01x4m2c8w6t0r9b5k3n1p7', firstName: 'Ana', username: 'ana_photos' },
            resolution: null,
          },
        ],
        nextCursor: null,
        hasMore: false,
      },
    },
  },
  // GET /admin/disputes/{id}
  adminGetDispute: {
    responses: {
      '200': {
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
        openedAt: '2026-03-14T09:30:00.000Z',
        task: {
          id: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          title: 'Photo of the town hall',
          description: 'Today, from the square',
          currency: 'TON',
          reward: '6.5',
          platformFee: '1.95',
          totalAmount: '8.45',
          status: 'REVIEW',
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
          submission: {
            id: 'sub_01jq7v02x4m2c8w6t0r9b5k3n1p7',
            number: 2,
            note: 'Sharper now',
            attachments: [
              {
                fileUrl: 'http://localhost:3000/files/upl_01jq7v01x4m2c8w6t0r9b5k3n1p7/town-hall.jpg',
                name: 'town-hall.jpg',
                contentType: 'image/jpeg',
                size: 9,
              },
            ],
            location: null,
            createdAt: '2026-03-14T09:30:00.000Z',
            status: 'DISPUTED',
            revisionReason: null,
          },
        },
        agent: { id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7', name: 'Photo agent' },
        worker: {
          id: 'wrk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          firstName: 'Ana',
          lastName: null,
          username: 'ana_photos',
          walletAddress: '0QA9q04oVvvcDgRJnEHxFFY7Y1kfd0Xkm5K6fT4uVsHuy8n7',
        },
        submissions: [
          {
            id: 'sub_01jq7v02x4m2c8w6t0r9b5k3n1p7',
            number: 2,
            note: 'Sharper now',
            attachments: [
              {
                fileUrl: 'http://localhost:3000/files/upl_01jq7v01x4m2c8w6t0r9b5k3n1p7/town-hall.jpg',
                name: 'town-hall.jpg',
                contentType: 'image/jpeg',
                size: 9,
              },
            ],
            location: null,
            createdAt: '2026-03-14T09:30:00.000Z',
            status: 'DISPUTED',
            revisionReason: null,
          },
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
            status: 'REVISION_REQUESTED',
            revisionReason: 'The photo is blurred; please take it again',
          },
        ],
        messages: [
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
        ],
        moreMessages: false,
      },
      '404': { error: 'Dispute not found' },
    },
  },
  // GET /admin/notifications
  adminListNotifications: {
    responses: {
      '200': {
        notifications: [
          {
            id: 'ntf_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            workerId: 'wrk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            chatId: '4242',
            taskId: 'tsk_01jq7v06x4m2c8w6t0r9b5k3n1p7',
            kind: 'offer',
            text: '📩 <b>New offer</b> from Photo agent\n<b>Count the cars</b>\nReward: <b>4 TON</b>\n\nAccept to take the task; its execution deadline starts when you accept.',
            buttons: [
              [
                { text: '✅ Accept', callbackData: 'offer:accept:tsk_01jq7v06x4m2c8w6t0r9b5k3n1p7' },
                { text: '✖️ Decline', callbackData: 'offer:decline:tsk_01jq7v06x4m2c8w6t0r9b5k3n1p7' },
              ],
            ],
            status: 'pending',
            attempts: 0,
            lastError: null,
            nextAttemptAt: '2026-03-14T09:30:00.000Z',
            sentAt: null,
            createdAt: '2026-03-14T09:30:00.000Z',
            workerName: 'Ana',
          },
        ],
        nextCursor:
          'WyIyMDMwLTAxLTAxVDAwOjAwOjAwLjAwMFoiLCJudGZfMDFxM2RjYmQwMDAwMmU0emp5dzlwNGZ0Mmc4djlieDBwcWd6NXJiZyJd',
        hasMore: true,
      },
    },
  },
  // GET /admin/overview
  adminGetOverview: {
    responses: {
      '200': {
        checkedAt: '2026-03-14T09:30:00.000Z',
        network: 'sandbox',
        health: { database: 'ok' },
        agents: { count: 1, balance: '77.9', locked: '10.4', deposited: '100', spent: '11.7' },
        money: [
          {
            currency: 'TON',
            balance: '77.9',
            locked: '10.4',
            deposited: '100',
            spent: '11.7',
            paidOut: '9',
            fees: '2.7',
          },
          {
            currency: 'USDT',
            balance: '37',
            locked: '0',
            deposited: '50',
            spent: '13',
            paidOut: '10',
            fees: '3',
          },
        ],
        chain: {
          hotWalletAddress: '0QDwtnreGUD48luk-IGL8jkXsUHs4gjsp1Nz4AICEo9rzK97',
          hotWalletBalance: '999988.2884036',
        },
        deposits: { unmatched: 0 },
        transfers: { pending: 0, failed: 0 },
        webhooks: { pending: 0, failed: 0 },
        notifications: { pending: 12, failed: 0 },
        audit: { ok: true, problems: 0 },
        approvals: { pending: 1 },
        topAgents: [
          {
            id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            name: 'Photo agent',
            ownerWallet: null,
            balance: '77.9',
            lockedByTasks: '10.4',
            deposited: '100',
            spent: '11.7',
            usdt: { balance: '37', lockedByTasks: '0', deposited: '50', spent: '13' },
          },
        ],
        recentDeposits: [
          {
            id: 'txn_01jq7v05x4m2c8w6t0r9b5k3n1p7',
            agentId: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            agentName: 'Photo agent',
            amount: '50',
            currency: 'USDT',
            fromAddress: '0QCCXhHuA9AMBQ2dcgtd8TcL_StQPQ_oVQCJf-Jrjqf_tHMD',
            txHash: 'c9e2fd8699f472f241c2e90a7fcb3622a34638de7894259a87cbf77ba443d92f',
            createdAt: '2026-03-14T09:30:00.000Z',
          },
          {
            id: 'txn_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            agentId: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            agentName: 'Photo agent',
            amount: '100',
            currency: 'TON',
            fromAddress: '0QCCXhHuA9AMBQ2dcgtd8TcL_StQPQ_oVQCJf-Jrjqf_tHMD',
            txHash: '02573877040365baa09e6fd331632f2d2493ebaf95eb82913b602fd3b05adc9d',
            createdAt: '2026-03-14T09:30:00.000Z',
          },
        ],
        openTransfers: [],
      },
    },
  },
  // GET /admin/reconciliation
  adminReconcile: {
    responses: {
      '200': {
        ok: true,
        network: 'testnet',
        currencies: { TON: { differences: [] }, USDT: { differences: [] } },
      },
      '409': {
        error:
          'Reconciliation reads the chain’s history, which the in-process sandbox does not keep; it runs with TON_NETWORK=testnet or mainnet',
      },
    },
  },
  // GET /health
  getHealth: {
    responses: { '200': { status: 'ok' } },
  },
  // GET /ready
  getReady: {
    responses: { '200': { status: 'ready' } },
  },
  // POST /admin/agents
  adminCreateAgent: {
    request: { name: 'photo-agent' },
    responses: {
      '201': {
        agent: {
          id: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          name: 'photo-agent',
          webhookUrl: null,
          balance: '0',
          lockedByTasks: '0',
          balances: {
            TON: { balance: '0', lockedByTasks: '0', lowBalanceThreshold: null },
            USDT: { balance: '0', lockedByTasks: '0', lowBalanceThreshold: null },
          },
          createdAt: '2026-03-14T09:30:00.000Z',
          updatedAt: '2026-03-14T09:30:00.000Z',
          taskCount: 0,
          avgRating: null,
          ratingCount: 0,
          livemode: true,
        },
        apiKey: 'hr_3f9c2a7e51b84d06a9e2c4f1d7b3e8a05c6f2d9e1b7a4c30f8e6d2b9a1c5e7f3',
        testApiKey: 'hr_test_9a1c5e7f3d2b8e6c4a0f1b7d3e9c5a2f6b8d0e4c7a1f3b9d5e2c8a6f0b4d7e1c',
      },
    },
  },
  // POST /admin/agents/{id}/deposits
  adminDeposit: {
    request: { amount: '100' },
    responses: {
      '201': {
        transaction: {
          id: 'txn_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          type: 'DEPOSIT',
          amount: '100',
          currency: 'TON',
          fromAddress: '0QCCXhHuA9AMBQ2dcgtd8TcL_StQPQ_oVQCJf-Jrjqf_tHMD',
          toAddress: '0QA25wHUxnjJLlvlbdTqtvBbhNSQXqj3K_3RyFtJePtlLzCm',
          txHash: '02573877040365baa09e6fd331632f2d2493ebaf95eb82913b602fd3b05adc9d',
          status: 'confirmed',
          createdAt: '2026-03-14T09:30:00.000Z',
          task: null,
        },
      },
      '404': { error: 'Agent not found' },
    },
  },
  // POST /admin/deposits/unmatched/{txHash}/assign
  adminAssignUnmatchedDeposit: {
    request: { agentId: 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7' },
    responses: {
      '201': {
        transaction: {
          id: 'txn_01jq7v09x4m2c8w6t0r9b5k3n1p7',
          type: 'DEPOSIT',
          amount: '12.5',
          currency: 'TON',
          fromAddress: '0QBvXq1o5MZ2d3h0ZCgL9vEo1x9n0N7nQYp6m8y3c1r4kVHt',
          toAddress: '0QA25wHUxnjJLlvlbdTqtvBbhNSQXqj3K_3RyFtJePtlLzCm',
          txHash: '7d1f0c9e8b2a4f6d3c5e7a9b1d3f5e7c9a1b3d5f7e9c1a3b5d7f9e1c3a5b7d9f',
          status: 'confirmed',
          createdAt: '2026-03-14T09:30:00.000Z',
          task: null,
        },
      },
      '400': {
        error: 'Validation failed',
        details: [{ path: 'txHash', message: 'must match pattern "^[0-9a-f]{64}$"' }],
      },
      '404': { error: 'Unmatched deposit not found' },
      '409': {
        error: 'This deposit is recorded as returned to its sender, so it cannot be credited',
        status: 'returned',
      },
    },
  },
  // POST /admin/deposits/unmatched/{txHash}/returned
  adminMarkUnmatchedDepositReturned: {
    responses: {
      '200': { status: 'returned' },
      '400': {
        error: 'Validation failed',
        details: [{ path: 'txHash', message: 'must match pattern "^[0-9a-f]{64}$"' }],
      },
      '404': { error: 'Unmatched deposit not found' },
      '409': { error: 'This deposit is already assigned', status: 'assigned' },
    },
  },
  // POST /admin/disputes/{id}/resolve
  adminResolveDispute: {
    request: { workerAmount: '4', note: 'Half the photo was usable' },
    responses: {
      '200': {
        dispute: {
          id: 'dsp_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          status: 'RESOLVED',
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
          resolution: {
            workerAmount: '4',
            platformFee: '1.2',
            agentAmount: '3.25',
            note: 'Half the photo was usable',
            resolvedAt: '2026-03-14T09:30:00.000Z',
            currency: 'TON',
          },
        },
        task: { id: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7', status: 'COMPLETED', paymentStatus: 'RELEASED' },
        payout: {
          amount: '4',
          currency: 'TON',
          toAddress: '0QA9q04oVvvcDgRJnEHxFFY7Y1kfd0Xkm5K6fT4uVsHuy8n7',
          txHash: '9e2f2ed7822a039405aca505864c2c2da1915458e0e56218f09186e450ed5af8',
          status: 'confirmed',
        },
        fee: {
          amount: '1.2',
          currency: 'TON',
          toAddress: '0QCtWqllPGRJ1b0nGV8p3Jp5Up1sXu-6bI7txMTwm3caq7j6',
          txHash: 'fa0b89b906e78e39ea2726b53795060e3d9a58e0265f3f8a0b3897e62642e048',
          status: 'confirmed',
        },
        refund: { amount: '3.25', destination: 'agent_balance', currency: 'TON' },
      },
      '404': { error: 'Dispute not found' },
      '409': {
        error: 'This dispute is already resolved; a resolution is final',
        disputeId: 'dsp_01jq7v01x4m2c8w6t0r9b5k3n1p7',
        resolution: {
          workerAmount: '4',
          platformFee: '1.2',
          agentAmount: '3.25',
          note: 'Half the photo was usable',
          resolvedAt: '2026-03-14T09:30:00.000Z',
          currency: 'TON',
        },
      },
    },
  },
};

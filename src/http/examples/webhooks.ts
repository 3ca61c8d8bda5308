import type { OperationExamples } from './types.js';

/** Examples of webhooks, by operationId (see ./types.ts). */
export const webhooksExamples: Record<string, OperationExamples> = {
  // GET /agents/webhooks/deliveries
  listWebhookDeliveries: {
    responses: {
      '200': {
        deliveries: [
          {
            id: 'dlv_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            eventId: 'evt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            event: 'task.completed',
            taskId: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
            url: 'https://agent.example.com/hooks/handoff',
            status: 'failed',
            attempts: 4,
            lastStatusCode: 502,
            lastError: 'HTTP 502',
            nextAttemptAt: null,
            requestBody:
              '{"event":"task.completed","timestamp":"2026-03-14T09:30:00.000Z","data":{"taskId":"tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7"}}',
            deliveredAt: null,
            createdAt: '2026-03-14T09:30:00.000Z',
          },
        ],
        nextCursor: null,
        hasMore: false,
      },
    },
  },
  // GET /agents/webhooks/endpoints
  listWebhookEndpoints: {
    responses: {
      '200': {
        endpoints: [
          {
            origin: 'https://agent.example.com:443',
            state: 'quarantined',
            quarantinedUntil: '2026-03-14T10:00:00.000Z',
            consecutiveTimeouts: 5,
            lastError: 'Timed out after 10000 ms',
            pendingDeliveries: 3,
            updatedAt: '2026-03-14T09:30:00.000Z',
          },
        ],
      },
    },
  },
  // PATCH /agents/webhooks
  configureWebhook: {
    request: { url: 'http://127.0.0.1:9/hook' },
    responses: {
      '200': {
        webhook: {
          url: 'http://127.0.0.1:9/hook',
          configured: true,
          lastUpdated: '2026-03-14T09:30:00.000Z',
        },
        message: 'Webhooks will be sent to this URL',
      },
    },
  },
  // POST /agents/webhooks
  testWebhook: {
    responses: {
      '200': {
        success: false,
        statusCode: 0,
        message:
          'Not delivered to http://127.0.0.1:9/hook: could not connect: connect ECONNREFUSED 127.0.0.1:9',
      },
      '409': { error: 'No webhook URL is configured; set one with PATCH /agents/webhooks first' },
    },
  },
  // POST /agents/webhooks/deliveries/{id}/redeliver
  redeliverWebhook: {
    responses: {
      '200': {
        delivery: {
          id: 'dlv_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          eventId: 'evt_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          event: 'task.completed',
          taskId: 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7',
          url: 'https://agent.example.com/hooks/handoff',
          status: 'pending',
          attempts: 0,
          lastStatusCode: null,
          lastError: null,
          nextAttemptAt: '2026-03-14T09:30:00.000Z',
          requestBody:
            '{"event":"task.completed","timestamp":"2026-03-14T09:30:00.000Z","data":{"taskId":"tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7"}}',
          deliveredAt: null,
          createdAt: '2026-03-14T09:30:00.000Z',
        },
      },
      '404': { error: 'Delivery not found' },
      '409': {
        error: 'Only failed deliveries can be redelivered; this one is delivered',
        status: 'delivered',
      },
    },
  },
  // POST /agents/webhooks/endpoints/resume
  resumeWebhookEndpoints: {
    request: {},
    responses: { '200': { endpoints: [] } },
  },
};

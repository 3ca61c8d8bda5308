import { Type } from 'typebox';
import type { DeliveryRow } from '../../db/repositories/executor.js';
import { eventPayload } from '../../domain/events/events.js';
import { listEndpoints, resumeEndpoints } from '../../domain/events/webhookEndpoints.js';
import { listDeliveries, redeliver, sendTestWebhook, setAgentWebhook } from '../../domain/events/webhooks.js';
import { envelopeBody } from '../../events/signer.js';
import { SHORT_BODY_LIMIT_BYTES } from '../bodyLimits.js';
import { pageView } from '../pageView.js';
import { AGENT_SECURITY, type Routes } from '../routeTypes.js';
import { errors, IdParam, NextCursor, Nullable, Timestamp } from '../schemas/common.js';
import { tracedContext } from '../traceHeader.js';
import { webhookConfigView } from '../views.js';

const tags = ['Webhooks'];
const security = AGENT_SECURITY;

/** A delivery's body is shown up to this many characters (the log is a page of 20 or more). */
const REQUEST_BODY_SHOWN = 4000;

/** The body the receiver gets (the dispatcher's own bytes: envelopeBody), bounded for the log. */
function sentBody(event: string, timestamp: string, dataJson: string, livemode: boolean): string {
  const body = envelopeBody({ event, timestamp, livemode, data: eventPayload(dataJson).data });
  return body.length > REQUEST_BODY_SHOWN ? `${body.slice(0, REQUEST_BODY_SHOWN)}…` : body;
}

const Delivery = Type.Object({
  id: Type.String({ description: 'Sent as X-Service-Delivery-Id; the same on every retry' }),
  eventId: Type.String(),
  event: Type.String(),
  taskId: Nullable(Type.String()),
  url: Type.String(),
  status: Type.Enum(['pending', 'delivered', 'failed']),
  attempts: Type.Integer(),
  lastStatusCode: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  nextAttemptAt: Nullable(Timestamp),
  requestBody: Type.Optional(
    Type.String({
      description: `The JSON body sent (the same on every attempt), cut at ${REQUEST_BODY_SHOWN} characters (then ending in …)`,
    }),
  ),
  deliveredAt: Nullable(Timestamp),
  createdAt: Timestamp,
});

const Endpoint = Type.Object({
  origin: Type.String({ description: 'The endpoint: scheme://host:port of your webhook URL' }),
  state: Type.Enum(['healthy', 'quarantined', 'probing'], {
    description:
      'quarantined: nothing is sent before quarantinedUntil; probing: one delivery at a time until one is answered; healthy: full share',
  }),
  quarantinedUntil: Nullable(Timestamp),
  consecutiveTimeouts: Type.Integer({ description: 'Attempts in a row not answered in time' }),
  lastError: Nullable(Type.String()),
  pendingDeliveries: Type.Integer({ description: 'Deliveries to this endpoint still to be sent' }),
  updatedAt: Timestamp,
});

export function endpointView(e: Awaited<ReturnType<typeof listEndpoints>>[number]) {
  return {
    origin: e.origin,
    state: e.state,
    quarantinedUntil: e.state === 'quarantined' ? e.quarantined_until : null,
    consecutiveTimeouts: e.consecutive_timeouts,
    lastError: e.last_error,
    pendingDeliveries: Number(e.pending_deliveries ?? 0),
    updatedAt: e.updated_at,
  };
}

/** The view of the deliveries of an agent of one world (`livemode` is in the body sent: test mode). */
export const deliveryViewIn =
  (livemode: boolean) =>
  (
    d: DeliveryRow & {
      event_type: string;
      event_task_id: string | null;
      event_data_json?: string;
      event_created_at?: string;
    },
  ) =>
    deliveryView(d, livemode);

export function deliveryView(
  d: DeliveryRow & {
    event_type: string;
    event_task_id: string | null;
    event_data_json?: string;
    event_created_at?: string;
  },
  livemode: boolean,
) {
  return {
    id: d.id,
    eventId: d.event_id,
    event: d.event_type,
    taskId: d.event_task_id,
    url: d.url,
    status: d.status,
    attempts: d.attempts,
    lastStatusCode: d.last_status_code,
    lastError: d.last_error,
    nextAttemptAt: d.status === 'pending' ? d.next_attempt_at : null,
    ...(d.event_data_json && d.event_created_at
      ? { requestBody: sentBody(d.event_type, d.event_created_at, d.event_data_json, livemode) }
      : {}),
    deliveredAt: d.delivered_at,
    createdAt: d.created_at,
  };
}

export const webhookRoutes: Routes = async (app, { ctx }) => {
  app.patch(
    '/agents/webhooks',
    {
      bodyLimit: SHORT_BODY_LIMIT_BYTES,
      schema: {
        tags,
        security,
        operationId: 'configureWebhook',
        summary: 'Set your webhook URL (null turns webhooks off)',
        body: Type.Object({ url: Nullable(Type.String({ maxLength: 2000 })) }),
        response: {
          200: Type.Object({
            webhook: Type.Object({
              url: Nullable(Type.String()),
              configured: Type.Boolean(),
              lastUpdated: Timestamp,
            }),
            message: Type.String(),
          }),
          ...errors(400, 401),
        },
      },
    },
    async (request) => {
      return webhookConfigView(await setAgentWebhook(ctx, request.agentId, request.body.url));
    },
  );

  app.post(
    '/agents/webhooks',
    {
      schema: {
        tags,
        security,
        operationId: 'testWebhook',
        summary: 'Send a signed test webhook (event "webhook.test") and report the receiver’s status',
        response: {
          200: Type.Object({ success: Type.Boolean(), statusCode: Type.Integer(), message: Type.String() }),
          ...errors(401, 409),
        },
      },
    },
    (request) => sendTestWebhook(tracedContext(request, ctx), request.agentId),
  );

  app.get(
    '/agents/webhooks/deliveries',
    {
      schema: {
        tags,
        security,
        operationId: 'listWebhookDeliveries',
        summary: 'Your webhook deliveries, newest first',
        querystring: Type.Object({
          status: Type.Optional(Type.Enum(['pending', 'delivered', 'failed'])),
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
          cursor: Type.Optional(Type.String({ maxLength: 400 })),
        }),
        response: {
          200: Type.Object({
            deliveries: Type.Array(Delivery),
            nextCursor: NextCursor,
            hasMore: Type.Boolean(),
          }),
          ...errors(400, 401),
        },
      },
    },
    async (request) => {
      const result = await listDeliveries(ctx, request.agentId, request.query);
      return pageView(result, 'deliveries', deliveryViewIn(request.apiKey?.livemode ?? true));
    },
  );

  app.post(
    '/agents/webhooks/deliveries/:id/redeliver',
    {
      schema: {
        tags,
        security,
        operationId: 'redeliverWebhook',
        summary: 'Queue a failed delivery again (same delivery id) to your current webhook URL',
        params: IdParam,
        response: { 200: Type.Object({ delivery: Delivery }), ...errors(401, 404, 409) },
      },
    },
    async (request) => ({
      delivery: deliveryView(
        await redeliver(ctx, request.agentId, request.params.id),
        request.apiKey?.livemode ?? true,
      ),
    }),
  );

  app.get(
    '/agents/webhooks/endpoints',
    {
      schema: {
        tags,
        security,
        operationId: 'listWebhookEndpoints',
        summary:
          'Your webhook endpoints that ever timed out: quarantined ones get nothing until the quarantine ends',
        response: { 200: Type.Object({ endpoints: Type.Array(Endpoint) }), ...errors(401) },
      },
    },
    async (request) => ({ endpoints: (await listEndpoints(ctx, request.agentId)).map(endpointView) }),
  );

  app.post(
    '/agents/webhooks/endpoints/resume',
    {
      bodyLimit: SHORT_BODY_LIMIT_BYTES,
      schema: {
        tags,
        security,
        operationId: 'resumeWebhookEndpoints',
        summary:
          'End the quarantine of your endpoints now (all, or the one origin): held deliveries go out, one first as a probe',
        body: Type.Object({ origin: Type.Optional(Type.String({ maxLength: 2000 })) }),
        response: { 200: Type.Object({ endpoints: Type.Array(Endpoint) }), ...errors(400, 401) },
      },
    },
    async (request) => ({
      endpoints: (await resumeEndpoints(ctx, request.agentId, request.body.origin)).map(endpointView),
    }),
  );
};
